#include "clcg/solver/krylov/direct_watch.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace clcg::solver {

DirectWatch::DirectWatch(const cl::DeviceInfo& device, const Plan& plan, const CsrView& host, Settings& settings)
    : device_(device),
      plan_(plan),
      host_(host),
      settings_(settings),
      caller_stop_(settings.should_stop),
      caller_step_(settings.on_iteration) {
  settings_.on_iteration = [this](std::size_t step, double residual) {
    if (caller_step_) caller_step_(step, residual);
    on_step(step, residual);
  };
  settings_.should_stop = [this] { return direct_.has_value() || (caller_stop_ && caller_stop_()); };
}

DirectWatch::~DirectWatch() {
  settings_.on_iteration = caller_step_;
  settings_.should_stop = caller_stop_;
}

void DirectWatch::on_step(std::size_t step, double residual) {
  steps_ = step;
  if (!since_step_) {  // the first step seen: the rate counts from here
    since_step_ = step, since_residual_ = residual;
    return;
  }
  if (step < next_check_ || direct_ || !(residual > 0) || !std::isfinite(residual)) return;
  const double steps = double(step - *since_step_);
  const double rate = std::pow(residual / since_residual_, 1.0 / steps);  // a step's residual factor
  const double left = rate < 1 ? std::log(settings_.tolerance / residual) / std::log(rate) : INFINITY;
  const double seconds_per_step = cg_step_seconds(device_, std::size_t(host_.rows), std::size_t(host_.nnz()));
  const auto start = std::chrono::steady_clock::now();
  char why[96];
  std::snprintf(why, sizeof why, "after %zu CG steps the residual's rate predicts %.3g more", step, std::ceil(left));
  direct_ = direct_instead(device_, plan_, host_, left * seconds_per_step, why, analysis_);
  check_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  since_step_ = step, since_residual_ = residual;
  next_check_ = 2 * step;
}

WatchedSolve solve_watched(const cl::DeviceInfo& device, const Plan& plan, const CsrView& host, CgMethod& cg,
                           const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  const DirectWatch watch(device, plan, host, cg.settings());
  WatchedSolve out;
  out.cg = cg.solve(b, x, use_guess, true_residual);
  out.direct = watch.direct_plan();
  out.cg_steps = watch.cg_steps();
  out.check_seconds = watch.check_seconds();
  return out;
}

}  // namespace clcg::solver
