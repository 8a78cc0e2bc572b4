#include "clcg/solver/krylov/single_reduction_cg_solver.hpp"

#include <string>
#include <vector>

#include "recurrence_variant.hpp"

namespace clcg::solver {

SingleReductionCgSolver::SingleReductionCgSolver(const cl::Env& env, const DeviceCsrMatrix& a,
                                                 const Settings& settings,
                                                 std::shared_ptr<DevicePreconditioner> preconditioner)
    : RecurrenceCgSolver(env, a, settings, std::move(preconditioner), 7, "single-reduction") {  // r, w, s twice; p
  general_ = precond_ && !jacobi_;
  for (auto* pair : {&r_, &w_, &s_})
    for (::cl::Buffer& v : *pair) v = make_work_vector();
  p_ = make_work_vector();
  if (general_) u_ = make_work_vector();
}

SingleReductionCgSolver::Dots SingleReductionCgSolver::general_step(double alpha, double beta, ::cl::Buffer& x) {
  ::cl::Buffer &r = r_[current_], &w = w_[current_], &s = s_[current_];
  fused_.single_update(alpha, beta, {&w, &u_, &s, &p_, &x, &r});  // s, p, x, r
  precond_->apply(r, u_);                                          // u = M^-1 r
  fused_.spmv_dots(u_, r, w);                                      // w = A u; gamma, delta, r.r
  return dots_from(fused_.read());                                 // the one host sync of the step
}

SingleReductionCgSolver::Dots SingleReductionCgSolver::general_restart(const ::cl::Buffer& b, ::cl::Buffer& x,
                                                                       bool x_is_zero) {
  ::cl::Buffer &r = r_[current_], &w = w_[current_];
  if (x_is_zero) {
    ops_.copy(n_, b, r);                          // r = b
  } else {
    spmv_.enqueue(x, w);                          // A x (w as scratch)
    ops_.axpby_to(n_, 1.0, b, -1.0, w, r);        // r = b - A x
  }
  for (::cl::Buffer* v : {&s_[current_], &p_}) ops_.fill(n_, 0.0, *v);  // the next step takes beta = 0
  precond_->apply(r, u_);                         // u = M^-1 r
  fused_.spmv_dots(u_, r, w);                     // w = A u; gamma, delta, r.r
  return dots_from(fused_.read());
}

SingleReductionCgSolver::Dots SingleReductionCgSolver::step(double alpha, double beta, ::cl::Buffer& x) {
  const std::size_t now = current_, next = 1 - current_;
  fused_.single_step(alpha, beta, {jacobi_ ? &inv_diag_ : nullptr, &r_[now], &w_[now], &s_[now], &r_[next],
                                   &w_[next], &s_[next], &p_, &x});
  current_ = next;
  const std::vector<double> d = fused_.read();  // the one host sync of the step
  return dots_from(d);
}

SingleReductionCgSolver::Dots SingleReductionCgSolver::restart(const ::cl::Buffer& b, ::cl::Buffer& x,
                                                               bool x_is_zero) {
  ::cl::Buffer& r = r_[current_];
  if (x_is_zero) {
    ops_.copy(n_, b, r);                          // r = b
  } else {
    ::cl::Buffer& ax = w_[current_];              // scratch, zeroed below
    spmv_.enqueue(x, ax);                         // A x
    ops_.axpby_to(n_, 1.0, b, -1.0, ax, r);       // r = b - A x
  }
  // Zeros keep 0 * (whatever was there) from making NaN in the alpha = beta = 0 step.
  for (::cl::Buffer* v : {&w_[current_], &s_[current_], &p_}) ops_.fill(n_, 0.0, *v);
  return step(0.0, 0.0, x);                       // r, w = A M^-1 r, s = 0; gamma, delta (, r.r)
}

SolveInfo SingleReductionCgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  detail::RecurrenceVariant variant;
  if (general_) {
    variant.restart = [&](bool x_is_zero) { return general_restart(b, x, x_is_zero); };
    variant.step = [&](double alpha, double beta) { return general_step(alpha, beta, x); };
    variant.direct_curvature = [&](double beta) { return direct_curvature(r_[current_], &u_, p_, beta); };
  } else {
    variant.restart = [&](bool x_is_zero) { return restart(b, x, x_is_zero); };
    variant.step = [&](double alpha, double beta) { return step(alpha, beta, x); };
    variant.direct_curvature = [&](double beta) { return direct_curvature(r_[current_], nullptr, p_, beta); };
  }
  return iterate(variant, b, x, use_guess, true_residual);
}

}  // namespace clcg::solver
