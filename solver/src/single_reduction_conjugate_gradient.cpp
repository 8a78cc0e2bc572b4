#include "clcg/solver/single_reduction_conjugate_gradient.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cg_common.hpp"

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
  const auto start = detail::Clock::now();
  const std::size_t n = n_, max_iter = settings_.iteration_limit(n);
  SolveInfo info;
  auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    env_.queue().finish();
    info.seconds = detail::seconds_since(start);
    return info;
  };
  const double bb = n == 0 ? 0.0 : sumsq_.run(b, 0, n).value;  // ||b||^2
  if (!std::isfinite(bb)) return finish(Status::non_finite, "the right-hand side b contains NaN or Inf");
  if (bb == 0) {
    ops_.fill(n, 0.0, x);
    return finish(Status::converged, "b = 0, so x = 0");
  }
  const double threshold = detail::stopping_threshold(settings_.tolerance, bb);
  if (!use_guess) ops_.fill(n, 0.0, x);
  Dots d = restart(b, x, !use_guess);
  detail::StepWatch watch(settings_, std::sqrt(d.rr / bb));  // cancellation, progress, stagnation, divergence

  Status status = Status::max_iterations;
  std::string message;
  std::size_t k = 0, replacements = 0;
  bool first = true, stalled = false;
  double alpha = 0, beta = 0, gamma_old = 0;
  double previous_true = std::numeric_limits<double>::infinity();
  double confirmed = std::numeric_limits<double>::quiet_NaN();
  for (;;) {
    info.recursive_residual = std::sqrt(d.rr / bb);
    if (!std::isfinite(d.gamma) || !std::isfinite(d.delta) || !std::isfinite(d.rr)) {
      status = Status::non_finite;
      message = "the residual became NaN or Inf at iteration " + std::to_string(k);
      break;
    }
    if (k > 0 && settings_.record_history)
      info.history.push_back({k, info.recursive_residual, alpha, beta, detail::seconds_since(start)});
    if (d.rr <= threshold) {                                    // ||r|| <= tol ||b||
      if (!settings_.confirm_true_residual) break;
      confirmed = true_residual_.relative(b, x, bb);
      if (confirmed <= settings_.tolerance) break;
      if (replacements == max_residual_replacements || confirmed > 0.5 * previous_true) {
        stalled = true;
        break;
      }
      previous_true = confirmed;                                // residual replacement: restart from x
      ++replacements;
      confirmed = std::numeric_limits<double>::quiet_NaN();
      d = restart(b, x, false);
      first = true;
      continue;
    }
    if (k == max_iter) break;
    if (auto stop = watch.after_step(k, info.recursive_residual)) {  // once per step (skips k = 0 and repeats)
      status = stop->status, message = std::move(stop->message);
      break;
    }
    if (jacobi_ && d.gamma <= 0) {
      status = Status::breakdown;
      message = detail::preconditioner_breakdown_message(k, d.gamma);
      break;
    }
    beta = first ? 0.0 : d.gamma / gamma_old;                  // beta = gamma / gamma_old
    const double pq = first ? d.delta : d.delta - beta * d.gamma / alpha;  // p^T A p
    if (!std::isfinite(pq)) {
      status = Status::non_finite;
      message = "p^T A p is " + detail::format_double(pq) + " at iteration " + std::to_string(k + 1);
      break;
    }
    // Seen through the recurrences only: compute it directly before calling it a breakdown.
    const double curvature = pq > 0 ? pq : direct_curvature(beta);
    if (!(curvature > 0)) {
      status = Status::breakdown;
      message = detail::breakdown_message(k + 1, curvature);
      break;
    }
    alpha = d.gamma / curvature;                                // alpha = gamma / p^T A p
    gamma_old = d.gamma;
    first = false;
    d = step(alpha, beta, x);                                   // s p x r w; dot partials; host sync
    info.iterations = ++k;
  }
  if (stalled) {
    message = detail::stalled_message(info.iterations, confirmed, settings_.tolerance, replacements, a_.type());
  } else if (status == Status::max_iterations && d.rr <= threshold) {
    status = Status::converged;
    message = "converged in " + std::to_string(info.iterations) + " iterations";
  } else if (status == Status::max_iterations) {
    message = detail::not_converged_message(info.iterations, info.recursive_residual, settings_.tolerance);
  }
  if (replacements && !stalled) message += detail::replaced_note(replacements);
  if (true_residual)
    info.true_residual = std::isnan(confirmed) ? true_residual_.relative(b, x, bb) : confirmed;
  else
    info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return finish(status, std::move(message));
}

}  // namespace clcg::solver
