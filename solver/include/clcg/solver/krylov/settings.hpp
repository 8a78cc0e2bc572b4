#pragma once
// How a CG solve runs: the variant that puts the iteration on the device, the stopping rule
// and its safeguards. docs/ARCHITECTURE.md ("The CG variants", "How a solve stops") gives the
// reasons behind each rule; this header gives the contract.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "clcg/cl/device.hpp"
#include "clcg/reduction/op.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

using reduction::ElementType;

// All compute CG's iterates (the same up to rounding) and stop by the same rule.
//   textbook   one kernel per operation; dots through clcg::reduction; 2 host syncs a step
//   fused      two passes at the fused floor (the SpMV builds p and writes p.q partials; the
//              r update writes r.r partials); 2 host syncs a step
//   pipelined  Ghysels-Vanroose: one fused update, its read-back overlapping the SpMV
//   single     Chronopoulos-Gear: one fused kernel and one host sync a step
//   automatic  the one the planner picks for the device and the matrix (krylov/plan.hpp)
enum class CgVariant { textbook, fused, pipelined, single, automatic };
std::string_view cg_variant_name(CgVariant v) noexcept;  // "textbook", ..., "auto"
CgVariant parse_cg_variant(std::string_view name);      // std::invalid_argument listing the names
std::span<const CgVariant> all_cg_variants() noexcept;  // the four that run (not automatic)

struct Settings {
  double tolerance = 1e-8;           // stop when ||r|| <= tolerance * ||b|| (recursive residual)
  std::int64_t max_iterations = -1;  // < 0: 2 * rows (Eigen's default); 0 checks x0 only
  Preconditioner preconditioner = Preconditioner::none;
  PreconditionerOptions precond_options = {};  // degree, sweeps, AMG parameters
  CgVariant variant = CgVariant::fused;  // automatic: the planner's choice (cg-solve's default)
  // Precision of the device matrix and vectors for the host-matrix APIs; the buffer API takes
  // the DeviceCsrMatrix's type and ignores this.
  ElementType precision = ElementType::f64;
  bool record_history = false;  // fill SolveInfo::history (no extra host syncs)
  SpmvKernel spmv = SpmvKernel::automatic;
  unsigned spmv_vector_size = 0;      // 0: from the mean row length
  reduction::Options reduction = {};  // reduction variant and launch shape for the dots
  // When the recursive residual meets the tolerance, check the true residual b - A x on the
  // device and restart from x if rounding let the two drift apart (at most
  // max_residual_replacements times); a true residual that will not follow ends the solve
  // with Status::max_iterations and a message naming the precision floor. Not Eigen's rule:
  // the Eigen facade turns it off.
  bool confirm_true_residual = true;
  // Early stops, checked once a step on the recursive residual (no device work); 0 turns one
  // off. Status::stagnated: no 0.1 % improvement on the best residual for
  // max(stagnation_window, 3k/4) steps. Status::diverged: the residual above
  // divergence_factor * max(||r_0||, ||b||). The Eigen facade turns both off.
  std::size_t stagnation_window = 2000;
  double divergence_factor = 1e8;
  // Called once a step from the thread running solve(): should_stop returning true ends the
  // solve with Status::interrupted (x the last iterate); on_iteration gets the step and its
  // recursive relative residual (keep it fast). Either may be empty.
  std::function<bool()> should_stop;
  std::function<void(std::size_t iteration, double residual)> on_iteration;

  std::size_t iteration_limit(std::size_t rows) const noexcept {
    return max_iterations < 0 ? 2 * rows : static_cast<std::size_t>(max_iterations);
  }
};

inline constexpr std::size_t max_residual_replacements = 10;

}  // namespace clcg::solver
