#include "recurrence_variant.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "stopping.hpp"

namespace clcg::solver {

RecurrenceCgSolver::RecurrenceCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                                       std::shared_ptr<DevicePreconditioner> preconditioner, std::size_t work_vectors,
                                       const char* name)
    : env_(env),
      a_(a),
      settings_(settings),
      n_(std::size_t(a.rows())),
      spmv_(solver_spmv(env, detail::require_cg_matrix(env, a), settings, preconditioner.get())),
      ops_(env, a.type()),
      fused_(env, spmv_),
      sumsq_(env, reduction::Op::sumsq, a.type(), settings.reduction),
      dot_(env, reduction::Op::dot, a.type(), settings.reduction),
      true_residual_(env, spmv_, settings.reduction) {
  const std::uint64_t element = reduction::element_size(a.type());
  const std::uint64_t vectors = work_vectors * n_ * element;
  check_device_memory(env.info(), a.bytes() + vectors, n_ * element,
                      std::string(name) + " CG solve (matrix " + std::to_string(a.bytes()) + " bytes + work vectors " +
                          std::to_string(vectors) + " bytes)");
  if (!preconditioner && settings.preconditioner != Preconditioner::none)
    preconditioner = make_preconditioner(env, a, nullptr, settings.preconditioner, settings.precond_options);
  precond_ = std::move(preconditioner);
  jacobi_ = precond_ && precond_->inverse_diagonal();
  if (jacobi_) inv_diag_ = *precond_->inverse_diagonal();
}

::cl::Buffer RecurrenceCgSolver::make_work_vector() const { return make_vector(env_, a_.type(), n_); }

double RecurrenceCgSolver::direct_curvature(const ::cl::Buffer& r, const ::cl::Buffer* u, const ::cl::Buffer& p,
                                            double beta) {
  if (!check_p_()) check_p_ = make_work_vector(), check_q_ = make_work_vector();
  if (precond_ && !u) precond_->apply(r, check_q_);  // u = M^-1 r (check_q as scratch)
  const ::cl::Buffer& direction_source = !precond_ ? r : u ? *u : check_q_;
  ops_.axpby_to(n_, 1.0, direction_source, beta, p, check_p_);  // p' = u + beta p
  spmv_.enqueue(check_p_, check_q_);                            // A p'
  return dot_.run(check_p_, 0, check_q_, 0, n_).value;         // p'^T A p'
}

SolveInfo RecurrenceCgSolver::iterate(const detail::RecurrenceVariant& variant, const ::cl::Buffer& b, ::cl::Buffer& x,
                                      bool use_guess, bool true_residual) {
  using namespace detail;
  const auto start = Clock::now();
  const Settings& settings = settings_;
  const std::size_t n = n_, max_iter = settings.iteration_limit(n);
  SolveInfo info;
  auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    env_.queue().finish();
    info.seconds = seconds_since(start);
    return info;
  };
  const double bb = n == 0 ? 0.0 : sumsq_.run(b, 0, n).value;  // ||b||^2
  if (!std::isfinite(bb)) return finish(Status::non_finite, "the right-hand side b contains NaN or Inf");
  if (bb == 0) {
    ops_.fill(n, 0.0, x);
    return finish(Status::converged, "b = 0, so x = 0");
  }
  const double threshold = stopping_threshold(settings.tolerance, bb);
  if (!use_guess) ops_.fill(n, 0.0, x);
  Dots d = variant.restart(!use_guess);
  StepWatch watch(settings, std::sqrt(d.rr / bb));  // cancellation, progress, stagnation, divergence

  Status status = Status::max_iterations;
  std::string message;
  std::size_t k = 0, replacements = 0;
  std::size_t replaced_for_curvature = 0;  // the step whose p^T A p check last replaced the recurrences
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
    if (k > 0 && settings.record_history)
      info.history.push_back({k, info.recursive_residual, alpha, beta, seconds_since(start)});
    if (d.rr <= threshold) {                                    // ||r|| <= tol ||b||
      if (!settings.confirm_true_residual) break;
      confirmed = true_residual_.relative(b, x, bb);
      if (confirmed <= settings.tolerance) break;
      if (replacements == max_residual_replacements || confirmed > 0.5 * previous_true) {
        stalled = true;
        break;
      }
      previous_true = confirmed;                                // residual replacement: restart from x
      ++replacements;
      confirmed = std::numeric_limits<double>::quiet_NaN();
      d = variant.restart(false);
      first = true;
      continue;
    }
    if (k == max_iter) break;
    if (auto stop = watch.after_step(k, info.recursive_residual)) {  // once per step (skips k = 0 and repeats)
      status = stop->status, message = std::move(stop->message);
      break;
    }
    if (precond_ && d.gamma <= 0) {
      status = Status::breakdown;
      message = preconditioner_breakdown_message(k, d.gamma);
      break;
    }
    beta = first ? 0.0 : d.gamma / gamma_old;                  // beta = gamma / gamma_old
    double pq = first ? d.delta : d.delta - beta * d.gamma / alpha;  // p^T A p
    if (!std::isfinite(pq)) {
      status = Status::non_finite, message = "p^T A p is " + format_double(pq) + " at iteration " + std::to_string(k + 1);
      break;
    }
    if (pq <= 0) {
      const double direct = first ? pq : variant.direct_curvature(beta);
      if (!(direct > 0)) {
        status = Status::breakdown;
        message = breakdown_message(k + 1, direct);
        break;
      }
      if (variant.replace && replaced_for_curvature != k + 1) {
        replaced_for_curvature = k + 1;
        d = variant.replace();  // the recurrences had drifted: replace them
        continue;
      }
      pq = direct;  // (freshly replaced and) still not positive: take the direct value
    }
    alpha = d.gamma / pq;                                       // alpha = gamma / p^T A p
    gamma_old = d.gamma;
    first = false;
    d = variant.step(alpha, beta);
    info.iterations = ++k;
    if (variant.replacement_period && k % variant.replacement_period == 0) d = variant.replace();
  }
  if (stalled) {
    message = stalled_message(info.iterations, confirmed, settings.tolerance, replacements, a_.type());
  } else if (status == Status::max_iterations && d.rr <= threshold) {
    status = Status::converged;
    message = "converged in " + std::to_string(info.iterations) + " iterations";
  } else if (status == Status::max_iterations) {
    message = not_converged_message(info.iterations, info.recursive_residual, settings.tolerance);
  }
  if (replacements && !stalled) message += replaced_note(replacements);
  if (true_residual)
    info.true_residual = std::isnan(confirmed) ? true_residual_.relative(b, x, bb) : confirmed;
  else
    info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return finish(status, std::move(message));
}

}  // namespace clcg::solver
