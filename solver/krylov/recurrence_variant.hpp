#pragma once
// A one-reduction CG variant's device work, as RecurrenceCgSolver::iterate runs it.
#include <cstddef>
#include <functional>

#include "clcg/solver/krylov/recurrence_cg_solver.hpp"

namespace clcg::solver::detail {

struct RecurrenceVariant {
  using Dots = RecurrenceCgSolver::Dots;
  // r = b - A x (x = 0 when x_is_zero) and the vectors the next step needs, with p = 0 (the
  // next step takes beta = 0); returns their dots.
  std::function<Dots(bool x_is_zero)> restart;
  // One step with these alpha and beta; returns the new dots (the step's host sync).
  std::function<Dots(double alpha, double beta)> step;
  // p'^T A p' for the next direction p' = u + beta p, computed directly.
  std::function<double(double beta)> direct_curvature;
  // Optional: recompute the recurred vectors from x and p, keeping the direction (residual
  // replacement); used every replacement_period steps and once when the direct curvature
  // is positive but the recurrences said otherwise.
  std::function<Dots()> replace;
  std::size_t replacement_period = 0;  // 0: never
};

}  // namespace clcg::solver::detail
