#include "clcg/solver/sparse/spmv.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/solver/sparse/launch.hpp"

namespace clcg::solver {


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





// ---- Spmv -----------------------------------------------------------------------------

Spmv::Spmv(const cl::Env& env, const DeviceCsrMatrix& a, SpmvKernel kernel, unsigned vector_size)
    : env_(env), a_(a), kernel_(kernel) {
  if (a.type() == ElementType::f64 && !env.info().fp64)
    throw std::invalid_argument("double precision needs a device with fp64; " + env.info().name + " has none");
  // The vector kernel's tree needs a power-of-two group the device accepts.
  wg_ = std::min(spmv_group, floor_power_of_two(env.info().max_work_group_size));
  const std::string options = real_build_options(a.type()) + " -D WG_SIZE=" + std::to_string(wg_);
  if (kernel_ == SpmvKernel::automatic) kernel_ = choose_spmv_kernel(a, env.info());
  if (kernel_ == SpmvKernel::ell) {
    if (a.max_row_length() <= 0 && a.nnz() > 0)
      throw std::invalid_argument("the ELL SpMV needs the longest row length, unknown for a matrix on wrapped buffers");
    build_ell(options);
    spmv_ = env.kernel("spmv_ell.cl", "spmv_ell", options);
  } else if (kernel_ == SpmvKernel::vector) {
    if (vector_size == 0) vector_size = static_cast<unsigned>(std::min<std::size_t>(spmv_vector_size(a.mean_row_length()), wg_));
    if (vector_size == 0 || (vector_size & (vector_size - 1)) != 0 || vector_size > wg_)
      throw std::invalid_argument("SpMV vector size must be a power of two <= " + std::to_string(wg_) + ", got " +
                                  std::to_string(vector_size));
    vector_size_ = vector_size;
    spmv_ = env.kernel("spmv_csr.cl", "spmv_csr_vector", options);
  } else {
    vector_size_ = 1;
    spmv_ = env.kernel("spmv_csr.cl", "spmv_csr_scalar", options);
  }
  if (env.info().fp64) residual_ = env.kernel("spmv_csr.cl", "csr_residual_f64", options);
}

SpmvKernel choose_spmv_kernel(const DeviceCsrMatrix& a, const cl::DeviceInfo& device) {
  return choose_spmv_kernel(a.max_row_length(), a.mean_row_length(), device);
}

SpmvKernel choose_spmv_kernel(std::int64_t longest, double mean, const cl::DeviceInfo& device) {
  if (cl::contiguous_blocks(device)) return SpmvKernel::scalar;  // a CPU work-item walks its rows in order
  if (ell_suits(longest, mean)) return SpmvKernel::ell;
  return mean >= spmv_vector_threshold ? SpmvKernel::vector : SpmvKernel::scalar;
}

unsigned spmv_vector_size(double mean) noexcept {
  unsigned v = 2;
  while (v < 32 && 8.0 * double(v) < mean) v *= 2;
  return v;
}

bool ell_suits(std::int64_t longest, double mean) noexcept {
  return longest > 0 && longest <= 64 && double(longest) <= 1.6 * mean;
}

Spmv::Spmv(const cl::Env& env, const DeviceCsrMatrix& shape, ::cl::Buffer columns, ::cl::Buffer values,
           unsigned width)
    : env_(env), a_(shape.shape_only()), kernel_(SpmvKernel::ell), ell_col_(std::move(columns)),
      ell_val_(std::move(values)), ell_width_(width) {
  if (shape.type() == ElementType::f64 && !env.info().fp64)
    throw std::invalid_argument("double precision needs a device with fp64; " + env.info().name + " has none");
  if (std::int64_t(width) < std::int64_t(shape.max_row_length()) || (shape.nnz() > 0 && shape.max_row_length() <= 0))
    throw std::invalid_argument("an ELL copy of width " + std::to_string(width) + " for rows of up to " +
                                std::to_string(shape.max_row_length()) + " entries");
  wg_ = std::min(spmv_group, floor_power_of_two(env.info().max_work_group_size));
  const std::string options = real_build_options(shape.type()) + " -D WG_SIZE=" + std::to_string(wg_);
  convert_ = env_.kernel("spmv_ell.cl", "csr_to_ell", options);  // (update_values refills the values)
  for (cl_uint arg : {2u, 3u, 4u}) convert_.setArg(arg, ell_col_);
  spmv_ = env.kernel("spmv_ell.cl", "spmv_ell", options);
  if (env.info().fp64) residual_ = env.kernel("spmv_csr.cl", "csr_residual_f64", options);
}

void Spmv::build_ell(const std::string& options) {
  const std::size_t rows = std::size_t(a_.rows());
  ell_width_ = static_cast<unsigned>(std::max<std::int32_t>(a_.max_row_length(), 0));
  const std::uint64_t slots = std::uint64_t(rows) * ell_width_;
  const std::uint64_t bytes = slots * (sizeof(std::int32_t) + reduction::element_size(a_.type()));
  check_device_memory(env_.info(), a_.bytes() + bytes, slots * reduction::element_size(a_.type()),
                      "ELL copy of the matrix (" + std::to_string(bytes) + " bytes)");
  ell_col_ = make_index_buffer(env_, std::size_t(slots));
  ell_val_ = make_vector(env_, a_.type(), std::size_t(slots));
  convert_ = env_.kernel("spmv_ell.cl", "csr_to_ell", options);
  fill_ell(true);
}

void Spmv::fill_ell(bool with_columns) {
  const std::size_t rows = std::size_t(a_.rows());
  convert_.setArg(0, as_count(rows));
  convert_.setArg(1, static_cast<cl_uint>(ell_width_));
  convert_.setArg(2, a_.row_ptr());
  convert_.setArg(3, a_.col_idx());
  convert_.setArg(4, a_.values());
  convert_.setArg(5, cl_int(with_columns));
  convert_.setArg(6, ell_col_);
  convert_.setArg(7, ell_val_);
  enqueue_csr_to_ell(env_, convert_, rows);
}

void enqueue_csr_to_ell(const cl::Env& env, ::cl::Kernel& csr_to_ell, std::size_t rows) {
  constexpr std::size_t ell_group = 32;  // spmv_ell.cl's ELL_GROUP
  const std::size_t groups = std::min((rows + ell_group - 1) / ell_group, groups_per_unit * env.info().compute_units);
  if (rows > 0) enqueue_groups(env, csr_to_ell, "csr_to_ell", groups, ell_group);
}

void Spmv::update_values(const DeviceCsrMatrix& a) {
  if (a.rows() != a_.rows() || a.cols() != a_.cols() || a.nnz() != a_.nnz() || a.type() != a_.type())
    throw std::invalid_argument("Spmv::update_values: the matrix has " + std::to_string(a.rows()) + " x " +
                                std::to_string(a.cols()) + " and " + std::to_string(a.nnz()) +
                                " nonzeros (or another type), the SpMV's " + std::to_string(a_.rows()) + " x " +
                                std::to_string(a_.cols()) + " and " + std::to_string(a_.nnz()));
  a_ = a;
  if (kernel_ == SpmvKernel::ell) fill_ell(false);
}

void Spmv::release_csr() {
  if (kernel_ != SpmvKernel::ell) throw std::logic_error("Spmv::release_csr: a CSR kernel reads the CSR arrays");
  a_ = a_.shape_only();
  // (csr_to_ell's arguments pointed at the copy until fill_ell sets them again: OpenCL leaves
  // open whether a kernel's arguments keep their buffers alive)
  for (cl_uint arg : {2u, 3u, 4u}) convert_.setArg(arg, ell_col_);
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
    enqueue_grid_stride(env_, spmv_, "spmv_ell", rows, std::min(spmv_group, kernel_max_group(env_, spmv_)), max_groups);
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
    enqueue_groups(env_, spmv_, "spmv_csr_vector", groups, wg_);
    return;
  }
  spmv_.setArg(arg++, a_.row_ptr());
  spmv_.setArg(arg++, a_.col_idx());
  spmv_.setArg(arg++, a_.values());
  spmv_.setArg(arg++, x);
  spmv_.setArg(arg++, y);
  const std::size_t wg = std::min(spmv_group, kernel_max_group(env_, spmv_));
  enqueue_grid_stride(env_, spmv_, "spmv_csr_scalar", rows, wg, max_groups, std::size_t(a_.nnz()) + rows);
}

void Spmv::residual_f64(const ::cl::Buffer& x, const ::cl::Buffer& b, ::cl::Buffer& r) {
  if (!env_.info().fp64) throw std::logic_error("csr_residual_f64 needs a device with fp64");
  if (!a_.has_arrays()) throw std::logic_error("csr_residual_f64 reads the CSR arrays, released (release_csr)");
  const cl_uint rows = as_count(std::size_t(a_.rows()));
  residual_.setArg(0, rows);
  residual_.setArg(1, a_.row_ptr());
  residual_.setArg(2, a_.col_idx());
  residual_.setArg(3, a_.values());
  residual_.setArg(4, x);
  residual_.setArg(5, b);
  residual_.setArg(6, r);
  const std::size_t wg = std::min(spmv_group, kernel_max_group(env_, residual_));
  enqueue_grid_stride(env_, residual_, "csr_residual_f64", rows, wg, groups_per_unit * env_.info().compute_units,
                      std::size_t(a_.nnz()) + rows);
}

}  // namespace clcg::solver
