// The watch over a small matrix's CG (krylov/direct_watch.hpp), fed synthetic residuals: a slow
// rate stops CG at the first check with the direct plan; a fast one never does; the caller's
// callbacks keep running and come back afterwards; the choice depends on the residuals alone.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "clcg/solver/krylov/direct_watch.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DirectWatch;
using clcg::solver::Settings;

// Runs the watch over residuals rate^k for k = 1 .. steps; the step it stopped at, if it did.
std::optional<std::size_t> watched_stop(const clcg::solver::HostCsr& a, double rate, std::size_t steps,
                                        std::optional<clcg::solver::Plan>* direct = nullptr) {
  Settings requested;
  requested.preconditioner = clcg::solver::Preconditioner::automatic;
  requested.variant = clcg::solver::CgVariant::automatic;
  const clcg::solver::CsrView view = a;
  const clcg::cl::DeviceInfo device = clcg::test::fp64_gpu_info();
  const clcg::solver::Plan plan = clcg::solver::plan_solve(device, requested, std::size_t(a.rows), std::size_t(a.nnz()), &view);
  EXPECT_TRUE(plan.watch_for_direct);
  Settings settings = plan.settings;
  std::size_t caller_steps = 0;
  settings.on_iteration = [&](std::size_t, double) { ++caller_steps; };
  std::optional<std::size_t> stopped;
  {
    DirectWatch watch(device, plan, view, settings);
    for (std::size_t k = 1; k <= steps && !stopped; ++k) {
      settings.on_iteration(k, std::pow(rate, double(k)));
      if (settings.should_stop()) stopped = k;
    }
    if (direct) *direct = watch.direct_plan();
    EXPECT_EQ(caller_steps, stopped.value_or(steps));  // the caller's callback ran every step
  }
  EXPECT_FALSE(settings.should_stop);  // the caller's (empty) stop is back
  return stopped;
}

TEST(DirectWatch, ASlowRateHandsOverToTheFactorAtTheFirstCheck) {
  // bcsstk13's shape at random: 0.99 a step predicts ~1,800 steps, ~45 ms, against a dense factor
  // of a few ms.
  const auto a = clcg::solver::to_host_csr(clcg::test::random_dd_spd(2003, 42, 13));
  std::optional<clcg::solver::Plan> direct;
  const auto stopped = watched_stop(a, 0.99, 2000, &direct);
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, clcg::solver::watch_first_check);
  ASSERT_TRUE(direct);
  EXPECT_EQ(direct->method, clcg::solver::Method::direct);
  EXPECT_TRUE(direct->factor_on_device);
  EXPECT_NE(direct->reason.find("after 20 CG steps the residual's rate predicts"), std::string::npos) << direct->reason;
  EXPECT_EQ(watched_stop(a, 0.99, 2000), stopped);  // the same residuals, the same choice
}

TEST(DirectWatch, AFastRateLetsCgFinish) {
  // A grid converging by 0.5 a step: 27 steps to 1e-8, checked at 20 (7 left: CG).
  const auto a = clcg::solver::to_host_csr(clcg::test::poisson(13, 13, 13));
  EXPECT_FALSE(watched_stop(a, 0.5, 27));
}

}  // namespace
