#pragma once
// A solver for one host matrix, set up once and then solving any number of right-hand sides
// that live in host memory: what cg-solve, the Eigen facade and the Python binding hold between
// solves. The planner (krylov/plan.hpp) decides how: CG on the device (A uploaded,
// preconditioner set up, kernels built, work vectors allocated) or, for `auto` on a matrix
// whose factor is cheap, a direct solve on the host (A factored once, never uploaded).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "clcg/cl/env.hpp"
#include "clcg/cl/staged_upload.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/precond/cholesky.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class HostMatrixSolver {
 public:
  // `a` square, in full storage; `type` is what the device solves in. Checks the device's memory
  // first. `settings`' automatic preconditioner and variant are planned here (plan_solve). A
  // set-up that finds A not SPD (a preconditioner's PreconditionerBreakdown, or the direct
  // method's factorisation) leaves setup_failure() set: every solve then reports
  // Status::breakdown with its message. Device errors throw.
  HostMatrixSolver(const cl::Env& env, HostCsr a, ElementType type, const Settings& settings);
  // The same on arrays the caller owns, read in place (no host copy of A); they must stay
  // alive and unchanged for the solver's life. IC(0) and AMG, which keep a host matrix of
  // their own, copy it during their set-up.
  HostMatrixSolver(const cl::Env& env, const CsrView& a, ElementType type, const Settings& settings);

  // New values of A on the same pattern (time stepping, Newton): `a` has the set-up's row
  // pointers and columns (checked; std::invalid_argument names the first difference) and its new
  // values. The solver keeps its plan; the direct method factors again on its analysis, CG
  // uploads the values only and refreshes the preconditioner (refresh_preconditioner: AMG keeps
  // its aggregates and patterns). A solver given its arrays reads `a`'s from now on (keep them
  // alive); one that owns A copies the values. setup_failure() is decided anew.
  void update_values(const CsrView& a);

  // b and x: rows() elements of the solver's type (float or double) in host memory; x is the
  // guess when use_guess, and the last iterate afterwards. Tolerance and limits are taken from
  // settings() at each call. true_residual: SolveInfo::true_residual is ||b - A x|| / ||b||,
  // recomputed on the device after the solve (in double where the device has fp64); false
  // leaves it NaN for the caller.
  SolveInfo solve(const void* b, void* x, bool use_guess, bool true_residual = true);
  // The same with b and x already on the device: buffers of rows() elements on this solver's
  // context (e.g. a caller's pyopencl arrays), used in place; nothing crosses to the host.
  SolveInfo solve(const ::cl::Buffer& b, const ::cl::Buffer& x, bool use_guess, bool true_residual = true);

  // The CG solver's settings: what may change between solves (tolerance, max_iterations,
  // record_history, should_stop, on_iteration, the early stops); the rest was used at set-up.
  Settings& settings() noexcept { return cg_ ? cg_->settings() : resolved_; }
  const Settings& resolved() const noexcept { return resolved_; }  // the preconditioner and variant chosen
  const Plan& plan() const noexcept { return plan_; }              // how, and why (direct or CG)
  const PreconditionerReport* preconditioner_report() const noexcept {
    return preconditioner_ ? &preconditioner_->report() : nullptr;
  }
  const std::optional<std::string>& setup_failure() const noexcept { return setup_failure_; }
  const CsrView& host() const noexcept { return host_; }
  const DeviceCsrMatrix& device_matrix() const noexcept { return device_a_; }  // A on the device
  std::size_t rows() const noexcept { return static_cast<std::size_t>(host_.rows); }
  ElementType type() const noexcept { return type_; }
  // The current x on the device (e.g. to read an iterate back from on_iteration).
  const ::cl::Buffer& device_x() const noexcept { return x_; }
  double setup_seconds() const noexcept { return setup_seconds_; }  // upload + preconditioner + kernels
  // The last update_values(): values uploaded, preconditioner refreshed (or A factored), kernels.
  double update_seconds() const noexcept { return update_seconds_; }
  // Seconds spent copying host data to the device so far: A at set-up, then b (and x0) at
  // each solve from host memory. Each copy is waited for, so this is what a caller waits.
  double upload_seconds() const noexcept { return upload_seconds_; }

 private:
  HostMatrixSolver(const cl::Env& env, const CsrView& view, ElementType type, const Settings& settings,
                   std::optional<HostCsr> owned);  // A in `owned` when it has a value, else in `view`
  SolveInfo setup_failure_info() const;
  void set_up_direct();
  void set_up_cg();
  SolveInfo solve_direct(const void* b, void* x, bool use_guess);

  cl::Env env_;
  std::optional<HostCsr> owned_;  // A when the solver was given its arrays
  CsrView host_;                  // A, in owned_ or the caller's arrays
  ElementType type_;
  Plan plan_;
  std::unique_ptr<cl::StagedUpload> staging_;  // pinned staging for A, then b and x0 (CG only)
  DeviceCsrMatrix device_a_;                    // CG only: the direct method keeps A on the host
  Settings resolved_;
  std::shared_ptr<DevicePreconditioner> preconditioner_;
  std::shared_ptr<CholeskyPreconditioner> direct_;  // the direct method's factor (also preconditioner_)
  std::unique_ptr<CgMethod> cg_;
  ::cl::Buffer b_, x_;
  std::optional<std::string> setup_failure_;
  double setup_seconds_ = 0;
  double update_seconds_ = 0;
  double upload_seconds_ = 0;
};

}  // namespace clcg::solver
