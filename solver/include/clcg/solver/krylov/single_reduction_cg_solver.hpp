#pragma once
// Chronopoulos-Gear CG (A. T. Chronopoulos and C. W. Gear, "s-step iterative methods for
// symmetric linear systems", J. Comput. Appl. Math. 25, 1989): CG's iterates up to rounding,
// with s = A p kept by recurrence so that both dot products of a step come from ONE pass:
//
//   one kernel   s = w + beta s ; p = u + beta p ; x += alpha p ; r' = r - alpha s ;
//                w' = A u' (u' = M^-1 r', computed where the SpMV needs it) ;
//                partials of gamma = r'.u', delta = w'.u' (and r'.r')   [kernels/cg_fused.cl]
//   one read     the partials -> beta = gamma / gamma_old,
//                alpha = gamma / (delta - beta gamma / alpha_old)
//
// Per step (n rows, 8-byte REAL, no preconditioner): the matrix + 80 n bytes, 1 kernel, 1 host
// sync (fused: 72 n bytes, 2 kernels, 2 syncs). Fastest where the sync costs more than 8 n
// bytes of traffic (on the H100: up to ~10^7 rows). s drifts from A p only by rounding in one
// recurrence, so its iterates stay close to CG's; when the recursive residual meets the
// tolerance the true one is checked as in CgSolver (Settings::confirm_true_residual). A
// p^T A p <= 0 from the recurrences is recomputed directly before it is called a breakdown.
#include <array>
#include <cstddef>
#include <memory>

#include "clcg/solver/krylov/recurrence_cg_solver.hpp"

namespace clcg::solver {

class SingleReductionCgSolver : public RecurrenceCgSolver {
 public:
  // With a preconditioner that is not a diagonal (Chebyshev, IC(0), AMG) a step is two passes
  // around its apply (FusedOps::single_update, spmv_dots), still one host sync.
  SingleReductionCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                          std::shared_ptr<DevicePreconditioner> preconditioner = nullptr);
  SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) override;

 private:
  // One step: alpha, beta as above, from the current buffers into the other ones.
  Dots step(double alpha, double beta, ::cl::Buffer& x);
  // r = b - A x, then a step with alpha = beta = 0 on zeroed s, w and p: r stays, w = A u, s = 0.
  Dots restart(const ::cl::Buffer& b, ::cl::Buffer& x, bool x_is_zero);

  // The general-preconditioner step and restart (r, w, s in [current] only; u = M^-1 r).
  Dots general_step(double alpha, double beta, ::cl::Buffer& x);
  Dots general_restart(const ::cl::Buffer& b, ::cl::Buffer& x, bool x_is_zero);

  std::array<::cl::Buffer, 2> r_, w_, s_;  // [current] and [next]
  std::size_t current_ = 0;
  ::cl::Buffer p_, u_;                     // u_: general preconditioner only
  bool general_ = false;
};

}  // namespace clcg::solver
