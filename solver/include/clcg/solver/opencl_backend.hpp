#pragma once
// The device operations CG is made of, each a small class holding its cl::Kernel objects and
// launching them with clSetKernelArg + clEnqueueNDRangeKernel on the Env's (in-order) queue.
// Nothing here blocks or reads data back; dot products live in clcg::reduction.
//
//   Spmv spmv(env, a);                 // picks scalar or vector CSR from the row lengths
//   spmv.enqueue(p, q);                // q = A p
//   VectorOps ops(env, a.type());
//   ops.xpay(n, beta, z, p);           // p = z + beta p
//
// Kernels: kernels/spmv_csr.cl, kernels/blas1.cl, kernels/cg_update.cl, built with
// -D REAL=float|double once per Env (its program cache). Launch shapes depend only on the
// device and n, so repeated calls give the same bits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "clcg/cl/env.hpp"
#include "clcg/solver/csr_matrix.hpp"

namespace clcg::solver {

enum class SpmvKernel {
  automatic,  // choose_spmv_kernel()
  scalar,     // CSR, one work-item per row
  vector,     // CSR, vector_size work-items per row, tree in local memory
  ell,        // ELLPACK copy (rows padded to the longest, column-major): coalesced reads
};
std::string_view spmv_kernel_name(SpmvKernel kernel) noexcept;  // "auto", "scalar", "vector"
SpmvKernel parse_spmv_kernel(std::string_view name);            // std::invalid_argument

// Mean nonzeros per row from which `automatic` picks the vector kernel. Rows shorter than
// this leave most of a vector idle; the scalar kernel's uncoalesced reads cost less there.
inline constexpr double spmv_vector_threshold = 12.0;

// ELL when every row is about as long as the mean (longest <= 1.25 x mean and <= 32:
// stencils, meshes); else vector when the mean row length is >= spmv_vector_threshold,
// else scalar. Measured on the H100: see docs/PERFORMANCE.md.
SpmvKernel choose_spmv_kernel(const DeviceCsrMatrix& a);

// -D REAL=... for `type`.
std::string real_build_options(ElementType type);

// y = A x for one matrix. The matrix's buffers are retained (the object holds a copy of the
// DeviceCsrMatrix handles).
class Spmv {
 public:
  // vector_size 0: the power of two nearest above the mean row length, within [2, 32] and the
  // work-group size. A given vector_size must be a power of two <= the work-group size.
  Spmv(const cl::Env& env, const DeviceCsrMatrix& a, SpmvKernel kernel = SpmvKernel::automatic,
       unsigned vector_size = 0);

  void enqueue(const ::cl::Buffer& x, ::cl::Buffer& y);  // y = A x (x: cols, y: rows elements)
  // inv_diag = 1 / diag(A), 1 where the diagonal is zero or absent (Eigen's rule).
  void inverse_diagonal(::cl::Buffer& inv_diag);
  // r = b - A x in double (needs fp64; throws std::logic_error without it).
  void residual_f64(const ::cl::Buffer& x, const ::cl::Buffer& b, ::cl::Buffer& r);

  SpmvKernel kernel() const noexcept { return kernel_; }  // scalar, vector or ell, never automatic
  // The ELL copy (kernel() == ell): `width` entries per row, column-major.
  const ::cl::Buffer& ell_columns() const noexcept { return ell_col_; }
  const ::cl::Buffer& ell_values() const noexcept { return ell_val_; }
  unsigned ell_width() const noexcept { return ell_width_; }
  unsigned vector_size() const noexcept { return vector_size_; }
  std::size_t work_group_size() const noexcept { return wg_; }
  const DeviceCsrMatrix& matrix() const noexcept { return a_; }

 private:
  cl::Env env_;
  DeviceCsrMatrix a_;
  SpmvKernel kernel_;
  unsigned vector_size_ = 1;
  std::size_t wg_ = 1;
  void build_ell(const std::string& options);

  ::cl::Buffer ell_col_, ell_val_;
  unsigned ell_width_ = 0;
  ::cl::Kernel spmv_;
  ::cl::Kernel inv_diag_;
  ::cl::Kernel residual_;
};

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
  ::cl::Kernel axpy_, xpay_, axpby_to_, scale_, copy_, fill_, diag_mul_, update_xr_, update_xrz_;
};

// Sets a REAL scalar kernel argument: cl_float or cl_double to match the vectors.
void set_real_arg(::cl::Kernel& kernel, cl_uint index, ElementType type, double value);
// The largest power of two <= v (1 for v = 0).
std::size_t floor_power_of_two(std::size_t v);

// A device buffer of n elements of `type` (at least one element: OpenCL has no empty buffers).
::cl::Buffer make_vector(const cl::Env& env, ElementType type, std::size_t n, cl_mem_flags flags = CL_MEM_READ_WRITE);

}  // namespace clcg::solver
