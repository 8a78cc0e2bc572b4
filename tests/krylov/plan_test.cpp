// The planner (krylov/plan.hpp) as a table of inputs and the choices expected: direct or CG,
// preconditioner, variant, and the reason it gives. Host only: the device is a DeviceInfo.
#include <gtest/gtest.h>

#include <string>

#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::CgVariant;
using clcg::solver::ElementType;
using clcg::solver::FactorEstimate;
using clcg::solver::HostCsr;
using clcg::solver::Method;
using clcg::solver::Preconditioner;
using clcg::solver::Settings;

using clcg::test::device_info_of_type;

// (gpu has no fp64, so the dense factor on the device is never its plan; gpu64 has it.)
const clcg::cl::DeviceInfo gpu = device_info_of_type(CL_DEVICE_TYPE_GPU), cpu = device_info_of_type(CL_DEVICE_TYPE_CPU);
const clcg::cl::DeviceInfo gpu64 = clcg::test::fp64_gpu_info();

Settings automatic() {
  Settings s;
  s.preconditioner = Preconditioner::automatic;
  s.variant = CgVariant::automatic;
  return s;
}

clcg::solver::Plan plan(const clcg::cl::DeviceInfo& device, const HostCsr& a, const Settings& requested = automatic()) {
  const clcg::solver::CsrView view = a;
  return clcg::solver::plan_solve(device, requested, std::size_t(a.rows), std::size_t(a.nnz()), &view);
}

TEST(Plan, ThresholdsOfTheDirectRule) {
  FactorEstimate f;
  f.flops = clcg::solver::direct_up_to_flops;
  EXPECT_TRUE(clcg::solver::direct_pays(f));
  f.flops *= 1.01;
  EXPECT_FALSE(clcg::solver::direct_pays(f));
  const std::size_t g = clcg::solver::analyse_up_to_nnz;
  EXPECT_TRUE(clcg::solver::worth_analysing(1000, g));
  EXPECT_FALSE(clcg::solver::worth_analysing(1000, g + 1));
  EXPECT_FALSE(clcg::solver::worth_analysing(0, 0));  // n = 0: nothing to factor
  // Up to analyse_stiff_up_to_nnz where most rows are not diagonally dominant: a 2D grid's
  // Laplacian (dominant) is not analysed there, the same pattern with a quarter of its diagonal is.
  const int side = 60;  // 3.6K rows, 17.7K nonzeros
  const HostCsr grid = clcg::solver::to_host_csr(clcg::test::poisson(side, side));
  const clcg::solver::CsrView grid_view = grid;
  ASSERT_GT(std::size_t(grid.nnz()), g);
  ASSERT_LE(std::size_t(grid.nnz()), clcg::solver::analyse_stiff_up_to_nnz);
  EXPECT_DOUBLE_EQ(clcg::solver::dominant_fraction(grid_view), 1.0);
  EXPECT_FALSE(clcg::solver::worth_analysing(std::size_t(grid.rows), std::size_t(grid.nnz()), &grid_view));
  HostCsr stiff = grid;
  for (std::int32_t i = 0; i < stiff.rows; ++i)
    for (std::int32_t k = stiff.row_ptr[std::size_t(i)]; k < stiff.row_ptr[std::size_t(i) + 1]; ++k)
      if (stiff.col_idx[std::size_t(k)] == i) stiff.values[std::size_t(k)] *= 0.25;
  const clcg::solver::CsrView stiff_view = stiff;
  EXPECT_LT(clcg::solver::dominant_fraction(stiff_view), 0.5);
  EXPECT_TRUE(clcg::solver::worth_analysing(std::size_t(stiff.rows), std::size_t(stiff.nnz()), &stiff_view));
  EXPECT_FALSE(clcg::solver::worth_analysing(1000, clcg::solver::analyse_stiff_up_to_nnz + 1, &stiff_view));
}

TEST(Plan, SmallMatricesWithACheapFactorAreSolvedDirectly) {
  // bcsstk01's size (48 rows), a 2D grid of 30 x 30 (gr_30_30's), a random sparse SPD matrix.
  for (const auto& a : {clcg::solver::to_host_csr(clcg::test::poisson(8, 6)),
                        clcg::solver::to_host_csr(clcg::test::poisson(30, 30)),
                        clcg::solver::to_host_csr(clcg::test::random_dd_spd(500, 3, 4))})
    for (const auto& device : {gpu, cpu}) {
      const auto p = plan(device, a);
      SCOPED_TRACE(p.reason);
      EXPECT_EQ(p.method, Method::direct);
      EXPECT_EQ(p.settings.preconditioner, Preconditioner::cholesky);
      ASSERT_TRUE(p.analysis);
      EXPECT_LE(p.analysis->estimate().flops, clcg::solver::direct_up_to_flops);
      EXPECT_NE(p.reason.find("Mflop: direct"), std::string::npos);
      EXPECT_NE(p.reason.find("factor "), std::string::npos);
    }
}

TEST(Plan, AnExpensiveFactorMeansCgAndTheAnalysisIsDropped) {
  // A 3D grid of 11^3: few nonzeros (8.6K, analysed), but a factor of several Mflop.
  const HostCsr a = clcg::solver::to_host_csr(clcg::test::poisson(11, 11, 11));
  const auto p = plan(gpu, a);
  SCOPED_TRACE(p.reason);
  EXPECT_EQ(p.method, Method::cg);
  EXPECT_FALSE(p.analysis);
  EXPECT_EQ(p.settings.preconditioner, Preconditioner::jacobi);
  EXPECT_EQ(p.settings.variant, CgVariant::pipelined);
  EXPECT_NE(p.reason.find("Mflop: CG, jacobi, pipelined"), std::string::npos);
}

TEST(Plan, LargeMatricesAreNotAnalysed) {
  // lap2D_5pt_n100's size: CG, the analysis skipped, on either kind of device.
  const HostCsr a = clcg::solver::to_host_csr(clcg::test::poisson(100, 100));
  const auto on_gpu = plan(gpu, a);
  EXPECT_EQ(on_gpu.method, Method::cg);
  EXPECT_FALSE(on_gpu.analysis);
  EXPECT_EQ(on_gpu.reason, "10K rows, 49.6K nonzeros on a GPU: CG, jacobi, pipelined, watched");
  const auto on_cpu = plan(cpu, a);
  EXPECT_EQ(on_cpu.method, Method::cg);
  EXPECT_EQ(on_cpu.reason, "10K rows, 49.6K nonzeros on a CPU: CG, jacobi, single, watched");
  // 3D Poisson 256^3 on a GPU: AMG, fused (no host matrix: the planner is given sizes).
  const auto big = clcg::solver::plan_solve(gpu, automatic(), 16'777'216, 117'047'296);
  EXPECT_EQ(big.method, Method::cg);
  EXPECT_EQ(big.settings.preconditioner, Preconditioner::amg);
  EXPECT_EQ(big.settings.variant, CgVariant::fused);
  EXPECT_EQ(big.reason, "16.8M rows, 117M nonzeros on a GPU: CG, amg, fused");
}

TEST(Plan, NamingAPreconditionerOrAVariantAsksForCg) {
  const HostCsr a = clcg::solver::to_host_csr(clcg::test::poisson(8, 6));
  Settings s = automatic();
  s.preconditioner = Preconditioner::ic0;
  auto p = plan(gpu, a, s);
  EXPECT_EQ(p.method, Method::cg);
  EXPECT_EQ(p.settings.preconditioner, Preconditioner::ic0);
  EXPECT_EQ(p.settings.variant, CgVariant::single);
  EXPECT_NE(p.reason.find("ic0 (requested), single"), std::string::npos) << p.reason;
  s = automatic();
  s.variant = CgVariant::textbook;
  p = plan(gpu, a, s);
  EXPECT_EQ(p.method, Method::cg);
  EXPECT_EQ(p.settings.preconditioner, Preconditioner::jacobi);
  EXPECT_NE(p.reason.find("textbook (requested)"), std::string::npos) << p.reason;
  s.variant = CgVariant::pipelined;  // pipelined takes a diagonal M only
  EXPECT_EQ(plan(gpu, a, s).settings.preconditioner, Preconditioner::jacobi);
  s.precision = ElementType::f32;
  s.variant = CgVariant::automatic;
  s.preconditioner = Preconditioner::automatic;
  EXPECT_EQ(plan(gpu, a, s).method, Method::direct);  // the factor is in double whatever the solve's type
}

TEST(Plan, SmallMatricesWithoutACheapFactorAreWatchedAndDenseOnTheDeviceOnlyWhenAsked) {
  using clcg::solver::FactorPlace;
  // 11^3 (analysed: several Mflop) and a random matrix of bcsstk13's size and row length (not
  // analysed: over 10K nonzeros): CG, watched, on any device.
  for (const auto& a : {clcg::solver::to_host_csr(clcg::test::poisson(11, 11, 11)),
                        clcg::solver::to_host_csr(clcg::test::random_dd_spd(2003, 42, 13))})
    for (const auto& device : {gpu64, cpu}) {
      const auto p = plan(device, a);
      SCOPED_TRACE(p.reason);
      EXPECT_EQ(p.method, Method::cg);
      EXPECT_TRUE(p.watch_for_direct);
      EXPECT_FALSE(p.analysis);
      EXPECT_EQ(p.reason.substr(p.reason.size() - 9), ", watched");
    }
  // Past watch_up_to_rows rows, or a preconditioner named: not watched.
  const HostCsr wide = clcg::solver::to_host_csr(clcg::test::poisson(int(clcg::solver::watch_up_to_rows) / 100 + 1, 100));
  EXPECT_FALSE(plan(gpu64, wide).watch_for_direct);
  const HostCsr small = clcg::solver::to_host_csr(clcg::test::poisson(11, 11, 11));
  Settings jacobi = automatic();
  jacobi.preconditioner = Preconditioner::jacobi;
  EXPECT_FALSE(plan(gpu64, small, jacobi).watch_for_direct);
  // --factor device: the dense factor on the device at once, without the analysis, even on a CPU.
  Settings device = automatic();
  device.precond_options.factor = FactorPlace::device;
  const auto forced = plan(cpu, clcg::solver::to_host_csr(clcg::test::poisson(8, 6)), device);
  EXPECT_EQ(forced.method, Method::direct);
  EXPECT_TRUE(forced.factor_on_device);
  EXPECT_FALSE(forced.analysis);
  EXPECT_NE(forced.reason.find("direct, a dense factor on the device"), std::string::npos) << forced.reason;
}

TEST(Plan, TheDenseFactorIsAllowedOnAGpuWithFp64UpToItsRows) {
  using clcg::solver::FactorPlace;
  using clcg::solver::dense_factor_allowed;
  const std::size_t most = clcg::solver::dense_factor_up_to_rows;
  EXPECT_TRUE(dense_factor_allowed(gpu64, most, FactorPlace::automatic));
  EXPECT_FALSE(dense_factor_allowed(gpu64, most + 1, FactorPlace::automatic));
  EXPECT_FALSE(dense_factor_allowed(gpu, 100, FactorPlace::automatic));  // no fp64
  EXPECT_FALSE(dense_factor_allowed(cpu, 100, FactorPlace::automatic));
  EXPECT_FALSE(dense_factor_allowed(gpu64, 100, FactorPlace::host));
  EXPECT_TRUE(dense_factor_allowed(cpu, most + 1, FactorPlace::device));
  EXPECT_FALSE(dense_factor_allowed(gpu64, 0, FactorPlace::automatic));  // n = 0
  // The models grow with the work: a dense factor's n^3, a CG step's bytes.
  EXPECT_LT(clcg::solver::dense_direct_seconds(1000), clcg::solver::dense_direct_seconds(2000));
  EXPECT_LT(clcg::solver::cg_step_seconds(gpu64, 1000, 5000), clcg::solver::cg_step_seconds(gpu64, 1000, 5'000'000));
}

TEST(Plan, DirectInsteadPicksTheFactorPredictedFastestOrNone) {
  using clcg::solver::FactorPlace;
  // bcsstk13's shape at random: on a GPU with fp64 the dense factor on the device, without the
  // sparse one's analysis; on a CPU the sparse one (the only one allowed), analysed here.
  const HostCsr a = clcg::solver::to_host_csr(clcg::test::random_dd_spd(2003, 42, 13));
  const auto cg_plan = plan(gpu64, a);
  std::shared_ptr<clcg::solver::SparseCholesky> analysis;
  const auto dense = clcg::solver::direct_instead(gpu64, cg_plan, a, 10.0, "why", analysis);
  ASSERT_TRUE(dense);
  EXPECT_EQ(dense->method, Method::direct);
  EXPECT_TRUE(dense->factor_on_device);
  EXPECT_FALSE(dense->watch_for_direct);
  EXPECT_EQ(dense->settings.preconditioner, Preconditioner::cholesky);
  EXPECT_NE(dense->reason.find("; why ("), std::string::npos) << dense->reason;
  EXPECT_FALSE(analysis);  // the dense factor needs none
  const auto sparse = clcg::solver::direct_instead(cpu, plan(cpu, a), a, 1e6, "why", analysis);
  ASSERT_TRUE(sparse);
  EXPECT_FALSE(sparse->factor_on_device);
  ASSERT_TRUE(sparse->analysis);
  EXPECT_NE(sparse->reason.find("Mflop"), std::string::npos) << sparse->reason;
  // CG's time left below both: none (and no analysis where CG's time left would not pay it).
  analysis.reset();
  EXPECT_FALSE(clcg::solver::direct_instead(gpu64, cg_plan, a, 1e-5, "why", analysis));
  EXPECT_FALSE(analysis);
}

TEST(Plan, WithoutAHostMatrixThePlanIsCg) {
  const auto p = clcg::solver::plan_solve(gpu, automatic(), 48, 400);
  EXPECT_EQ(p.method, Method::cg);
  EXPECT_EQ(p.settings.preconditioner, Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::resolve_automatic(gpu, automatic(), 48, 400).variant, p.settings.variant);
  EXPECT_EQ(clcg::solver::plan_solve(gpu, automatic(), 0, 0, nullptr).method, Method::cg);  // n = 0
}

}  // namespace
