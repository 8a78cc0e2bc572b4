#include "clcg/solver/opencl_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"

namespace clcg::solver {

namespace {

constexpr std::size_t vector_ops_group = 256;  // work-items per group for the level-1 kernels
constexpr std::size_t spmv_group = 128;        // work-items per group for the CSR kernels
constexpr std::size_t groups_per_unit = 64;    // cap on groups per compute unit (grid-stride)

std::size_t kernel_max_group(const cl::Env& env, const ::cl::Kernel& kernel) {
  return cl::checked("querying CL_KERNEL_WORK_GROUP_SIZE",
                     [&] { return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device()); });
}

cl_uint as_count(std::size_t n) {
  if (n > max_csr_index) throw std::length_error("vector of " + std::to_string(n) + " elements is too long for clcg");
  return static_cast<cl_uint>(n);
}

// Grid-stride launch: `groups` groups of `wg` work-items (never more groups than needed).
void enqueue(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n, std::size_t wg,
             std::size_t max_groups) {
  if (n == 0) return;
  const std::size_t groups = std::max<std::size_t>(1, std::min((n + wg - 1) / wg, max_groups));
  cl::checked(std::string("running ") + name + " (n " + std::to_string(n) + ", work-group " + std::to_string(wg) +
                  ", groups " + std::to_string(groups) + ") on " + env.info().name,
              [&] { env.queue().enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(groups * wg), ::cl::NDRange(wg)); });
}

}  // namespace

std::string_view spmv_kernel_name(SpmvKernel kernel) noexcept {
  switch (kernel) {
    case SpmvKernel::automatic: return "auto";
    case SpmvKernel::scalar: return "scalar";
    case SpmvKernel::vector: return "vector";
    case SpmvKernel::ell: return "ell";
  }
  return "?";
}

SpmvKernel parse_spmv_kernel(std::string_view name) {
  for (SpmvKernel k : {SpmvKernel::automatic, SpmvKernel::scalar, SpmvKernel::vector, SpmvKernel::ell})
    if (spmv_kernel_name(k) == name) return k;
  throw std::invalid_argument("unknown SpMV kernel '" + std::string(name) + "' (known: auto, scalar, vector, ell)");
}

std::string real_build_options(ElementType type) {
  return type == ElementType::f64 ? "-D REAL=double -D REAL_IS_DOUBLE" : "-D REAL=float";
}

void set_real_arg(::cl::Kernel& kernel, cl_uint index, ElementType type, double value) {
  if (type == ElementType::f64)
    kernel.setArg(index, static_cast<cl_double>(value));
  else
    kernel.setArg(index, static_cast<cl_float>(value));
}

std::size_t floor_power_of_two(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

::cl::Buffer make_vector(const cl::Env& env, ElementType type, std::size_t n, cl_mem_flags flags) {
  const std::size_t bytes = std::max<std::size_t>(1, n) * reduction::element_size(type);
  return cl::checked("allocating a vector of " + std::to_string(n) + " elements on " + env.info().name,
                     [&] { return ::cl::Buffer(env.context(), flags, bytes); });
}

// ---- Spmv -----------------------------------------------------------------------------

Spmv::Spmv(const cl::Env& env, const DeviceCsrMatrix& a, SpmvKernel kernel, unsigned vector_size)
    : env_(env), a_(a), kernel_(kernel) {
  if (a.type() == ElementType::f64 && !env.info().fp64)
    throw std::invalid_argument("double precision needs a device with fp64; " + env.info().name + " has none");
  // The vector kernel's tree needs a power-of-two group the device accepts.
  wg_ = std::min(spmv_group, floor_power_of_two(env.info().max_work_group_size));
  const std::string options = real_build_options(a.type()) + " -D WG_SIZE=" + std::to_string(wg_);
  if (kernel_ == SpmvKernel::automatic) kernel_ = choose_spmv_kernel(a);
  if (kernel_ == SpmvKernel::ell) {
    if (a.max_row_length() <= 0 && a.nnz() > 0)
      throw std::invalid_argument("the ELL SpMV needs the longest row length, unknown for a matrix on wrapped buffers");
    build_ell(options);
    spmv_ = env.kernel("spmv_ell.cl", "spmv_ell", options);
  } else if (kernel_ == SpmvKernel::vector) {
    if (vector_size == 0) {
      std::size_t v = 2;
      while (v < 32 && double(v) < a.mean_row_length()) v *= 2;
      vector_size = static_cast<unsigned>(std::min(v, wg_));
    }
    if (vector_size == 0 || (vector_size & (vector_size - 1)) != 0 || vector_size > wg_)
      throw std::invalid_argument("SpMV vector size must be a power of two <= " + std::to_string(wg_) + ", got " +
                                  std::to_string(vector_size));
    vector_size_ = vector_size;
    spmv_ = env.kernel("spmv_csr.cl", "spmv_csr_vector", options);
  } else {
    vector_size_ = 1;
    spmv_ = env.kernel("spmv_csr.cl", "spmv_csr_scalar", options);
  }
  inv_diag_ = env.kernel("spmv_csr.cl", "csr_inverse_diagonal", options);
  if (env.info().fp64) residual_ = env.kernel("spmv_csr.cl", "csr_residual_f64", options);
}

SpmvKernel choose_spmv_kernel(const DeviceCsrMatrix& a) {
  const double mean = a.mean_row_length();
  const std::int32_t longest = a.max_row_length();
  // Rows about equally long (padding under 25%, short rows): ELL's coalesced reads win.
  if (longest > 0 && longest <= 32 && double(longest) <= 1.25 * mean) return SpmvKernel::ell;
  return mean >= spmv_vector_threshold ? SpmvKernel::vector : SpmvKernel::scalar;
}

void Spmv::build_ell(const std::string& options) {
  const std::size_t rows = std::size_t(a_.rows());
  ell_width_ = static_cast<unsigned>(std::max<std::int32_t>(a_.max_row_length(), 0));
  const std::uint64_t slots = std::uint64_t(rows) * ell_width_;
  const std::uint64_t bytes = slots * (sizeof(std::int32_t) + reduction::element_size(a_.type()));
  check_device_memory(env_.info(), a_.bytes() + bytes, slots * reduction::element_size(a_.type()),
                      "ELL copy of the matrix (" + std::to_string(bytes) + " bytes)");
  const std::size_t count = std::max<std::size_t>(1, slots);
  ell_col_ = cl::checked("allocating ELL columns", [&] {
    return ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, count * sizeof(std::int32_t));
  });
  ell_val_ = make_vector(env_, a_.type(), count);
  ::cl::Kernel convert = env_.kernel("spmv_ell.cl", "csr_to_ell", options);
  convert.setArg(0, as_count(rows));
  convert.setArg(1, static_cast<cl_uint>(ell_width_));
  convert.setArg(2, a_.row_ptr());
  convert.setArg(3, a_.col_idx());
  convert.setArg(4, a_.values());
  convert.setArg(5, ell_col_);
  convert.setArg(6, ell_val_);
  solver::enqueue(env_, convert, "csr_to_ell", rows, std::min(spmv_group, kernel_max_group(env_, convert)),
                  groups_per_unit * env_.info().compute_units);
}

void Spmv::enqueue(const ::cl::Buffer& x, ::cl::Buffer& y) {
  const cl_uint rows = as_count(std::size_t(a_.rows()));
  const std::size_t max_groups = groups_per_unit * env_.info().compute_units;
  cl_uint arg = 0;
  spmv_.setArg(arg++, rows);
  if (kernel_ == SpmvKernel::ell) {
    spmv_.setArg(arg++, static_cast<cl_uint>(ell_width_));
    spmv_.setArg(arg++, ell_col_);
    spmv_.setArg(arg++, ell_val_);
    spmv_.setArg(arg++, x);
    spmv_.setArg(arg++, y);
    solver::enqueue(env_, spmv_, "spmv_ell", rows, std::min(spmv_group, kernel_max_group(env_, spmv_)), max_groups);
    return;
  }
  if (kernel_ == SpmvKernel::vector) {
    spmv_.setArg(arg++, static_cast<cl_uint>(vector_size_));
    const std::size_t rows_per_group = wg_ / vector_size_;
    const std::size_t groups = std::min((std::size_t(rows) + rows_per_group - 1) / rows_per_group, max_groups);
    spmv_.setArg(arg++, a_.row_ptr());
    spmv_.setArg(arg++, a_.col_idx());
    spmv_.setArg(arg++, a_.values());
    spmv_.setArg(arg++, x);
    spmv_.setArg(arg++, y);
    // groups * wg work-items: enqueue() derives groups from n, so pass n = groups * wg.
    solver::enqueue(env_, spmv_, "spmv_csr_vector", groups * wg_, wg_, max_groups);
    return;
  }
  spmv_.setArg(arg++, a_.row_ptr());
  spmv_.setArg(arg++, a_.col_idx());
  spmv_.setArg(arg++, a_.values());
  spmv_.setArg(arg++, x);
  spmv_.setArg(arg++, y);
  const std::size_t wg = std::min(spmv_group, kernel_max_group(env_, spmv_));
  solver::enqueue(env_, spmv_, "spmv_csr_scalar", rows, wg, max_groups);
}

void Spmv::inverse_diagonal(::cl::Buffer& inv_diag) {
  const cl_uint rows = as_count(std::size_t(a_.rows()));
  inv_diag_.setArg(0, rows);
  inv_diag_.setArg(1, a_.row_ptr());
  inv_diag_.setArg(2, a_.col_idx());
  inv_diag_.setArg(3, a_.values());
  inv_diag_.setArg(4, inv_diag);
  const std::size_t wg = std::min(spmv_group, kernel_max_group(env_, inv_diag_));
  solver::enqueue(env_, inv_diag_, "csr_inverse_diagonal", rows, wg, groups_per_unit * env_.info().compute_units);
}

void Spmv::residual_f64(const ::cl::Buffer& x, const ::cl::Buffer& b, ::cl::Buffer& r) {
  if (!env_.info().fp64) throw std::logic_error("csr_residual_f64 needs a device with fp64");
  const cl_uint rows = as_count(std::size_t(a_.rows()));
  residual_.setArg(0, rows);
  residual_.setArg(1, a_.row_ptr());
  residual_.setArg(2, a_.col_idx());
  residual_.setArg(3, a_.values());
  residual_.setArg(4, x);
  residual_.setArg(5, b);
  residual_.setArg(6, r);
  const std::size_t wg = std::min(spmv_group, kernel_max_group(env_, residual_));
  solver::enqueue(env_, residual_, "csr_residual_f64", rows, wg, groups_per_unit * env_.info().compute_units);
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
  solver::enqueue(env_, kernel, name, n, wg, groups_per_unit * env_.info().compute_units);
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
