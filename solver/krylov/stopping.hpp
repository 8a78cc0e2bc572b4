#pragma once
// What the CG variants share besides the device kernels: the stopping threshold, the
// once-per-step watch (cancellation, progress, stagnation, divergence) and the wording of how
// a solve ended, so every variant reports the same way.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "clcg/reduction/op.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/krylov/solve_info.hpp"

namespace clcg::solver::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The matrix every CG variant is built for: square, in a precision the device has. Checked
// before anything is built on the device.
inline const DeviceCsrMatrix& require_cg_matrix(const cl::Env& env, const DeviceCsrMatrix& a) {
  if (a.rows() != a.cols())
    throw std::invalid_argument("CG needs a square matrix, got " + std::to_string(a.rows()) + " x " +
                                std::to_string(a.cols()));
  require_precision(env.info(), a.type());
  return a;
}

inline std::string format_double(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

// Eigen's rule ||r||^2 <= tol^2 ||b||^2, never below the smallest normal number.
inline double stopping_threshold(double tolerance, double bb) {
  return std::max(tolerance * tolerance * bb, std::numeric_limits<double>::min());
}

inline std::string breakdown_message(std::size_t k, double pq) {
  return "matrix (or preconditioner) not positive definite at iteration " + std::to_string(k) +
         ": p^T A p = " + format_double(pq);
}

inline std::string preconditioner_breakdown_message(std::size_t k, double rz) {
  return "preconditioner not positive definite at iteration " + std::to_string(k) + ": r^T M^-1 r = " +
         format_double(rz);
}

inline std::string not_converged_message(std::size_t iterations, double residual, double tolerance) {
  return "not converged after " + std::to_string(iterations) + " iterations (relative residual " +
         format_double(residual) + ", tolerance " + format_double(tolerance) + ")";
}

inline std::string stalled_message(std::size_t iterations, double confirmed, double tolerance, std::size_t replacements,
                                   reduction::ElementType type) {
  return "stopped after " + std::to_string(iterations) + " iterations: the true residual " + format_double(confirmed) +
         " stays above the tolerance " + format_double(tolerance) + " although the recursive one met it " +
         std::to_string(replacements + 1) + (replacements ? " times" : " time") + " (the tolerance is below what " +
         std::string(reduction::type_name(type)) + " reaches on this problem)";
}

inline std::string replaced_note(std::size_t replacements) {
  return " (the recursive residual drifted from the true one; replaced " + std::to_string(replacements) +
         (replacements == 1 ? " time)" : " times)");
}

// The checks every CG loop makes once per step, after the step, on its recursive relative
// residual: the caller's on_iteration and should_stop, then stagnation and divergence as
// Settings defines them (docs/ARCHITECTURE.md, "How a solve stops", gives the reasons). No
// device work, no host sync. Steps must come in increasing order; a step seen again (after a
// residual replacement) and step 0 only check should_stop. Non-finite residuals are left to
// the loops' own checks (they report non_finite).
class StepWatch {
 public:
  static constexpr double improvement = 1e-3;  // "progress" = 0.1 % below the best so far

  struct Stop {
    Status status;
    std::string message;
  };

  StepWatch(const Settings& settings, double initial_residual)
      : settings_(settings),
        divergence_limit_(settings.divergence_factor > 0 ? settings.divergence_factor * std::max(1.0, initial_residual)
                                                         : std::numeric_limits<double>::infinity()),
        best_(initial_residual) {}

  std::optional<Stop> after_step(std::size_t k, double residual) {
    const bool new_step = k > last_k_;
    if (new_step && settings_.on_iteration) settings_.on_iteration(k, residual);
    if (settings_.should_stop && settings_.should_stop())  // on repeats too: a loop that stalls stays stoppable
      return Stop{Status::interrupted, "interrupted at iteration " + std::to_string(k)};
    if (!new_step) return std::nullopt;
    last_k_ = k;
    if (!std::isfinite(residual)) return std::nullopt;
    if (residual > divergence_limit_)
      return Stop{Status::diverged, "diverged at iteration " + std::to_string(k) + ": the relative residual " +
                                        format_double(residual) + " is more than " +
                                        format_double(settings_.divergence_factor) + " times the initial " +
                                        format_double(divergence_limit_ / settings_.divergence_factor)};
    if (residual < best_ * (1 - improvement)) {
      best_ = residual;
      best_k_ = k;
    } else if (settings_.stagnation_window > 0 && k - best_k_ >= std::max(settings_.stagnation_window, k - k / 4)) {
      return Stop{Status::stagnated, "stagnated at iteration " + std::to_string(k) + ": no progress in " +
                                         std::to_string(k - best_k_) + " iterations (relative residual now " +
                                         format_double(residual) + ", best " + format_double(best_) +
                                         (best_k_ ? " at iteration " + std::to_string(best_k_) : " at the start") + ")"};
    }
    return std::nullopt;
  }

 private:
  const Settings& settings_;
  double divergence_limit_;
  double best_;
  std::size_t best_k_ = 0;
  std::size_t last_k_ = 0;
};

}  // namespace clcg::solver::detail
