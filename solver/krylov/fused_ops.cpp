#include "clcg/solver/krylov/fused_ops.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/reduction/reduce.hpp"

namespace clcg::solver {
namespace {

constexpr unsigned max_dots = 3;

}  // namespace

FusedOps::FusedOps(const cl::Env& env, const Spmv& spmv, std::size_t groups_per_unit)
    : env_(env),
      groups_per_unit_(groups_per_unit),
      rows_(std::size_t(spmv.matrix().rows())),
      type_(spmv.matrix().type()),
      layout_(env, spmv),
      wg_(layout_.work_group()) {
  if (groups_per_unit == 0) throw std::invalid_argument("FusedOps: groups per compute unit must be positive");
  const std::string options = layout_.build_options();
  auto make = [&](const std::string& name) { return cl::CachedKernel(env.kernel("cg_fused.cl", name.c_str(), options)); };
  for (cl::CachedKernel& k : spmv_step_) k = make(layout_.kernel_name("spmv_step"));
  for (cl::CachedKernel& k : single_step_) k = make(layout_.kernel_name("single_step"));
  update_r_ = make("update_r_dot");
  update_rz_ = make("update_rz_dot");
  pipelined_ = make("pipelined_update");
  pipelined_jacobi_ = make("pipelined_update_jacobi");
  single_update_ = make("single_update");
  spmv_dots_ = make(layout_.kernel_name("spmv_dots"));
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
  layout_.launch(kernel, name, groups);
}

cl::CachedKernel& FusedOps::bound_to(std::array<cl::CachedKernel, 2>& pair, cl_uint arg, const ::cl::Buffer& buffer) {
  return pair[1].holds(arg, buffer) ? pair[1] : pair[0];
}

void FusedOps::set_real(cl::CachedKernel& k, cl_uint index, double value) const {
  set_real_arg(k, index, type_, value);
}

void FusedOps::spmv_step(double beta, double alpha_x, const StepVectors& v) {
  cl_uint arg = 0;
  // Two kernel objects, one per buffer parity: p and p_old swap every step, and each object
  // keeps its buffers bound, so a step sets only its two scalars.
  cl::CachedKernel& k = bound_to(spmv_step_, layout_.arg_count() + 4, *v.p);  // ..., beta, alpha_x, z, p_old, p
  const std::size_t groups = layout_.set_args(k, arg, groups_per_unit_ * env_.info().compute_units);
  set_real(k, arg++, beta);
  set_real(k, arg++, alpha_x);
  for (const ::cl::Buffer* b : {v.z, v.p_old}) k.set(arg++, *b);
  for (const ::cl::Buffer* b : {v.p, v.q, v.x}) k.set(arg++, *b);
  k.set(arg++, partials_);
  launch(k, "spmv_step", groups, 1);
}

void FusedOps::single_step(double alpha, double beta, const SingleVectors& v) {
  cl_uint arg = 0;
  // As spmv_step: one kernel object per parity of the double-buffered r, w, s.
  cl::CachedKernel& k = bound_to(single_step_, layout_.arg_count() + 4, *v.r_old);  // ..., jacobi, inv_diag, r_old
  // More groups than the other fused kernels, but at least 2 rows per work-item (2 row groups
  // per group in the vector layout). Measured on the H100: 3D Poisson 128^3 129 us at 32
  // groups/CU vs 144 at 8; 64^3 14 us at 4 vs 18 at 8.
  const std::size_t rows_per_group = layout_.rows_per_group();  // per pass
  const std::size_t wanted = (rows_ + 2 * rows_per_group - 1) / (2 * rows_per_group);
  const std::size_t groups = layout_.set_args(k, arg, std::min(wanted, single_groups_per_unit * env_.info().compute_units));
  set_real(k, arg++, alpha);
  set_real(k, arg++, beta);
  k.set(arg++, static_cast<cl_uint>(v.inv_diag != nullptr));
  k.set(arg++, v.inv_diag ? *v.inv_diag : *v.r_old);  // not read without a preconditioner
  for (const ::cl::Buffer* b : {v.r_old, v.w_old, v.s_old}) k.set(arg++, *b);
  for (::cl::Buffer* b : {v.r_new, v.w_new, v.s_new, v.p, v.x}) k.set(arg++, *b);
  k.set(arg++, partials_);
  launch(k, "single_step", groups, v.inv_diag ? 3 : 2);
}

void FusedOps::single_update(double alpha, double beta, const SingleGeneralVectors& v) {
  cl_uint arg = 0;
  single_update_.set(arg++, static_cast<cl_uint>(rows_));
  set_real(single_update_, arg++, alpha);
  set_real(single_update_, arg++, beta);
  for (const ::cl::Buffer* b : {v.w, v.u, v.s, v.p, v.x, v.r}) single_update_.set(arg++, *b);
  layout_.launch(single_update_, "single_update", vector_groups());
}

void FusedOps::spmv_dots(const ::cl::Buffer& u, const ::cl::Buffer& r, ::cl::Buffer& w) {
  cl_uint arg = 0;
  const std::size_t groups = layout_.set_args(spmv_dots_, arg, groups_per_unit_ * env_.info().compute_units);
  spmv_dots_.set(arg++, u);
  spmv_dots_.set(arg++, r);
  spmv_dots_.set(arg++, w);
  spmv_dots_.set(arg++, partials_);
  launch(spmv_dots_, "spmv_dots", groups, 3);
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
  // Straight from the pinned memory the partials were read into: no allocation but the result
  // on the step's critical path.
  std::vector<double> dots(last_dots_);
  reduction::finish_partial_runs(reduction::Op::sum, host_.data(), type_, last_groups_, dots, widened_);
  return dots;
}

}  // namespace clcg::solver
