#include "clcg/solver/sparse/vector_ops.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/staged_download.hpp"
#include "clcg/cl/staged_upload.hpp"
#include "clcg/solver/sparse/launch.hpp"

namespace clcg::solver {

::cl::Buffer make_vector(const cl::Env& env, ElementType type, std::size_t n, cl_mem_flags flags) {
  return env.buffer(flags, std::max<std::size_t>(1, n) * reduction::element_size(type),
                    "allocating a vector of " + std::to_string(n) + " elements");
}

::cl::Buffer make_index_buffer(const cl::Env& env, std::size_t n) {
  return env.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(std::int32_t),
                    "allocating " + std::to_string(n) + " indices");
}

std::size_t floor_power_of_two(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

void set_real_arg(::cl::Kernel& kernel, cl_uint index, ElementType type, double value) {
  if (type == ElementType::f64)
    kernel.setArg(index, static_cast<cl_double>(value));
  else
    kernel.setArg(index, static_cast<cl_float>(value));
}

void set_real_arg(cl::CachedKernel& kernel, cl_uint index, ElementType type, double value) {
  if (type == ElementType::f64)
    kernel.set(index, static_cast<cl_double>(value));
  else
    kernel.set(index, static_cast<cl_float>(value));
}

std::string real_build_options(ElementType type) {
  return type == ElementType::f64 ? "-D REAL=double -D REAL_IS_DOUBLE" : "-D REAL=float";
}

namespace {
// From this size on a vector is read back through pinned staging (cl::StagedDownload): several
// times the link speed of a pageable copy; below it, allocating the pinned halves costs more
// than it saves. (Uploads: cl::StagedUpload decides, by its direct_bytes.)
constexpr std::size_t staged_vector_bytes = std::size_t(4) << 20;
}  // namespace

void upload_vector(const cl::Env& env, std::span<const double> values, ElementType type, ::cl::Buffer& buffer) {
  if (values.empty()) return;
  cl::checked("uploading a vector of " + std::to_string(values.size()) + " elements", [&] {
    cl::StagedUpload staging(env);
    if (type == ElementType::f64) staging.write(buffer, values.data(), values.size() * sizeof(double));
    else staging.write_narrowed(buffer, values.data(), values.size());
    staging.finish();
  });
}

void download_vector(const cl::Env& env, const ::cl::Buffer& buffer, ElementType type, std::span<double> values) {
  const std::size_t n = values.size();
  if (n == 0) return;
  cl::checked("reading a vector of " + std::to_string(n) + " elements back", [&] {
    const std::size_t bytes = n * reduction::element_size(type);
    if (bytes >= staged_vector_bytes) {
      cl::StagedDownload staging(env);
      if (type == ElementType::f64) staging.read(buffer, values.data(), bytes);
      else staging.read_widened(buffer, values.data(), n);
    } else if (type == ElementType::f64) {
      env.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, values.data());
    } else {
      std::vector<float> narrow(n);
      env.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, narrow.data());
      std::copy(narrow.begin(), narrow.end(), values.begin());
    }
  });
}

std::vector<double> download_vector(const cl::Env& env, const ::cl::Buffer& buffer, ElementType type, std::size_t n) {
  std::vector<double> values(n);
  download_vector(env, buffer, type, values);
  return values;
}

// ---- VectorOps ------------------------------------------------------------------------

VectorOps::VectorOps(const cl::Env& env, ElementType type) : env_(env), type_(type) {
  if (type == ElementType::f64 && !env.info().fp64)
    throw std::invalid_argument("double precision needs a device with fp64; " + env.info().name + " has none");
  const std::string options = real_build_options(type);
  axpy_ = env.kernel("blas1.cl", "axpy", options);
  xpay_ = env.kernel("blas1.cl", "xpay", options);
  axpby_to_ = env.kernel("blas1.cl", "axpby_to", options);
  scale_ = env.kernel("blas1.cl", "scale", options);
  copy_ = env.kernel("blas1.cl", "copy", options);
  fill_ = env.kernel("blas1.cl", "fill", options);
  diag_mul_ = env.kernel("blas1.cl", "diag_mul", options);
  update_xr_ = env.kernel("cg_update.cl", "cg_update_xr", options);
  update_xrz_ = env.kernel("cg_update.cl", "cg_update_xrz", options);
}

void VectorOps::launch(::cl::Kernel& kernel, const char* name, std::size_t n) {
  const std::size_t wg = std::min(vector_ops_group, kernel_max_group(env_, kernel));
  enqueue_grid_stride(env_, kernel, name, n, wg, groups_per_unit * env_.info().compute_units);
}

void VectorOps::axpy(std::size_t n, double a, const ::cl::Buffer& x, ::cl::Buffer& y) {
  axpy_.setArg(0, as_count(n));
  set_real_arg(axpy_, 1, type_, a);
  axpy_.setArg(2, x);
  axpy_.setArg(3, y);
  launch(axpy_, "axpy", n);
}

void VectorOps::xpay(std::size_t n, double a, const ::cl::Buffer& x, ::cl::Buffer& y) {
  xpay_.setArg(0, as_count(n));
  set_real_arg(xpay_, 1, type_, a);
  xpay_.setArg(2, x);
  xpay_.setArg(3, y);
  launch(xpay_, "xpay", n);
}

void VectorOps::axpby_to(std::size_t n, double a, const ::cl::Buffer& x, double b, const ::cl::Buffer& y,
                         ::cl::Buffer& w) {
  axpby_to_.setArg(0, as_count(n));
  set_real_arg(axpby_to_, 1, type_, a);
  axpby_to_.setArg(2, x);
  set_real_arg(axpby_to_, 3, type_, b);
  axpby_to_.setArg(4, y);
  axpby_to_.setArg(5, w);
  launch(axpby_to_, "axpby_to", n);
}

void VectorOps::scale(std::size_t n, double a, ::cl::Buffer& x) {
  scale_.setArg(0, as_count(n));
  set_real_arg(scale_, 1, type_, a);
  scale_.setArg(2, x);
  launch(scale_, "scale", n);
}

void VectorOps::copy(std::size_t n, const ::cl::Buffer& x, ::cl::Buffer& y) {
  copy_.setArg(0, as_count(n));
  copy_.setArg(1, x);
  copy_.setArg(2, y);
  launch(copy_, "copy", n);
}

void VectorOps::fill(std::size_t n, double value, ::cl::Buffer& x) {
  fill_.setArg(0, as_count(n));
  set_real_arg(fill_, 1, type_, value);
  fill_.setArg(2, x);
  launch(fill_, "fill", n);
}

void VectorOps::diag_mul(std::size_t n, const ::cl::Buffer& d, const ::cl::Buffer& x, ::cl::Buffer& y) {
  diag_mul_.setArg(0, as_count(n));
  diag_mul_.setArg(1, d);
  diag_mul_.setArg(2, x);
  diag_mul_.setArg(3, y);
  launch(diag_mul_, "diag_mul", n);
}

void VectorOps::cg_update_xr(std::size_t n, double alpha, const ::cl::Buffer& p, const ::cl::Buffer& q,
                             ::cl::Buffer& x, ::cl::Buffer& r) {
  update_xr_.setArg(0, as_count(n));
  set_real_arg(update_xr_, 1, type_, alpha);
  update_xr_.setArg(2, p);
  update_xr_.setArg(3, q);
  update_xr_.setArg(4, x);
  update_xr_.setArg(5, r);
  launch(update_xr_, "cg_update_xr", n);
}

void VectorOps::cg_update_xrz(std::size_t n, double alpha, const ::cl::Buffer& p, const ::cl::Buffer& q,
                              const ::cl::Buffer& inv_diag, ::cl::Buffer& x, ::cl::Buffer& r, ::cl::Buffer& z) {
  update_xrz_.setArg(0, as_count(n));
  set_real_arg(update_xrz_, 1, type_, alpha);
  update_xrz_.setArg(2, p);
  update_xrz_.setArg(3, q);
  update_xrz_.setArg(4, inv_diag);
  update_xrz_.setArg(5, x);
  update_xrz_.setArg(6, r);
  update_xrz_.setArg(7, z);
  launch(update_xrz_, "cg_update_xrz", n);
}

}  // namespace clcg::solver
