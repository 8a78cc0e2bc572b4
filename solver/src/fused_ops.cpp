#include "clcg/solver/fused_ops.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"

namespace clcg::solver {
namespace {

constexpr std::size_t fused_group = 256;
// Groups per compute unit for the grid-stride fused kernels: enough work-items in flight to
// reach the memory bandwidth on the H100, few enough partials (16 KB a dot) that reading
// them back adds little to the round trip (measured: 32 per unit cost ~18 us more per read).
constexpr std::size_t groups_per_unit = 16;
constexpr unsigned max_dots = 3;

}  // namespace

FusedOps::FusedOps(const cl::Env& env, const Spmv& spmv)
    : env_(env),
      rows_(std::size_t(spmv.matrix().rows())),
      type_(spmv.matrix().type()),
      wg_(std::min(fused_group, floor_power_of_two(env.info().max_work_group_size))),
      vector_size_(spmv.kernel() == SpmvKernel::vector ? spmv.vector_size() : 0),
      a_(spmv.matrix()) {
  // The vector SpMV keeps rows_per_group = wg / vector_size rows per pass.
  vector_size_ = std::min<unsigned>(vector_size_, static_cast<unsigned>(wg_));
  const std::string options = real_build_options(type_) + " -D WG_SIZE=" + std::to_string(wg_);
  ell_ = spmv.kernel() == SpmvKernel::ell;
  if (ell_) ell_col_ = spmv.ell_columns(), ell_val_ = spmv.ell_values(), ell_width_ = spmv.ell_width();
  spmv_step_ = env.kernel("cg_fused.cl", spmv_step_name(), options);
  update_r_ = env.kernel("cg_fused.cl", "update_r_dot", options);
  update_rz_ = env.kernel("cg_fused.cl", "update_rz_dot", options);
  pipelined_ = env.kernel("cg_fused.cl", "pipelined_update", options);
  pipelined_jacobi_ = env.kernel("cg_fused.cl", "pipelined_update_jacobi", options);
  const std::size_t capacity = max_dots * std::max<std::size_t>(1, groups_per_unit * env.info().compute_units);
  partials_ = make_vector(env, type_, capacity);
  host_ = cl::PinnedBuffer(env, capacity * reduction::element_size(type_));
}

std::size_t FusedOps::vector_groups() const {
  const std::size_t cap = groups_per_unit * env_.info().compute_units;
  return std::max<std::size_t>(1, std::min((rows_ + wg_ - 1) / wg_, cap));
}

void FusedOps::launch(::cl::Kernel& kernel, const char* name, std::size_t groups, unsigned dots) {
  last_groups_ = groups;
  last_dots_ = dots;
  const auto task = [&] {
    return std::string(name) + " n=" + std::to_string(rows_) + " wg=" + std::to_string(wg_) +
           " groups=" + std::to_string(groups) + " on " + env_.info().name;
  };
  cl::checked(task, [&] {
    env_.queue().enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(groups * wg_), ::cl::NDRange(wg_));
  });
}

const char* FusedOps::spmv_step_name() const noexcept {
  return ell_ ? "spmv_ell_step" : vector_size_ ? "spmv_vector_step" : "spmv_scalar_step";
}

void FusedOps::spmv_step(double beta, double alpha_x, const StepVectors& v) {
  cl_uint arg = 0;
  ::cl::Kernel& k = spmv_step_;
  k.setArg(arg++, static_cast<cl_uint>(rows_));
  std::size_t groups = vector_groups();
  if (ell_) {
    k.setArg(arg++, static_cast<cl_uint>(ell_width_));
  } else if (vector_size_) {
    k.setArg(arg++, static_cast<cl_uint>(vector_size_));
    const std::size_t rows_per_group = wg_ / vector_size_;
    groups = std::max<std::size_t>(
        1, std::min((rows_ + rows_per_group - 1) / rows_per_group, groups_per_unit * env_.info().compute_units));
  }
  set_real_arg(k, arg++, type_, beta);
  set_real_arg(k, arg++, type_, alpha_x);
  if (ell_) {
    k.setArg(arg++, ell_col_);
    k.setArg(arg++, ell_val_);
  } else {
    k.setArg(arg++, a_.row_ptr());
    k.setArg(arg++, a_.col_idx());
    k.setArg(arg++, a_.values());
  }
  for (const ::cl::Buffer* b : {v.z, v.p_old}) k.setArg(arg++, *b);
  for (const ::cl::Buffer* b : {v.p, v.q, v.x}) k.setArg(arg++, *b);
  k.setArg(arg++, partials_);
  launch(k, spmv_step_name(), groups, 1);
}

void FusedOps::update_r(double alpha, const ::cl::Buffer& q, ::cl::Buffer& r) {
  cl_uint arg = 0;
  update_r_.setArg(arg++, static_cast<cl_uint>(rows_));
  set_real_arg(update_r_, arg++, type_, alpha);
  update_r_.setArg(arg++, q);
  update_r_.setArg(arg++, r);
  update_r_.setArg(arg++, partials_);
  launch(update_r_, "update_r_dot", vector_groups(), 1);
}

void FusedOps::update_rz(double alpha, const ::cl::Buffer& q, const ::cl::Buffer& inv_diag, ::cl::Buffer& r,
                         ::cl::Buffer& z) {
  cl_uint arg = 0;
  update_rz_.setArg(arg++, static_cast<cl_uint>(rows_));
  set_real_arg(update_rz_, arg++, type_, alpha);
  for (const ::cl::Buffer* b : {&q, &inv_diag}) update_rz_.setArg(arg++, *b);
  for (::cl::Buffer* b : {&r, &z}) update_rz_.setArg(arg++, *b);
  update_rz_.setArg(arg++, partials_);
  launch(update_rz_, "update_rz_dot", vector_groups(), 2);
}

void FusedOps::pipelined_update(double alpha, double beta, const PipelinedVectors& v) {
  ::cl::Kernel& kernel = v.inv_diag ? pipelined_jacobi_ : pipelined_;
  cl_uint arg = 0;
  kernel.setArg(arg++, static_cast<cl_uint>(rows_));
  set_real_arg(kernel, arg++, type_, alpha);
  set_real_arg(kernel, arg++, type_, beta);
  kernel.setArg(arg++, *v.nv);
  if (v.inv_diag) {
    kernel.setArg(arg++, *v.inv_diag);
    for (const ::cl::Buffer* b : {v.z, v.q, v.s, v.p, v.x, v.r, v.u, v.w, v.m}) kernel.setArg(arg++, *b);
  } else {
    for (const ::cl::Buffer* b : {v.z, v.s, v.p, v.x, v.r, v.w}) kernel.setArg(arg++, *b);
  }
  kernel.setArg(arg++, partials_);
  launch(kernel, v.inv_diag ? "pipelined_update_jacobi" : "pipelined_update", vector_groups(), v.inv_diag ? 3 : 2);
}

void FusedOps::read_async() {
  const std::size_t bytes = last_dots_ * last_groups_ * reduction::element_size(type_);
  cl::checked("reading fused dot partials", [&] {
    env_.queue().enqueueReadBuffer(partials_, CL_FALSE, 0, bytes, host_.data(), nullptr, &read_done_);
  });
}

std::vector<double> FusedOps::wait() {
  cl::checked("waiting for fused dot partials", [&] { read_done_.wait(); });
  return finish();
}

std::vector<double> FusedOps::read() {
  // A non-blocking read and finish(): on the H100 1-2 us sooner than a blocking read.
  const std::size_t bytes = last_dots_ * last_groups_ * reduction::element_size(type_);
  cl::checked("reading fused dot partials", [&] {
    env_.queue().enqueueReadBuffer(partials_, CL_FALSE, 0, bytes, host_.data());
    env_.queue().finish();
  });
  return finish();
}

std::vector<double> FusedOps::finish() const {
  std::vector<double> dots(last_dots_);
  std::vector<double> values(last_groups_);
  const std::size_t size = reduction::element_size(type_);
  for (unsigned k = 0; k < last_dots_; ++k) {
    for (std::size_t g = 0; g < last_groups_; ++g) {
      const unsigned char* at = host_.data() + (k * last_groups_ + g) * size;
      if (type_ == ElementType::f64) {
        std::memcpy(&values[g], at, sizeof(double));
      } else {
        float f;
        std::memcpy(&f, at, sizeof(float));
        values[g] = f;
      }
    }
    dots[k] = reduction::finish_partials(reduction::Op::sum, values, {}).value;
  }
  return dots;
}

}  // namespace clcg::solver
