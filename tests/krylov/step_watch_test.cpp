// Host-only checks of what every CG loop calls once per step (solver/krylov/stopping.hpp's
// StepWatch: cancellation, progress callback, stagnation, divergence), of the statuses'
// names, and of the fp64 check cg-solve maps to exit 3 (a DeviceInfo without fp64: no such
// device is needed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "stopping.hpp"  // solver/krylov: the loops' shared helper
#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/solve.hpp"

namespace {

using clcg::solver::Settings;
using clcg::solver::Status;
using clcg::solver::detail::StepWatch;

// Feeds residuals(k) for k = 1..steps; returns the step that stopped (0: none) and the stop.
template <class Residual>
std::pair<std::size_t, std::optional<StepWatch::Stop>> run(const Settings& settings, std::size_t steps, Residual residual,
                                                           double initial = 1.0) {
  StepWatch watch(settings, initial);
  for (std::size_t k = 1; k <= steps; ++k)
    if (auto stop = watch.after_step(k, residual(k))) return {k, std::move(stop)};
  return {0, std::nullopt};
}

TEST(StepWatch, StagnationFiresAfterTheWindowWithoutProgress) {
  Settings settings;  // window 2000
  // Progress for 10 steps, then flat: the best is at step 10, so step 2010 is the first with
  // 2000 steps (and 3/4 of the solve) without a 0.1 % improvement.
  const auto [k, stop] = run(settings, 100000, [](std::size_t k) { return k <= 10 ? 1.0 / double(k + 1) : 0.5; });
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->status, Status::stagnated);
  EXPECT_EQ(k, 2010u);
  EXPECT_NE(stop->message.find("stagnated at iteration 2010: no progress in 2000 iterations"), std::string::npos)
      << stop->message;
  EXPECT_NE(stop->message.find("at iteration 10)"), std::string::npos) << stop->message;
}

TEST(StepWatch, TheWindowGrowsWithTheSolve) {
  Settings settings;
  // Steady progress until step 5000, then flat: 2000 steps are not enough, 3/4 of the solve is.
  const auto [k, stop] = run(settings, 100000, [](std::size_t k) { return std::pow(0.99, double(std::min<std::size_t>(k, 5000))); });
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->status, Status::stagnated);
  EXPECT_EQ(k, 20000u);  // the first k with k - 5000 >= k - k / 4
}

TEST(StepWatch, SlowButRealProgressWithLongPlateausNeverStagnates) {
  // Like bcsstk13 without a preconditioner: steady progress at first, then plateaus that, when
  // they end at step k, have lasted 0.6 k (measured on PoCL: up to 0.56 k), each followed by a
  // 2 % gain.
  Settings settings;
  std::size_t plateau_end = 1300;
  double level = std::pow(0.995, 1000.0);
  const auto [k, stop] = run(settings, 200000, [&](std::size_t k) {
    if (k <= 1000) return std::pow(0.995, double(k));
    if (k == plateau_end) {
      level *= 0.98;
      plateau_end = k + std::max<std::size_t>(1, std::size_t(1.5 * double(k)));
    }
    return level * (1 + 0.5 * double(k % 7) / 7);  // noise above the level
  });
  EXPECT_FALSE(stop) << k << ": " << stop->message;
}

TEST(StepWatch, DivergenceIsMeasuredFromTheLargerOfTheStartAndB) {
  Settings settings;  // factor 1e8
  {
    const auto [k, stop] = run(settings, 100, [](std::size_t k) { return std::pow(10.0, double(k)); });
    ASSERT_TRUE(stop);
    EXPECT_EQ(stop->status, Status::diverged);
    EXPECT_EQ(k, 9u);  // 1e9 > 1e8 * 1
    EXPECT_NE(stop->message.find("diverged at iteration 9: the relative residual 1e+09"), std::string::npos)
        << stop->message;
  }
  {
    // A good initial guess (||r_0|| = 1e-6 ||b||): the limit is still 1e8 ||b||, not 1e8 ||r_0||.
    const auto [k, stop] = run(settings, 100, [](std::size_t k) { return 1e-6 * std::pow(10.0, double(k)); }, 1e-6);
    ASSERT_TRUE(stop);
    EXPECT_EQ(k, 15u);
  }
  {
    // A start above ||b|| (a bad guess): measured from there.
    const auto [k, stop] = run(settings, 100, [](std::size_t k) { return std::pow(10.0, double(k)); }, 100.0);
    ASSERT_TRUE(stop);
    EXPECT_EQ(k, 11u);
  }
}

TEST(StepWatch, ZeroTurnsTheChecksOffAndNonFiniteIsLeftToTheLoop) {
  Settings settings;
  settings.stagnation_window = 0;
  settings.divergence_factor = 0;
  const auto [k, stop] = run(settings, 50000, [](std::size_t k) { return k < 10 ? 1.0 : 1e30; });
  EXPECT_FALSE(stop) << k;
  Settings defaults;
  const auto [k2, stop2] = run(defaults, 10, [](std::size_t) { return std::numeric_limits<double>::quiet_NaN(); });
  EXPECT_FALSE(stop2) << k2;
}

TEST(StepWatch, ShouldStopInterruptsAndOnIterationSeesEachStepOnce) {
  Settings settings;
  std::vector<std::size_t> seen;
  int asked = 0;
  settings.on_iteration = [&](std::size_t k, double residual) {
    seen.push_back(k);
    EXPECT_EQ(residual, 1.0 / double(k));
  };
  settings.should_stop = [&] { return ++asked == 6; };
  StepWatch watch(settings, 1.0);
  EXPECT_FALSE(watch.after_step(0, 1.0));  // step 0 (before the first step) is not a step
  for (std::size_t k = 1; k <= 3; ++k) EXPECT_FALSE(watch.after_step(k, 1.0 / double(k)));
  EXPECT_FALSE(watch.after_step(3, 1.0 / 3));  // the same step again (after a residual replacement)
  const auto stop = watch.after_step(4, 0.25);
  ASSERT_TRUE(stop);  // should_stop is asked on every call, repeats included: the 6th call
  EXPECT_EQ(stop->status, Status::interrupted);
  EXPECT_EQ(stop->message, "interrupted at iteration 4");
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2, 3, 4}));  // the stopped step is reported too
}

TEST(SolverStatus, EveryStatusHasAName) {
  EXPECT_EQ(clcg::solver::status_name(Status::converged), "converged");
  EXPECT_EQ(clcg::solver::status_name(Status::max_iterations), "max_iterations");
  EXPECT_EQ(clcg::solver::status_name(Status::breakdown), "breakdown");
  EXPECT_EQ(clcg::solver::status_name(Status::non_finite), "non_finite");
  EXPECT_EQ(clcg::solver::status_name(Status::stagnated), "stagnated");
  EXPECT_EQ(clcg::solver::status_name(Status::diverged), "diverged");
  EXPECT_EQ(clcg::solver::status_name(Status::interrupted), "interrupted");
}

TEST(RequirePrecision, DoubleOnADeviceWithoutFp64SuggestsFloat) {
  clcg::cl::DeviceInfo device;
  device.name = "Tiny GPU";
  device.fp64 = false;
  try {
    clcg::solver::require_precision(device, clcg::solver::ElementType::f64);
    FAIL() << "no exception";
  } catch (const clcg::cl::DeviceCapabilityError& e) {  // a clcg::cl::Error: cg-solve exit 3
    const std::string what = e.what();
    EXPECT_NE(what.find("Tiny GPU has no double precision"), std::string::npos) << what;
    EXPECT_NE(what.find("--precision float"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(clcg::solver::require_precision(device, clcg::solver::ElementType::f32));
  device.fp64 = true;
  EXPECT_NO_THROW(clcg::solver::require_precision(device, clcg::solver::ElementType::f64));
}

}  // namespace
