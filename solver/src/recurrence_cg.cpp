#include "recurrence_cg.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "cg_common.hpp"

namespace clcg::solver::detail {

SolveInfo run_recurrence_cg(const RecurrenceContext& context, const RecurrenceVariant& variant, const ::cl::Buffer& b,
                            ::cl::Buffer& x, bool use_guess, bool true_residual) {
  const auto start = Clock::now();
  const Settings& settings = context.settings;
  const std::size_t n = context.rows, max_iter = settings.iteration_limit(n);
  const bool jacobi = settings.preconditioner == Preconditioner::jacobi;
  SolveInfo info;
  auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    context.env.queue().finish();
    info.seconds = seconds_since(start);
    return info;
  };
  const double bb = n == 0 ? 0.0 : context.sumsq.run(b, 0, n).value;  // ||b||^2
  if (!std::isfinite(bb)) return finish(Status::non_finite, "the right-hand side b contains NaN or Inf");
  if (bb == 0) {
    context.ops.fill(n, 0.0, x);
    return finish(Status::converged, "b = 0, so x = 0");
  }
  const double threshold = stopping_threshold(settings.tolerance, bb);
  if (!use_guess) context.ops.fill(n, 0.0, x);
  RecurrenceDots d = variant.restart(!use_guess);
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
      confirmed = context.true_residual.relative(b, x, bb);
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
    if (jacobi && d.gamma <= 0) {
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
    message = stalled_message(info.iterations, confirmed, settings.tolerance, replacements, context.type);
  } else if (status == Status::max_iterations && d.rr <= threshold) {
    status = Status::converged;
    message = "converged in " + std::to_string(info.iterations) + " iterations";
  } else if (status == Status::max_iterations) {
    message = not_converged_message(info.iterations, info.recursive_residual, settings.tolerance);
  }
  if (replacements && !stalled) message += replaced_note(replacements);
  if (true_residual)
    info.true_residual = std::isnan(confirmed) ? context.true_residual.relative(b, x, bb) : confirmed;
  else
    info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return finish(status, std::move(message));
}

}  // namespace clcg::solver::detail
