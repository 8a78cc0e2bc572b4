#pragma once
// The two-sync CG variants, textbook and fused, with every vector resident on the device.
// Each step sets kernel arguments and enqueues kernels (SpMV, updates, p = z + beta p) and
// gets its dot products from clcg::reduction (textbook) or from the fused passes' partials,
// reading back only per-group partials, never a vector.
//
// Per step (n rows, nnz nonzeros, s = sizeof(REAL), plain CG, textbook):
//   q = A p            nnz (s + 4) + (n + 1) 4 + 2 n s bytes   (x gathers counted once)
//   p.q                2 n s                                    host sync 1 (partials)
//   x += a p, r -= a q 5 n s
//   r.r                n s                                      host sync 2 (partials)
//   p = r + b p        3 n s
// fused: 72 n bytes + the matrix in two passes (docs/ARCHITECTURE.md). Jacobi adds
// z = r / diag(A) to the update and reads r.z with r.r.
#include <cstddef>
#include <memory>
#include <optional>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/fused_ops.hpp"
#include "clcg/solver/krylov/true_residual.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

class CgSolver : public CgMethod {
 public:
  // `preconditioner`: M set up for `a`; null builds the one settings.preconditioner names.
  CgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
           std::shared_ptr<DevicePreconditioner> preconditioner = nullptr);

  SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) override;

  const Settings& settings() const noexcept { return settings_; }
  Settings& settings() noexcept override { return settings_; }
  std::size_t rows() const noexcept { return n_; }
  const Spmv& spmv() const noexcept { return spmv_; }
  const DevicePreconditioner* preconditioner() const noexcept override { return precond_.get(); }

 private:
  struct Dots {
    double rr = 0;  // r.r
    double rz = 0;  // r.z (= r.r without a preconditioner)
  };
  Dots residual_dots();
  ::cl::Buffer& direction_source() noexcept { return z_() ? z_ : r_; }  // z = M^-1 r, or r itself
  // p = z + beta p; q = A p; returns p.q. (fused: also the x update deferred from the last step)
  double direction_and_spmv(double beta, ::cl::Buffer& x);
  // x += alpha p (fused: deferred to the next pass 1); r -= alpha q (z = M^-1 r); r.r, r.z
  Dots update(double alpha, ::cl::Buffer& x);
  void settle_x(::cl::Buffer& x);  // applies a deferred x update; x is then the current iterate

  cl::Env env_;
  DeviceCsrMatrix a_;
  Settings settings_;
  std::size_t n_;
  Spmv spmv_;
  VectorOps ops_;
  reduction::Reducer dot_;    // p.q
  reduction::Reducer sumsq_;  // r.r, b.b
  std::optional<reduction::MultiDot> rr_rz_;  // (r.r, r.z) in one pass, Jacobi only
  std::shared_ptr<DevicePreconditioner> precond_;  // null: none
  ::cl::Buffer r_, p_, q_, z_, inv_diag_;            // inv_diag_: Jacobi's, fused into the updates
  std::optional<FusedOps> fused_;  // CgVariant::fused
  ::cl::Buffer p_old_;             // fused: the previous direction (pass 1 reads it while writing p)
  double x_owed_ = 0;              // fused: x += x_owed_ p is still to be applied
  TrueResidual true_residual_;
};

}  // namespace clcg::solver
