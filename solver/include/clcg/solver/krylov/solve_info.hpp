#pragma once
// What a CG solve reports: how it ended and why, how far it got, and optionally how it got
// there. Non-convergence is a status, never an exception.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clcg::solver {

enum class Status {
  converged,       // ||r_k|| <= tol * ||b|| (recursive residual)
  max_iterations,  // the iteration limit was reached first, or (message says so) the true
                   // residual stayed above the tolerance through every residual replacement
  breakdown,       // p^T A p <= 0 (or r^T z <= 0 with a preconditioner): A (or M) is not SPD
  non_finite,      // NaN or Inf appeared in b, a dot product or the residual
  stagnated,       // the residual stopped shrinking (Settings::stagnation_window steps without progress)
  diverged,        // the residual grew beyond Settings::divergence_factor times where it started
  interrupted,     // Settings::should_stop said so (e.g. cg-solve on SIGINT); x is the last iterate
};

// "converged", "max_iterations", "breakdown", "non_finite", "stagnated", "diverged", "interrupted"
std::string_view status_name(Status status) noexcept;

// One CG step k (1-based): the recursive relative residual ||r_k|| / ||b|| after it, the
// step length alpha_k used to reach it, the beta_k that builds p_{k+1} (0 on the last step)
// and the wall time since the solve started.
struct IterationRecord {
  std::size_t iteration = 0;
  double residual = 0;
  double alpha = 0;
  double beta = 0;
  double seconds = 0;
};

struct SolveInfo {
  Status status = Status::converged;
  // Steps performed: SpMV + update pairs (the textbook k). Eigen 3.4's ConjugateGradient
  // reports one less when it converges inside its loop (it breaks before counting).
  std::size_t iterations = 0;
  double recursive_residual = 0;  // ||r_k|| / ||b|| from the recursion r -= alpha q
  double true_residual = 0;       // ||b - A x|| / ||b|| recomputed after the solve, in double
  std::string message;            // one line saying how the solve ended (and why, if it failed)
  double seconds = 0;             // wall time of the solve (device work included)
  std::vector<IterationRecord> history;  // empty unless Settings::record_history

  bool converged() const noexcept { return status == Status::converged; }
};

}  // namespace clcg::solver
