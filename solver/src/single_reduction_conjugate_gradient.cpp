#include "clcg/solver/single_reduction_conjugate_gradient.hpp"

#include <string>
#include <vector>

#include "cg_common.hpp"
#include "recurrence_cg.hpp"

namespace clcg::solver {

SingleReductionCgSolver::SingleReductionCgSolver(const cl::Env& env, const DeviceCsrMatrix& a,
                                                 const Settings& settings)
    : env_(env),
      a_(a),
      settings_(settings),
      n_(std::size_t(a.rows())),
      jacobi_(settings.preconditioner == Preconditioner::jacobi),
      spmv_(env, detail::require_cg_matrix(env, a), settings.spmv, settings.spmv_vector_size),
      ops_(env, a.type()),
      fused_(env, spmv_),
      sumsq_(env, reduction::Op::sumsq, a.type(), settings.reduction),
      dot_(env, reduction::Op::dot, a.type(), settings.reduction),
      true_residual_(env, spmv_, settings.reduction) {
  const std::uint64_t vectors = std::uint64_t(jacobi_ ? 8 : 7) * n_ * reduction::element_size(a.type());
  check_device_memory(env.info(), a.bytes() + vectors, std::uint64_t(n_) * reduction::element_size(a.type()),
                      "single-reduction CG solve (matrix " + std::to_string(a.bytes()) + " bytes + work vectors " +
                          std::to_string(vectors) + " bytes)");
  for (auto* pair : {&r_, &w_, &s_})
    for (::cl::Buffer& v : *pair) v = make_vector(env, a.type(), n_);
  p_ = make_vector(env, a.type(), n_);
  if (jacobi_) {
    inv_diag_ = make_vector(env, a.type(), n_);
    spmv_.inverse_diagonal(inv_diag_);
  }
}

SingleReductionCgSolver::Dots SingleReductionCgSolver::step(double alpha, double beta, ::cl::Buffer& x) {
  const std::size_t now = current_, next = 1 - current_;
  fused_.single_step(alpha, beta, {jacobi_ ? &inv_diag_ : nullptr, &r_[now], &w_[now], &s_[now], &r_[next],
                                   &w_[next], &s_[next], &p_, &x});
  current_ = next;
  const std::vector<double> d = fused_.read();  // the one host sync of the step
  return jacobi_ ? Dots{d[0], d[1], d[2]} : Dots{d[0], d[1], d[0]};
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

double SingleReductionCgSolver::direct_curvature(double beta) {
  if (!check_p_()) check_p_ = make_vector(env_, a_.type(), n_), check_q_ = make_vector(env_, a_.type(), n_);
  const ::cl::Buffer& r = r_[current_];
  if (jacobi_) ops_.diag_mul(n_, inv_diag_, r, check_q_);        // u = M^-1 r (check_q as scratch)
  ops_.axpby_to(n_, 1.0, jacobi_ ? check_q_ : r, beta, p_, check_p_);  // p' = u + beta p
  spmv_.enqueue(check_p_, check_q_);                              // A p'
  return dot_.run(check_p_, 0, check_q_, 0, n_).value;           // p'^T A p'
}

SolveInfo SingleReductionCgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  auto as_dots = [](const Dots& d) { return detail::RecurrenceDots{d.gamma, d.delta, d.rr}; };
  detail::RecurrenceVariant variant;
  variant.restart = [&](bool x_is_zero) { return as_dots(restart(b, x, x_is_zero)); };
  variant.step = [&](double alpha, double beta) { return as_dots(step(alpha, beta, x)); };
  variant.direct_curvature = [&](double beta) { return direct_curvature(beta); };
  const detail::RecurrenceContext context{env_, settings_, a_.type(), n_, sumsq_, ops_, true_residual_};
  return detail::run_recurrence_cg(context, variant, b, x, use_guess, true_residual);
}

}  // namespace clcg::solver
