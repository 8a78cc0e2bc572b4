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
const clcg::cl::DeviceInfo gpu64 = [] {
  clcg::cl::DeviceInfo info = device_info_of_type(CL_DEVICE_TYPE_GPU);
  info.fp64 = true;
  return info;
}();

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
  EXPECT_EQ(on_gpu.reason, "10K rows, 49.6K nonzeros on a GPU: CG, jacobi, pipelined");
  const auto on_cpu = plan(cpu, a);
  EXPECT_EQ(on_cpu.method, Method::cg);
  EXPECT_EQ(on_cpu.reason, "10K rows, 49.6K nonzeros on a CPU: CG, jacobi, single");
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

TEST(Plan, AFewThousandRowsWithoutACheapSparseFactorAreFactoredDenseOnAGpu) {
  using clcg::solver::FactorPlace;
  // 11^3 (analysed: several Mflop) and a random matrix of bcsstk13's size and row length (not
  // analysed: over 10K nonzeros) on a GPU with fp64: the dense factor on the device.
  for (const auto& a : {clcg::solver::to_host_csr(clcg::test::poisson(11, 11, 11)),
                        clcg::solver::to_host_csr(clcg::test::random_dd_spd(2003, 42, 13))}) {
    const auto p = plan(gpu64, a);
    SCOPED_TRACE(p.reason);
    EXPECT_EQ(p.method, Method::direct);
    EXPECT_TRUE(p.factor_on_device);
    EXPECT_FALSE(p.analysis);
    EXPECT_NE(p.reason.find("direct, a dense factor on the device"), std::string::npos);
    EXPECT_EQ(plan(cpu, a).method, Method::cg);  // a CPU device: CG
    Settings host = automatic();
    host.precond_options.factor = FactorPlace::host;  // never on the device
    EXPECT_EQ(plan(gpu64, a, host).method, Method::cg);
  }
  // Past dense_factor_up_to_rows rows: CG.
  const HostCsr wide = clcg::solver::to_host_csr(clcg::test::random_dd_spd(int(clcg::solver::dense_factor_up_to_rows) + 1, 9, 3));
  EXPECT_EQ(plan(gpu64, wide).method, Method::cg);
  // A cheap sparse factor stays on the host; --factor device puts any factor on the device,
  // without the analysis, even on a CPU.
  const HostCsr small = clcg::solver::to_host_csr(clcg::test::poisson(8, 6));
  const auto cheap = plan(gpu64, small);
  EXPECT_EQ(cheap.method, Method::direct);
  EXPECT_FALSE(cheap.factor_on_device);
  Settings device = automatic();
  device.precond_options.factor = FactorPlace::device;
  const auto forced = plan(cpu, small, device);
  EXPECT_EQ(forced.method, Method::direct);
  EXPECT_TRUE(forced.factor_on_device);
  EXPECT_FALSE(forced.analysis);
  EXPECT_FALSE(clcg::solver::dense_factor_pays(gpu64, 0, FactorPlace::automatic));  // n = 0
}

TEST(Plan, WithoutAHostMatrixThePlanIsCg) {
  const auto p = clcg::solver::plan_solve(gpu, automatic(), 48, 400);
  EXPECT_EQ(p.method, Method::cg);
  EXPECT_EQ(p.settings.preconditioner, Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::resolve_automatic(gpu, automatic(), 48, 400).variant, p.settings.variant);
  EXPECT_EQ(clcg::solver::plan_solve(gpu, automatic(), 0, 0, nullptr).method, Method::cg);  // n = 0
}

}  // namespace
