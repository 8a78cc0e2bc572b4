// The CG rules behind `auto` (krylov/plan.hpp: choose_cg_variant, choose_preconditioner and its
// precision; docs/USAGE.md "Which variant auto takes"), decided from device facts alone: no
// device needed. The direct-or-CG choice is tests/krylov/plan_test.cpp.
#include <gtest/gtest.h>

#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/problems/elasticity.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::CgVariant;
using clcg::solver::choose_cg_variant;
using clcg::solver::ElementType;
using clcg::solver::Preconditioner;

using clcg::test::device_info_of_type;

TEST(VariantChoice, GpuTakesOneSyncAStepBelowTheThresholdAndFusedFromIt) {
  const auto gpu = device_info_of_type(CL_DEVICE_TYPE_GPU);
  const std::size_t m = clcg::solver::gpu_fused_from_rows;
  EXPECT_EQ(m, 1'250'000u);
  const auto f64 = ElementType::f64;
  // Pipelined in double with Jacobi (textbook's steps there), single otherwise.
  EXPECT_EQ(choose_cg_variant(gpu, 4884, 290'378, f64, Preconditioner::jacobi), CgVariant::pipelined);  // bcsstk16
  EXPECT_EQ(choose_cg_variant(gpu, 4884, 290'378, f64, Preconditioner::none), CgVariant::single);
  EXPECT_EQ(choose_cg_variant(gpu, 4884, 290'378, ElementType::f32, Preconditioner::jacobi), CgVariant::single);
  EXPECT_EQ(choose_cg_variant(gpu, 1, 1, f64, Preconditioner::none), CgVariant::single);
  EXPECT_EQ(choose_cg_variant(gpu, m - 1, 7 * m, f64, Preconditioner::jacobi), CgVariant::pipelined);
  EXPECT_EQ(choose_cg_variant(gpu, m - 1, 7 * m, f64, Preconditioner::none), CgVariant::single);
  // From the threshold: fused, whatever the rest.
  for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi})
    for (ElementType t : {ElementType::f32, f64}) {
      EXPECT_EQ(choose_cg_variant(gpu, m, 7 * m, t, p), CgVariant::fused);
      EXPECT_EQ(choose_cg_variant(gpu, 16'777'216, 117'047'296, t, p), CgVariant::fused);  // 3D Poisson 256^3
    }
}

TEST(VariantChoice, CpuTakesSingleForSmallWorkAndFusedFromAHundredThousand) {
  const auto cpu = device_info_of_type(CL_DEVICE_TYPE_CPU);
  const std::size_t w = clcg::solver::cpu_fused_from_work;
  for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi}) {
    EXPECT_EQ(choose_cg_variant(cpu, 1138, 4054, ElementType::f64, p), CgVariant::single);      // 1138_bus
    EXPECT_EQ(choose_cg_variant(cpu, 10'000, 49'600, ElementType::f64, p), CgVariant::single);  // lap2D_5pt_n100
    EXPECT_EQ(choose_cg_variant(cpu, 1000, w - 1001, ElementType::f64, p), CgVariant::single);
    EXPECT_EQ(choose_cg_variant(cpu, 1000, w - 1000, ElementType::f64, p), CgVariant::fused);
    EXPECT_EQ(choose_cg_variant(cpu, 4884, 290'378, ElementType::f64, p), CgVariant::fused);      // bcsstk16
    EXPECT_EQ(choose_cg_variant(cpu, 262'144, 1'308'672, ElementType::f32, p), CgVariant::fused);  // 2D Poisson 512^2
  }
}

TEST(VariantChoice, PipelinedOnlyInDoubleWithJacobiOnAGpu) {
  for (cl_device_type type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ACCELERATOR})
    for (ElementType precision : {ElementType::f32, ElementType::f64})
      for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi})
        for (std::size_t rows : {std::size_t{0}, std::size_t{1}, std::size_t{100'000}, std::size_t{50'000'000}}) {
          const CgVariant v = choose_cg_variant(device_info_of_type(type), rows, 7 * rows, precision, p);
          const bool allowed = type != CL_DEVICE_TYPE_CPU && precision == ElementType::f64 && p == Preconditioner::jacobi;
          if (v == CgVariant::pipelined) {
            EXPECT_TRUE(allowed) << rows;
          }
          EXPECT_NE(v, CgVariant::textbook);
          EXPECT_NE(v, CgVariant::automatic);
        }
}

TEST(VariantChoice, AutoIsANameButNotOneOfTheVariantsThatRun) {
  EXPECT_EQ(clcg::solver::parse_cg_variant("auto"), CgVariant::automatic);
  EXPECT_EQ(clcg::solver::cg_variant_name(CgVariant::automatic), "auto");
  for (CgVariant v : clcg::solver::all_cg_variants()) EXPECT_NE(v, CgVariant::automatic);
  try {
    clcg::solver::parse_cg_variant("fastest");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("auto, textbook, fused, pipelined, single"), std::string::npos) << e.what();
  }
}

TEST(PreconditionerChoice, AmgOrChebyshevOnLargeProblemsOnAGpuJacobiOtherwise) {
  const auto gpu = device_info_of_type(CL_DEVICE_TYPE_GPU), cpu = device_info_of_type(CL_DEVICE_TYPE_CPU);
  const std::size_t m = clcg::solver::chebyshev_from_rows;
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, m, 7 * m), Preconditioner::chebyshev);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 884'736, 6'111'232), Preconditioner::chebyshev);  // 3D 96^3
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 108'900, 543'180), Preconditioner::chebyshev);  // 2D 330^2
  // AMG from amg_from_rows rows of at most amg_up_to_row_length nonzeros (2D meshes: 362^2), and
  // from amg_any_from_rows rows of any length (3D 112^3); 3D stencils below that keep Chebyshev.
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 1'404'928, 9'759'232), Preconditioner::amg);  // 3D 112^3
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 131'044, 653'764), Preconditioner::amg);  // 2D 362^2
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 2'097'152, 14'581'760), Preconditioner::amg);  // 3D 128^3
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 4'096'000, 28'518'400), Preconditioner::amg);  // 3D 160^3
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 8'000'000, 55'760'000), Preconditioner::amg);  // 3D 200^3
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 16'777'216, 117'047'296), Preconditioner::amg);
  const std::size_t any = clcg::solver::amg_any_from_rows;
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, any, 27 * any), Preconditioner::amg);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, any - 1, 7 * any), Preconditioner::chebyshev);
  // 3D finite elements (rows longer than 8) from amg_fe_from_rows.
  const std::size_t fe = clcg::solver::amg_fe_from_rows;
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, fe, 27 * fe), Preconditioner::amg);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, fe - 1, 27 * fe), Preconditioner::chebyshev);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, fe, 8 * fe), Preconditioner::chebyshev);
  const std::size_t g = clcg::solver::amg_from_rows;
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 4'194'304, 20'955'136), Preconditioner::amg);  // 2D 2048^2
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, g, 6 * g), Preconditioner::amg);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, g, 6 * g + 1), Preconditioner::chebyshev);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, g - 1, 5 * g), Preconditioner::chebyshev);
  EXPECT_EQ(clcg::solver::choose_preconditioner(cpu, 4'194'304, 20'955'136), Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, m - 1, 7 * m), Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, 1138, 4054), Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::choose_preconditioner(cpu, 16'777'216, 117'047'296), Preconditioner::jacobi);
  EXPECT_EQ(clcg::solver::choose_preconditioner(cpu, 10, 28), Preconditioner::jacobi);
}

// With the host matrix, surface-like means the graph's two-step growth (below 3.2: 2D meshes),
// not the row length: a 2D 9-point stencil takes AMG from amg_from_rows, a 3D 7-point one does
// not; a near-null space or a block size takes AMG from chebyshev_from_rows.
TEST(PreconditionerChoice, TheMeshGraphAndTheNearNullspaceDecideWhereRowsDoNot) {
  const auto gpu = device_info_of_type(CL_DEVICE_TYPE_GPU);
  const clcg::solver::HostMatrix nine = clcg::test::nine_point(400, 400);  // 160K rows, 9 a row
  const clcg::solver::HostMatrix seven = clcg::solver::poisson_3d(60, 60, 60);  // 216K rows, 7 a row
  const clcg::solver::CsrView nine_view = clcg::solver::csr_view(nine), seven_view = clcg::solver::csr_view(seven);
  EXPECT_LT(clcg::solver::two_step_growth(nine_view), clcg::solver::surface_growth_below);
  EXPECT_GT(clcg::solver::two_step_growth(seven_view), clcg::solver::surface_growth_below);
  const auto choice = [&](const clcg::solver::HostMatrix& a, const clcg::solver::CsrView* host,
                          const clcg::solver::PreconditionerOptions& options = {}) {
    return clcg::solver::choose_preconditioner(gpu, std::size_t(a.rows()), std::size_t(a.nonZeros()), options, host);
  };
  EXPECT_EQ(choice(nine, &nine_view), Preconditioner::amg);
  EXPECT_EQ(choice(nine, nullptr), Preconditioner::chebyshev);  // 9 a row: not short without the graph
  EXPECT_EQ(choice(seven, &seven_view), Preconditioner::chebyshev);
  clcg::solver::PreconditionerOptions blocks;
  blocks.amg.block_size = 3;
  EXPECT_EQ(choice(seven, &seven_view, blocks), Preconditioner::amg);
  EXPECT_EQ(clcg::solver::choose_preconditioner(gpu, clcg::solver::chebyshev_from_rows - 1, 0, blocks),
            Preconditioner::jacobi);
}

// Elastic bodies are found to be blocks of their dimension; scalar stencils, whose rows of a
// "node" reach different neighbours, are not.
TEST(PreconditionerChoice, BlockSystemsAreFoundFromTheirPattern) {
  const auto detect = [](const clcg::solver::HostMatrix& a) { return clcg::solver::detect_block_size(clcg::solver::csr_view(a)); };
  EXPECT_EQ(detect(clcg::solver::elasticity_3d(6, 5, 4, 0.3).stiffness), 3u);
  EXPECT_EQ(detect(clcg::solver::elasticity_2d(9, 7, 0.3).stiffness), 2u);
  EXPECT_EQ(detect(clcg::solver::poisson_3d(12, 12, 12)), 1u);
  EXPECT_EQ(detect(clcg::solver::poisson_2d(30, 30)), 1u);
  EXPECT_EQ(detect(clcg::test::nine_point(30, 30)), 1u);
  EXPECT_EQ(detect(clcg::solver::HostMatrix(0, 0)), 1u);
}

TEST(PreconditionerChoice, FloatAppliesForLargeDoubleSolvesOnAGpuOnly) {
  using clcg::solver::choose_preconditioner_precision;
  using clcg::reduction::ElementType;
  const auto gpu = device_info_of_type(CL_DEVICE_TYPE_GPU), cpu = device_info_of_type(CL_DEVICE_TYPE_CPU);
  const std::size_t large = clcg::solver::float_apply_from_rows;
  for (Preconditioner p : {Preconditioner::chebyshev, Preconditioner::ic0, Preconditioner::amg}) {
    EXPECT_EQ(choose_preconditioner_precision(gpu, p, ElementType::f64, large), ElementType::f32);
    EXPECT_EQ(choose_preconditioner_precision(gpu, p, ElementType::f64, large - 1), ElementType::f64);
    EXPECT_EQ(choose_preconditioner_precision(cpu, p, ElementType::f64, 100 * large), ElementType::f64);
    EXPECT_EQ(choose_preconditioner_precision(gpu, p, ElementType::f32, large), ElementType::f32);
  }
  EXPECT_EQ(choose_preconditioner_precision(gpu, Preconditioner::jacobi, ElementType::f64, 100 * large), ElementType::f64);
  clcg::solver::PreconditionerOptions blocks;  // AMG of several near-null-space vectors keeps double
  blocks.amg.block_size = 2;
  EXPECT_EQ(choose_preconditioner_precision(gpu, Preconditioner::amg, ElementType::f64, large, blocks), ElementType::f64);
  EXPECT_EQ(choose_preconditioner_precision(gpu, Preconditioner::chebyshev, ElementType::f64, large, blocks),
            ElementType::f32);
}

TEST(PreconditionerChoice, AutoResolvesThePreconditionerFirstAndKeepsPipelinedDiagonal) {
  const auto gpu = device_info_of_type(CL_DEVICE_TYPE_GPU);
  clcg::solver::Settings settings;
  settings.preconditioner = Preconditioner::automatic;
  settings.variant = CgVariant::automatic;
  const std::size_t large = 1'000'000;  // 3D: Chebyshev's
  auto resolved = clcg::solver::resolve_automatic(gpu, settings, large, 7 * large);
  EXPECT_EQ(resolved.preconditioner, Preconditioner::chebyshev);
  EXPECT_EQ(resolved.variant, clcg::solver::choose_cg_variant(gpu, large, 7 * large, settings.precision, Preconditioner::chebyshev));
  settings.variant = CgVariant::pipelined;
  resolved = clcg::solver::resolve_automatic(gpu, settings, large, 7 * large);
  EXPECT_EQ(resolved.preconditioner, Preconditioner::jacobi);
  EXPECT_EQ(resolved.variant, CgVariant::pipelined);
  settings.preconditioner = Preconditioner::ic0;  // asked for by name: left to the solver to refuse
  EXPECT_EQ(clcg::solver::resolve_automatic(gpu, settings, 10, 28).preconditioner, Preconditioner::ic0);
}

}  // namespace
