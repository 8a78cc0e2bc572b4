#include "clcg/solver/pipelined_conjugate_gradient.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cg_common.hpp"

namespace clcg::solver {
namespace {

using detail::format_double;

std::vector<reduction::MultiDot::Pair> start_pairs(bool jacobi) {
  // Vectors {r, w} without a preconditioner, {r, u, w} with Jacobi.
  if (jacobi) return {{0, 1}, {2, 1}, {0, 0}};  // r.u, w.u, r.r
  return {{0, 0}, {1, 0}};                       // r.r, w.r
}

}  // namespace

PipelinedCgSolver::PipelinedCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings)
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
      start_dots_(env, a.type(), start_pairs(jacobi_), settings.reduction),
      true_residual_(env, spmv_, settings.reduction) {
  const std::uint64_t vectors = std::uint64_t(jacobi_ ? 10 : 6) * n_ * reduction::element_size(a.type());
  check_device_memory(env.info(), a.bytes() + vectors, std::uint64_t(n_) * reduction::element_size(a.type()),
                      "pipelined CG solve (matrix " + std::to_string(a.bytes()) + " bytes + work vectors " +
                          std::to_string(vectors) + " bytes)");
  for (::cl::Buffer* v : {&r_, &w_, &nv_, &z_, &s_, &p_}) *v = make_vector(env, a.type(), n_);
  if (jacobi_) {
    for (::cl::Buffer* v : {&u_, &m_, &q_, &inv_diag_}) *v = make_vector(env, a.type(), n_);
    spmv_.inverse_diagonal(inv_diag_);
  }
}

FusedOps::PipelinedVectors PipelinedCgSolver::vectors(::cl::Buffer& x) {
  // Without a preconditioner u = r, q = s and m = w: the kernel takes only the real ones.
  if (!jacobi_) return {&nv_, &z_, &s_, &s_, &p_, &x, &r_, &r_, &w_, &w_, nullptr};
  return {&nv_, &z_, &q_, &s_, &p_, &x, &r_, &u_, &w_, &m_, &inv_diag_};
}

double PipelinedCgSolver::direct_curvature(double beta) {
  if (!check_p_()) check_p_ = make_vector(env_, a_.type(), n_), check_q_ = make_vector(env_, a_.type(), n_);
  ops_.axpby_to(n_, 1.0, jacobi_ ? u_ : r_, beta, p_, check_p_);  // p' = u + beta p
  spmv_.enqueue(check_p_, check_q_);                              // A p'
  return dot_.run(check_p_, 0, check_q_, 0, n_).value;           // p'^T A p'
}

PipelinedCgSolver::Dots PipelinedCgSolver::recompute(const ::cl::Buffer& b, const ::cl::Buffer& x, bool x_is_zero,
                                                     bool keep_direction) {
  const std::size_t n = n_;
  if (x_is_zero) {
    ops_.copy(n, b, r_);                      // r = b
  } else {
    spmv_.enqueue(x, nv_);                    // nv = A x (nv as scratch)
    ops_.axpby_to(n, 1.0, b, -1.0, nv_, r_);  // r = b - A x
  }
  ::cl::Buffer& u = jacobi_ ? u_ : r_;
  if (jacobi_) ops_.diag_mul(n, inv_diag_, r_, u_);  // u = M^-1 r
  spmv_.enqueue(u, w_);                             // w = A u
  ::cl::Buffer& m = jacobi_ ? m_ : w_;
  if (jacobi_) ops_.diag_mul(n, inv_diag_, w_, m_);  // m = M^-1 w
  if (keep_direction) {
    spmv_.enqueue(p_, s_);                            // s = A p
    ::cl::Buffer& q = jacobi_ ? q_ : s_;
    if (jacobi_) ops_.diag_mul(n, inv_diag_, s_, q_); // q = M^-1 s
    spmv_.enqueue(q, z_);                             // z = A q
  } else {
    // The next step uses beta = 0; zeros keep 0 * (whatever was there) from making NaN.
    for (::cl::Buffer* v : {&z_, &s_, &p_}) ops_.fill(n, 0.0, *v);
    if (jacobi_) ops_.fill(n, 0.0, q_);
  }
  const std::vector<::cl::Buffer> start = jacobi_ ? std::vector<::cl::Buffer>{r_, u_, w_} : std::vector<::cl::Buffer>{r_, w_};
  const std::vector<double> d = start_dots_.run(start, n);
  spmv_.enqueue(m, nv_);                            // nv = A m for the next step
  return jacobi_ ? Dots{d[0], d[1], d[2]} : Dots{d[0], d[1], d[0]};
}

SolveInfo PipelinedCgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
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
  Dots d = recompute(b, x, !use_guess, false);
  detail::StepWatch watch(settings_, std::sqrt(d.rr / bb));  // cancellation, progress, stagnation, divergence

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
      d = recompute(b, x, false, false);
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
    double pq = first ? d.delta : d.delta - beta * d.gamma / alpha;  // p^T A p
    if (!std::isfinite(pq)) {
      status = Status::non_finite, message = "p^T A p is " + format_double(pq) + " at iteration " + std::to_string(k + 1);
      break;
    }
    if (pq <= 0) {
      // Seen through the recurrences only: compute it directly before calling it a breakdown.
      const double direct = first ? pq : direct_curvature(beta);
      if (!(direct > 0)) {
        status = Status::breakdown;
        message = detail::breakdown_message(k + 1, direct);
        break;
      }
      if (replaced_for_curvature != k + 1) {
        replaced_for_curvature = k + 1;
        d = recompute(b, x, false, true);  // the recurrences had drifted: replace them
        continue;
      }
      pq = direct;  // freshly replaced and still not positive: take the direct value (no endless replacing)
    }
    alpha = d.gamma / pq;                                       // alpha = gamma / p^T A p
    gamma_old = d.gamma;
    first = false;
    fused_.pipelined_update(alpha, beta, vectors(x));           // z q s p x r u w (m); dot partials
    fused_.read_async();                                        // the one host sync of the step ...
    spmv_.enqueue(jacobi_ ? m_ : w_, nv_);                      // ... overlaps nv = A m
    const std::vector<double> next = fused_.wait();
    d = jacobi_ ? Dots{next[0], next[1], next[2]} : Dots{next[0], next[1], next[0]};
    info.iterations = ++k;
    if (k % replacement_period == 0) d = recompute(b, x, false, true);  // residual replacement
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
