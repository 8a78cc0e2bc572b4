#pragma once
// The planner's watch over CG on a small matrix (krylov/plan.hpp, watch_up_to_rows): while CG
// runs, at steps watch_first_check, twice that, ... the residual's rate since the last check
// predicts the steps left, cg_step_seconds prices them, and where a direct solve is predicted
// faster (direct_instead) CG is stopped there. Its x is then the direct method's guess.
// Attached to a Settings for one solve: the caller's on_iteration and should_stop still run.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "clcg/cl/device.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class DirectWatch {
 public:
  // Watches the solve run with `settings` (its callbacks wrapped until destruction).
  DirectWatch(const cl::DeviceInfo& device, const Plan& plan, const CsrView& host, Settings& settings);
  ~DirectWatch();
  DirectWatch(const DirectWatch&) = delete;
  DirectWatch& operator=(const DirectWatch&) = delete;

  // The direct plan the watch stopped CG for, if it did.
  const std::optional<Plan>& direct_plan() const noexcept { return direct_; }
  std::size_t cg_steps() const noexcept { return steps_; }  // the steps CG took before the stop
  // Seconds its checks took inside the solve (the sparse factor's analysis), for the caller's
  // accounting: the direct method's set-up reports the analysis.
  double check_seconds() const noexcept { return check_seconds_; }

 private:
  void on_step(std::size_t step, double residual);

  const cl::DeviceInfo& device_;
  const Plan& plan_;
  CsrView host_;
  Settings& settings_;
  std::function<bool()> caller_stop_;
  std::function<void(std::size_t, double)> caller_step_;
  std::size_t next_check_ = watch_first_check, steps_ = 0;
  std::optional<std::size_t> since_step_;  // the last check (or the first step seen)
  double since_residual_ = 0, check_seconds_ = 0;
  std::shared_ptr<SparseCholesky> analysis_;
  std::optional<Plan> direct_;
};

// One CG solve with the watch attached: CG's result, and the direct plan where the watch stopped
// it (x then holds CG's last iterate, the direct method's guess).
struct WatchedSolve {
  SolveInfo cg;
  std::optional<Plan> direct;
  std::size_t cg_steps = 0;
  double check_seconds = 0;  // DirectWatch::check_seconds
};
WatchedSolve solve_watched(const cl::DeviceInfo& device, const Plan& plan, const CsrView& host, CgMethod& cg,
                           const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual);

}  // namespace clcg::solver
