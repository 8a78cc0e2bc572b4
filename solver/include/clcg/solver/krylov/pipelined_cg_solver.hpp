#pragma once
// Pipelined CG (P. Ghysels and W. Vanroose, "Hiding global synchronization latency in the
// preconditioned conjugate gradient algorithm", Parallel Computing 40, 2014, Algorithm 4):
// the same iterates as CG up to rounding, rearranged so that each step needs ONE reduction,
// and its read-back overlaps the step's SpMV:
//
//   enqueue   fused update of z, q, s, p, x, r, u, w (, m) writing the partials of
//             gamma = r.u, delta = w.u (and r.r)             [one pass, kernels/cg_fused.cl]
//   enqueue   non-blocking read of those partials
//   enqueue   nv = A m                                        [runs while the host waits]
//   wait      the partials -> beta = gamma / gamma_old, alpha = gamma / (delta - beta gamma / alpha_old)
//
// Per step (n rows, nnz nonzeros, 8-byte REAL, no preconditioner): update 13 n s, SpMV
// 12 nnz + 4 (n + 1) + 2 n s; one host sync, hidden behind the SpMV where it is long enough.
// Jacobi adds u, q, m and diag(A) (9 more n s). The recurrences drift from b - A x faster
// than CG's, so every replacement_period steps the recurred vectors are recomputed from x
// and p (r = b - A x, u = M r, w = A u, s = A p, q = M s, z = A q: residual replacement,
// Cools et al. 2018), which keeps the iterates and the attainable accuracy close to CG's.
// A p^T A p <= 0 seen through the recurrences is computed again directly (p' = u + beta p,
// p'^T A p') before it is reported as a breakdown; if the direct value is positive the
// recurrences had drifted and the vectors are replaced. When the recursive residual meets the
// tolerance the true one is checked as in CgSolver (Settings::confirm_true_residual).
#include <cstddef>
#include <memory>

#include "clcg/solver/krylov/recurrence_cg_solver.hpp"

namespace clcg::solver {

class PipelinedCgSolver : public RecurrenceCgSolver {
 public:
  static constexpr std::size_t replacement_period = 50;

  // Takes no preconditioner or Jacobi (std::invalid_argument for any other).
  PipelinedCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                    std::shared_ptr<DevicePreconditioner> preconditioner = nullptr);
  SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) override;

 private:
  // Recomputes r, u, w, m from x; with keep_direction also s, q, z from p (else p = 0, a
  // restart). Returns the dots of the new vectors and enqueues nv = A m.
  Dots recompute(const ::cl::Buffer& b, const ::cl::Buffer& x, bool x_is_zero, bool keep_direction);
  FusedOps::PipelinedVectors vectors(::cl::Buffer& x);

  reduction::MultiDot start_dots_;
  ::cl::Buffer r_, u_, w_, m_, nv_, z_, q_, s_, p_;
};

}  // namespace clcg::solver
