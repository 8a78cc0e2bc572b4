#pragma once
// What the CG variants with ONE reduction a step share (PipelinedCgSolver: Ghysels-Vanroose;
// SingleReductionCgSolver: Chronopoulos-Gear): the matrix and its SpMV, the fused kernels, the
// reductions, the true residual, Jacobi's diagonal, and the iteration itself (stopping rule,
// checks and wording, the same as CgSolver's; solver/krylov/recurrence_cg_solver.cpp). Each step's
// reduction gives gamma = r.u, delta = w.u (w = A u) and r.r, and then
//   beta = gamma / gamma_old,  p^T A p = delta - beta gamma / alpha_old,  alpha = gamma / p^T A p.
// A variant adds its vectors and its device work.
#include <cstddef>
#include <memory>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/fused_ops.hpp"
#include "clcg/solver/krylov/true_residual.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

namespace detail {
struct RecurrenceVariant;  // a variant's device work, for iterate() (solver/krylov/recurrence_variant.hpp)
}

class RecurrenceCgSolver : public CgMethod {
 public:
  struct Dots {
    double gamma = 0;  // r.u (r.r without a preconditioner)
    double delta = 0;  // w.u
    double rr = 0;     // r.r, for the stopping rule
  };

  Settings& settings() noexcept override { return settings_; }
  const DevicePreconditioner* preconditioner() const noexcept override { return precond_.get(); }

 protected:
  // Checks that the matrix and work_vectors n-vectors fit on the device ("<name> CG solve");
  // `preconditioner`: M set up for `a`, null builds the one settings.preconditioner names.
  RecurrenceCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                     std::shared_ptr<DevicePreconditioner> preconditioner, std::size_t work_vectors, const char* name);

  ::cl::Buffer make_work_vector() const;
  // The dots of a step's reduction, {gamma, delta} or with a preconditioner {gamma, delta, r.r}.
  Dots dots_from(const std::vector<double>& d) const { return {d.at(0), d.at(1), precond_ ? d.at(2) : d.at(0)}; }
  // p'^T A p' for the next direction p' = u + beta p, computed directly (two scratch vectors):
  // a p^T A p <= 0 seen through the recurrences is checked this way before it is a breakdown.
  // u: M^-1 r where the variant keeps it; null: computed here from r.
  double direct_curvature(const ::cl::Buffer& r, const ::cl::Buffer* u, const ::cl::Buffer& p, double beta);
  // The whole solve, with the variant's restart, step and replacement.
  SolveInfo iterate(const detail::RecurrenceVariant& variant, const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess,
                    bool true_residual);

  cl::Env env_;
  DeviceCsrMatrix a_;
  Settings settings_;
  std::size_t n_;
  Spmv spmv_;
  VectorOps ops_;
  FusedOps fused_;
  std::shared_ptr<DevicePreconditioner> precond_;  // null: none
  bool jacobi_ = false;    // M^-1 is a diagonal, fused into the variant's kernels
  ::cl::Buffer inv_diag_;  // Jacobi only

 private:
  reduction::Reducer sumsq_;
  reduction::Reducer dot_;
  TrueResidual true_residual_;
  ::cl::Buffer check_p_, check_q_;  // direct_curvature's scratch, allocated on first use
};

}  // namespace clcg::solver
