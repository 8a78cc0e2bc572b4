#pragma once
// Level-1 vector kernels on the device (kernels/blas1.cl) and the textbook CG's fused updates
// (kernels/cg_update.cl), each launched with clSetKernelArg + clEnqueueNDRangeKernel on the
// Env's in-order queue; nothing here blocks. Dot products live in clcg::reduction.
//
//   VectorOps ops(env, ElementType::f64);
//   ops.xpay(n, beta, z, p);           // p = z + beta p
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/reduction/op.hpp"

namespace clcg::solver {

using reduction::ElementType;

// -D REAL=... for `type`.
std::string real_build_options(ElementType type);

// Level-1 kernels and the fused CG updates on vectors of `type` (n elements each).
class VectorOps {
 public:
  VectorOps(const cl::Env& env, ElementType type);

  void axpy(std::size_t n, double a, const ::cl::Buffer& x, ::cl::Buffer& y);   // y = a x + y
  void xpay(std::size_t n, double a, const ::cl::Buffer& x, ::cl::Buffer& y);   // y = x + a y
  void axpby_to(std::size_t n, double a, const ::cl::Buffer& x, double b, const ::cl::Buffer& y,
                ::cl::Buffer& w);                                               // w = a x + b y
  void scale(std::size_t n, double a, ::cl::Buffer& x);                         // x = a x
  void copy(std::size_t n, const ::cl::Buffer& x, ::cl::Buffer& y);             // y = x
  void fill(std::size_t n, double value, ::cl::Buffer& x);                      // x = value
  void diag_mul(std::size_t n, const ::cl::Buffer& d, const ::cl::Buffer& x, ::cl::Buffer& y);  // y = d .* x
  // x += alpha p ; r -= alpha q                      (one pass instead of two)
  void cg_update_xr(std::size_t n, double alpha, const ::cl::Buffer& p, const ::cl::Buffer& q, ::cl::Buffer& x,
                    ::cl::Buffer& r);
  // x += alpha p ; r -= alpha q ; z = inv_diag .* r  (one pass instead of three)
  void cg_update_xrz(std::size_t n, double alpha, const ::cl::Buffer& p, const ::cl::Buffer& q,
                     const ::cl::Buffer& inv_diag, ::cl::Buffer& x, ::cl::Buffer& r, ::cl::Buffer& z);

  ElementType type() const noexcept { return type_; }

 private:
  void launch(::cl::Kernel& kernel, const char* name, std::size_t n);

  cl::Env env_;
  ElementType type_;
  ::cl::Kernel axpy_, xpay_, axpby_to_, scale_, copy_, fill_, diag_mul_, update_xr_,
      update_xrz_;
};

// Sets a REAL scalar kernel argument: cl_float or cl_double to match the vectors.
void set_real_arg(::cl::Kernel& kernel, cl_uint index, ElementType type, double value);
void set_real_arg(cl::CachedKernel& kernel, cl_uint index, ElementType type, double value);
// The largest power of two <= v (1 for v = 0).
std::size_t floor_power_of_two(std::size_t v);

// Host doubles to a device vector of `type` (converted), and back; blocking, on env's queue;
// large vectors through pinned staging (cl::StagedUpload, StagedDownload).
void upload_vector(const cl::Env& env, std::span<const double> values, ElementType type, ::cl::Buffer& buffer);
std::vector<double> download_vector(const cl::Env& env, const ::cl::Buffer& buffer, ElementType type, std::size_t n);
// The buffer's first values.size() elements into `values`.
void download_vector(const cl::Env& env, const ::cl::Buffer& buffer, ElementType type, std::span<double> values);

// A device buffer of n elements of `type` (at least one element: OpenCL has no empty buffers).
::cl::Buffer make_vector(const cl::Env& env, ElementType type, std::size_t n, cl_mem_flags flags = CL_MEM_READ_WRITE);
// A device buffer of n 32-bit ints (at least one).
::cl::Buffer make_index_buffer(const cl::Env& env, std::size_t n);

}  // namespace clcg::solver
