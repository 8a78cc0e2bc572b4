#pragma once
// The planner's direct method (krylov/plan.hpp): x from a Cholesky factor of A (sparse on the host,
// or dense on the device), then the true residual ||b - A x|| / ||b|| in double on the host and,
// while it is above the tolerance, a step of iterative refinement (x += A^-1 (b - A x)).
// Reported like a CG solve: `iterations` counts the factor's solves (1, or 2 where rounding left
// the first short).
#include <span>

#include "clcg/solver/direct/cholesky_factor.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// At most this many solves with the factor (the first and the refinements): for an SPD matrix
// one refinement recovers what rounding costs; more means A is not what was factored.
inline constexpr std::size_t max_direct_solves = 3;

// `factor` factorised from `a`; b and x: a.rows entries; x is the guess when use_guess.
// settings: tolerance, max_iterations (0 checks the guess only) and should_stop are honoured.
SolveInfo solve_directly(const CsrView& a, const CholeskyFactor& factor, std::span<const double> b, std::span<double> x,
                         bool use_guess, const Settings& settings);

}  // namespace clcg::solver
