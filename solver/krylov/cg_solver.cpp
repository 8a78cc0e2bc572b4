#include "clcg/solver/krylov/cg_solver.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "stopping.hpp"

namespace clcg::solver {

using reduction::Op;

namespace {

using detail::Clock;
using detail::format_double;
using detail::seconds_since;

}  // namespace

CgSolver::CgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                   std::shared_ptr<DevicePreconditioner> preconditioner)
    : env_(env),
      a_(a),
      settings_(settings),
      n_(std::size_t(a.rows())),
      spmv_(solver_spmv(env, detail::require_cg_matrix(env, a), settings, preconditioner.get())),
      ops_(env, a.type()),
      dot_(env, Op::dot, a.type(), settings.reduction),
      sumsq_(env, Op::sumsq, a.type(), settings.reduction),
      true_residual_(env, spmv_, settings.reduction) {
  if (settings.variant != CgVariant::textbook && settings.variant != CgVariant::fused)
    throw std::invalid_argument("CgSolver runs the textbook and fused variants; make_cg_solver builds the others");
  if (!preconditioner && settings.preconditioner != Preconditioner::none)
    preconditioner = make_preconditioner(env, spmv_.matrix(), nullptr, settings.preconditioner, settings.precond_options);
  precond_ = std::move(preconditioner);
  const bool jacobi = precond_ && precond_->inverse_diagonal();
  const std::uint64_t vectors = solver_vector_bytes(n_, a.type(), settings.preconditioner, false) +
                                (settings.variant == CgVariant::fused ? std::uint64_t(n_) * reduction::element_size(a.type()) : 0);
  check_device_memory(env.info(), a.bytes() + vectors, std::uint64_t(n_) * reduction::element_size(a.type()),
                      "CG solve (matrix " + std::to_string(a.bytes()) + " bytes + work vectors " +
                          std::to_string(vectors) + " bytes)");
  r_ = make_vector(env, a.type(), n_);
  p_ = make_vector(env, a.type(), n_);
  q_ = make_vector(env, a.type(), n_);
  if (precond_) {
    z_ = make_vector(env, a.type(), n_);
    if (jacobi) inv_diag_ = *precond_->inverse_diagonal();  // fused into the update kernels
    rr_rz_.emplace(env, a.type(), std::vector<reduction::MultiDot::Pair>{{0, 0}, {0, 1}}, settings.reduction);
  }
  if (settings.variant == CgVariant::fused) {
    fused_.emplace(env, spmv_);
    p_old_ = make_vector(env, a.type(), n_);
  }
}

CgSolver::Dots CgSolver::residual_dots() {
  if (!rr_rz_) {
    const double rr = sumsq_.run(r_, 0, n_).value;
    return {rr, rr};
  }
  const ::cl::Buffer vectors[] = {r_, z_};
  const std::vector<double> d = rr_rz_->run(vectors, n_);
  return {d.at(0), d.at(1)};
}

double CgSolver::direction_and_spmv(double beta, ::cl::Buffer& x) {
  ::cl::Buffer& z = direction_source();
  if (fused_) {
    std::swap(p_, p_old_);
    fused_->spmv_step(beta, x_owed_, {&z, &p_old_, &p_, &q_, &x});  // p = z + beta p_old; q = A p; x; p.q
    x_owed_ = 0;
    return fused_->read()[0];
  }
  ops_.xpay(n_, beta, z, p_);                    // p = z + beta p
  spmv_.enqueue(p_, q_);                         // q = A p
  return dot_.run(p_, 0, q_, 0, n_).value;       // p.q
}

CgSolver::Dots CgSolver::update(double alpha, ::cl::Buffer& x) {
  const bool jacobi = inv_diag_() != nullptr;
  if (fused_) {
    x_owed_ = alpha;                             // x += alpha p happens in the next pass 1
    if (!precond_) {
      fused_->update_r(alpha, q_, r_);           // r -= alpha q; r.r partials
      const double rr = fused_->read()[0];
      return {rr, rr};
    }
    if (jacobi) {
      fused_->update_rz(alpha, q_, inv_diag_, r_, z_);  // ... z = M^-1 r; r.r, r.z partials
      const std::vector<double> d = fused_->read();
      return {d[0], d[1]};
    }
    ops_.axpy(n_, -alpha, q_, r_);               // r -= alpha q
  } else if (jacobi) {
    ops_.cg_update_xrz(n_, alpha, p_, q_, inv_diag_, x, r_, z_);  // x += alpha p; r -= alpha q; z = M^-1 r
    return residual_dots();                                        // r.r, r.z
  } else {
    ops_.cg_update_xr(n_, alpha, p_, q_, x, r_);                  // x += alpha p; r -= alpha q
  }
  if (precond_) precond_->apply(r_, z_);                          // z = M^-1 r
  return residual_dots();                                          // r.r (and r.z)
}

void CgSolver::settle_x(::cl::Buffer& x) {
  if (x_owed_ != 0) ops_.axpy(n_, x_owed_, p_, x);  // the same fma as pass 1 would do
  x_owed_ = 0;
}

SolveInfo CgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  const auto start = Clock::now();
  const std::size_t n = n_, max_iter = settings_.iteration_limit(n);
  const bool jacobi = inv_diag_() != nullptr;
  SolveInfo info;
  x_owed_ = 0;
  auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    env_.queue().finish();
    info.seconds = seconds_since(start);
    return info;
  };

  const double bb = n == 0 ? 0.0 : sumsq_.run(b, 0, n).value;  // ||b||^2
  if (!std::isfinite(bb)) return finish(Status::non_finite, "the right-hand side b contains NaN or Inf");
  if (bb == 0) {  // b = 0 -> x = 0 exactly, at 0 iterations
    ops_.fill(n, 0.0, x);
    return finish(Status::converged, "b = 0, so x = 0");
  }
  // Eigen's threshold: ||r||^2 <= tol^2 ||b||^2, but never below the smallest normal number.
  const double threshold = detail::stopping_threshold(settings_.tolerance, bb);
  // r = b - A x (x = x0, or 0); z = M^-1 r. Also how a drifted residual is replaced. The
  // first direction is then p = z + 0 p: p is kept finite (zero at the start) so that it is z exactly.
  auto start_from_x = [&](bool x_is_zero) {
    if (x_is_zero) {
      ops_.copy(n, b, r_);                      // r = b
    } else {
      spmv_.enqueue(x, q_);                     // q = A x
      ops_.axpby_to(n, 1.0, b, -1.0, q_, r_);   // r = b - q
    }
    if (jacobi) ops_.diag_mul(n, inv_diag_, r_, z_);   // z = M^-1 r
    else if (precond_) precond_->apply(r_, z_);
    return residual_dots();                           // rr = r.r, rz = r.z
  };
  if (!use_guess) ops_.fill(n, 0.0, x);  // x0 = 0
  ops_.fill(n, 0.0, p_);
  Dots d = start_from_x(!use_guess);
  info.recursive_residual = std::sqrt(d.rr / bb);
  if (!std::isfinite(d.rr) || !std::isfinite(d.rz))
    return finish(Status::non_finite, "the initial residual contains NaN or Inf");
  detail::StepWatch watch(settings_, info.recursive_residual);  // cancellation, progress, stagnation, divergence

  Status status = Status::max_iterations;
  std::string message;
  std::size_t replacements = 0;
  bool stalled = false;
  double previous_true = std::numeric_limits<double>::infinity();  // at the last replacement
  double confirmed = std::numeric_limits<double>::quiet_NaN();  // true residual of the current x
  double beta = 0;                                      // p = z + beta p; 0 after a (re)start
  for (std::size_t k = 1; d.rr > threshold && k <= max_iter; ++k) {
    const double pq = direction_and_spmv(beta, x);      // p; q = A p; p.q   host sync 1
    if (!std::isfinite(pq)) {
      status = Status::non_finite, message = "p^T A p is " + format_double(pq) + " at iteration " + std::to_string(k);
      break;
    }
    if (pq <= 0) {
      status = Status::breakdown;
      message = detail::breakdown_message(k, pq);
      break;
    }
    const double alpha = d.rz / pq;                     // alpha = r.z / p.Ap
    Dots next = update(alpha, x);                       // x, r (, z); r.r (and r.z)   host sync 2
    info.iterations = k;
    info.recursive_residual = std::sqrt(next.rr / bb);
    if (!std::isfinite(next.rr) || !std::isfinite(next.rz)) {
      status = Status::non_finite, message = "the residual became NaN or Inf at iteration " + std::to_string(k);
      break;
    }
    const bool done = next.rr <= threshold;             // ||r|| <= tol ||b||
    beta = done ? 0.0 : next.rz / d.rz;                 // beta = r'.z' / r.z
    if (settings_.record_history) info.history.push_back({k, info.recursive_residual, alpha, beta, seconds_since(start)});
    if (!done && next.rz <= 0) {
      status = Status::breakdown;
      message = detail::preconditioner_breakdown_message(k, next.rz);
      break;
    }
    if (auto stop = done ? std::nullopt : watch.after_step(k, info.recursive_residual)) {
      status = stop->status, message = std::move(stop->message);
      break;
    }
    if (done && settings_.confirm_true_residual) {
      // Rounding can make the recursive r drift from b - A x: check the true residual, and if
      // it is above the tolerance, restart from x with it (residual replacement).
      settle_x(x);
      confirmed = true_residual_.relative(b, x, bb);
      // No room left, or the last restart did not even halve the true residual: a precision floor.
      if (confirmed > settings_.tolerance &&
          (replacements == max_residual_replacements || confirmed > 0.5 * previous_true)) {
        stalled = true;
        break;
      }
      if (confirmed > settings_.tolerance) {
        previous_true = confirmed;
        ++replacements;
        confirmed = std::numeric_limits<double>::quiet_NaN();
        d = start_from_x(false);                        // r = b - A x; z = M^-1 r
        beta = 0;                                       // p = z
        info.recursive_residual = std::sqrt(d.rr / bb);
        continue;
      }
    }
    d = next;
  }
  settle_x(x);
  if (stalled) {
    message = detail::stalled_message(info.iterations, confirmed, settings_.tolerance, replacements, a_.type());
  } else if (status == Status::max_iterations && d.rr <= threshold) {
    status = Status::converged;
    message = "converged in " + std::to_string(info.iterations) + " iterations";
  } else if (status == Status::max_iterations) {
    message = detail::not_converged_message(info.iterations, info.recursive_residual, settings_.tolerance);
  }
  if (replacements && !stalled)
    message += detail::replaced_note(replacements);
  if (true_residual)
    info.true_residual = std::isnan(confirmed) ? true_residual_.relative(b, x, bb) : confirmed;
  else
    info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return finish(status, std::move(message));
}

}  // namespace clcg::solver
