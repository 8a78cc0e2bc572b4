#pragma once
// The iteration shared by the CG variants that keep their dot products by recurrence and
// need ONE reduction a step (pipelined: Ghysels-Vanroose; single: Chronopoulos-Gear). Each
// step's reduction gives gamma = r.u, delta = w.u (w = A u) and r.r; then
//   beta = gamma / gamma_old,  p^T A p = delta - beta gamma / alpha_old,  alpha = gamma / p^T A p.
// The variant supplies the device work; this file owns the stopping rule, the checks and the
// wording, which are the same as CgSolver's.
#include <cstddef>
#include <functional>

#include "clcg/solver/conjugate_gradient.hpp"

namespace clcg::solver::detail {

struct RecurrenceDots {
  double gamma = 0;  // r.u (r.r without a preconditioner)
  double delta = 0;  // w.u
  double rr = 0;     // r.r, for the stopping rule
};

struct RecurrenceVariant {
  // r = b - A x (x = 0 when x_is_zero) and the vectors the next step needs, with p = 0 (the
  // next step takes beta = 0); returns their dots.
  std::function<RecurrenceDots(bool x_is_zero)> restart;
  // One step with these alpha and beta; returns the new dots (the step's host sync).
  std::function<RecurrenceDots(double alpha, double beta)> step;
  // p'^T A p' for the next direction p' = u + beta p, computed directly: a p^T A p <= 0 seen
  // through the recurrences is checked this way before it is called a breakdown.
  std::function<double(double beta)> direct_curvature;
  // Optional: recompute the recurred vectors from x and p, keeping the direction (residual
  // replacement); used every replacement_period steps and once when the direct curvature
  // is positive but the recurrences said otherwise.
  std::function<RecurrenceDots()> replace;
  std::size_t replacement_period = 0;  // 0: never
};

struct RecurrenceContext {
  const cl::Env& env;
  Settings& settings;
  reduction::ElementType type;
  std::size_t rows;
  reduction::Reducer& sumsq;
  VectorOps& ops;
  TrueResidual& true_residual;
};

SolveInfo run_recurrence_cg(const RecurrenceContext& context, const RecurrenceVariant& variant, const ::cl::Buffer& b,
                            ::cl::Buffer& x, bool use_guess, bool true_residual);

}  // namespace clcg::solver::detail
