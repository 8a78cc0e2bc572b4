#include "clcg/solver/krylov/fused_ops.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/reduction/reduce.hpp"

namespace clcg::solver {
namespace {

constexpr std::size_t fused_group = 256;
constexpr unsigned max_dots = 3;

}  // namespace

FusedOps::FusedOps(const cl::Env& env, const Spmv& spmv, std::size_t groups_per_unit)
    : env_(env),
      groups_per_unit_(groups_per_unit),
      rows_(std::size_t(spmv.matrix().rows())),
      type_(spmv.matrix().type()),
      // CPU: groups of one work-item on contiguous blocks (clcg/cl/launch_policy.hpp).
      wg_(cl::contiguous_blocks(env.info()) ? 1 : std::min(fused_group, floor_power_of_two(env.info().max_work_group_size))),
      vector_size_(spmv.kernel() == SpmvKernel::vector ? spmv.vector_size() : 0),
      a_(spmv.matrix()) {
  if (groups_per_unit == 0) throw std::invalid_argument("FusedOps: groups per compute unit must be positive");
  // The vector SpMV keeps rows_per_group = wg / vector_size rows per pass.
  vector_size_ = std::min<unsigned>(vector_size_, static_cast<unsigned>(wg_));
  const std::string options = real_build_options(type_) + " -D WG_SIZE=" + std::to_string(wg_);
  ell_ = spmv.kernel() == SpmvKernel::ell;
  if (ell_) ell_col_ = spmv.ell_columns(), ell_val_ = spmv.ell_values(), ell_width_ = spmv.ell_width();
  auto make = [&](const char* name) { return cl::CachedKernel(env.kernel("cg_fused.cl", name, options)); };
  for (cl::CachedKernel& k : spmv_step_) k = make(spmv_step_name());
  for (cl::CachedKernel& k : single_step_) k = make(single_step_name());
  update_r_ = make("update_r_dot");
  update_rz_ = make("update_rz_dot");
  pipelined_ = make("pipelined_update");
  pipelined_jacobi_ = make("pipelined_update_jacobi");
  const std::size_t most_groups = std::max(groups_per_unit_, single_groups_per_unit) * env.info().compute_units;
  const std::size_t capacity = max_dots * std::max<std::size_t>(1, most_groups);
  partials_ = make_vector(env, type_, capacity);
  host_ = cl::PinnedBuffer(env, capacity * reduction::element_size(type_));
}

std::size_t FusedOps::vector_groups() const {
  if (cl::contiguous_blocks(env_.info())) return cl::cpu_blocks(env_.info(), rows_);
  const std::size_t cap = groups_per_unit_ * env_.info().compute_units;
  return std::max<std::size_t>(1, std::min((rows_ + wg_ - 1) / wg_, cap));
}

void FusedOps::launch(cl::CachedKernel& kernel, const char* name, std::size_t groups, unsigned dots) {
  last_groups_ = groups;
  last_dots_ = dots;
  const auto task = [&] {
    return std::string(name) + " n=" + std::to_string(rows_) + " wg=" + std::to_string(wg_) +
           " groups=" + std::to_string(groups) + " on " + env_.info().name;
  };
  cl::checked(task, [&] {
    env_.queue().enqueueNDRangeKernel(kernel.kernel(), ::cl::NullRange, ::cl::NDRange(groups * wg_),
                                      ::cl::NDRange(wg_));
  });
}

const char* FusedOps::spmv_step_name() const noexcept {
  return ell_ ? "spmv_ell_step" : vector_size_ ? "spmv_vector_step" : "spmv_scalar_step";
}

const char* FusedOps::single_step_name() const noexcept {
  return ell_ ? "single_ell_step" : vector_size_ ? "single_vector_step" : "single_scalar_step";
}

cl::CachedKernel& FusedOps::bound_to(std::array<cl::CachedKernel, 2>& pair, cl_uint arg, const ::cl::Buffer& buffer) {
  return pair[1].holds(arg, buffer) ? pair[1] : pair[0];
}

std::size_t FusedOps::set_matrix_args(cl::CachedKernel& k, cl_uint& arg, std::size_t groups_cap) {
  k.set(arg++, static_cast<cl_uint>(rows_));
  if (ell_) {
    k.set(arg++, static_cast<cl_uint>(ell_width_));
    k.set(arg++, ell_col_);
    k.set(arg++, ell_val_);
  } else {
    if (vector_size_) k.set(arg++, static_cast<cl_uint>(vector_size_));
    k.set(arg++, a_.row_ptr());
    k.set(arg++, a_.col_idx());
    k.set(arg++, a_.values());
  }
  if (cl::contiguous_blocks(env_.info())) return cl::cpu_blocks(env_.info(), rows_, rows_ + std::size_t(a_.nnz()));
  const std::size_t rows_per_group = vector_size_ ? wg_ / vector_size_ : wg_;
  return std::clamp<std::size_t>((rows_ + rows_per_group - 1) / rows_per_group, 1, std::max<std::size_t>(groups_cap, 1));
}

cl_uint FusedOps::matrix_arg_count() const noexcept {
  return ell_ ? 4 : vector_size_ ? 5 : 4;  // rows, (width | vector_size), the arrays
}

void FusedOps::set_real(cl::CachedKernel& k, cl_uint index, double value) const {
  if (type_ == ElementType::f64)
    k.set(index, static_cast<cl_double>(value));
  else
    k.set(index, static_cast<cl_float>(value));
}

void FusedOps::spmv_step(double beta, double alpha_x, const StepVectors& v) {
  cl_uint arg = 0;
  // Two kernel objects, one per buffer parity: p and p_old swap every step, and each object
  // keeps its buffers bound, so a step sets only its two scalars.
  cl::CachedKernel& k = bound_to(spmv_step_, matrix_arg_count() + 4, *v.p);  // ..., beta, alpha_x, z, p_old, p
  const std::size_t groups = set_matrix_args(k, arg, groups_per_unit_ * env_.info().compute_units);
  set_real(k, arg++, beta);
  set_real(k, arg++, alpha_x);
  for (const ::cl::Buffer* b : {v.z, v.p_old}) k.set(arg++, *b);
  for (const ::cl::Buffer* b : {v.p, v.q, v.x}) k.set(arg++, *b);
  k.set(arg++, partials_);
  launch(k, spmv_step_name(), groups, 1);
}

void FusedOps::single_step(double alpha, double beta, const SingleVectors& v) {
  cl_uint arg = 0;
  // As spmv_step: one kernel object per parity of the double-buffered r, w, s.
  cl::CachedKernel& k = bound_to(single_step_, matrix_arg_count() + 4, *v.r_old);  // ..., jacobi, inv_diag, r_old
  // More groups than the other fused kernels, but at least 2 rows per work-item (2 row groups
  // per group in the vector layout). Measured on the H100: 3D Poisson 128^3 129 us at 32
  // groups/CU vs 144 at 8; 64^3 14 us at 4 vs 18 at 8.
  const std::size_t rows_per_group = vector_size_ ? wg_ / vector_size_ : wg_;  // per pass
  const std::size_t wanted = (rows_ + 2 * rows_per_group - 1) / (2 * rows_per_group);
  const std::size_t groups = set_matrix_args(k, arg, std::min(wanted, single_groups_per_unit * env_.info().compute_units));
  set_real(k, arg++, alpha);
  set_real(k, arg++, beta);
  k.set(arg++, static_cast<cl_uint>(v.inv_diag != nullptr));
  k.set(arg++, v.inv_diag ? *v.inv_diag : *v.r_old);  // not read without a preconditioner
  for (const ::cl::Buffer* b : {v.r_old, v.w_old, v.s_old}) k.set(arg++, *b);
  for (::cl::Buffer* b : {v.r_new, v.w_new, v.s_new, v.p, v.x}) k.set(arg++, *b);
  k.set(arg++, partials_);
  launch(k, single_step_name(), groups, v.inv_diag ? 3 : 2);
}

void FusedOps::update_r(double alpha, const ::cl::Buffer& q, ::cl::Buffer& r) {
  cl_uint arg = 0;
  update_r_.set(arg++, static_cast<cl_uint>(rows_));
  set_real(update_r_, arg++, alpha);
  update_r_.set(arg++, q);
  update_r_.set(arg++, r);
  update_r_.set(arg++, partials_);
  launch(update_r_, "update_r_dot", vector_groups(), 1);
}

void FusedOps::update_rz(double alpha, const ::cl::Buffer& q, const ::cl::Buffer& inv_diag, ::cl::Buffer& r,
                         ::cl::Buffer& z) {
  cl_uint arg = 0;
  update_rz_.set(arg++, static_cast<cl_uint>(rows_));
  set_real(update_rz_, arg++, alpha);
  for (const ::cl::Buffer* b : {&q, &inv_diag}) update_rz_.set(arg++, *b);
  for (::cl::Buffer* b : {&r, &z}) update_rz_.set(arg++, *b);
  update_rz_.set(arg++, partials_);
  launch(update_rz_, "update_rz_dot", vector_groups(), 2);
}

void FusedOps::pipelined_update(double alpha, double beta, const PipelinedVectors& v) {
  cl::CachedKernel& kernel = v.inv_diag ? pipelined_jacobi_ : pipelined_;
  cl_uint arg = 0;
  kernel.set(arg++, static_cast<cl_uint>(rows_));
  set_real(kernel, arg++, alpha);
  set_real(kernel, arg++, beta);
  kernel.set(arg++, *v.nv);
  if (v.inv_diag) {
    kernel.set(arg++, *v.inv_diag);
    for (const ::cl::Buffer* b : {v.z, v.q, v.s, v.p, v.x, v.r, v.u, v.w, v.m}) kernel.set(arg++, *b);
  } else {
    for (const ::cl::Buffer* b : {v.z, v.s, v.p, v.x, v.r, v.w}) kernel.set(arg++, *b);
  }
  kernel.set(arg++, partials_);
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

std::vector<double> FusedOps::finish() {
  // Straight from the pinned memory the partials were read into (float partials widened into
  // a kept buffer): no allocation but the result on the step's critical path.
  std::vector<double> dots(last_dots_);
  const std::size_t count = last_dots_ * last_groups_;
  const double* values = reinterpret_cast<const double*>(host_.data());
  if (type_ == ElementType::f32) {
    widened_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      float f;
      std::memcpy(&f, host_.data() + i * sizeof(float), sizeof f);
      widened_[i] = f;
    }
    values = widened_.data();
  }
  for (unsigned k = 0; k < last_dots_; ++k)
    dots[k] = reduction::finish_partials(reduction::Op::sum, {values + k * last_groups_, last_groups_}, {}).value;
  return dots;
}

}  // namespace clcg::solver
