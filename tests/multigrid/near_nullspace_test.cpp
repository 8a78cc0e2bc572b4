// AMG with a near-null space: the rigid body modes against the elasticity generator, the node
// matrix and the tentative prolongator on the device against the host reference and against
// what they promise (P_tent B_c = B, orthonormal columns on each aggregate), the steps CG takes
// with the modes on small elastic bodies, and the errors for options that do not fit A.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/multigrid/device_coarsening.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"
#include "clcg/solver/problems/elasticity.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::HostCsr;
using clcg::solver::to_host_csr;
using clcg::solver::NearNullspace;
using clcg::test::test_env;

NearNullspace modes_of(const clcg::solver::ElasticBody& body) {
  return clcg::solver::rigid_body_modes(body.coordinates, body.dimensions);
}

// max |K r_j| / (max |K| max |r_j|) over the modes, in long double.
long double worst_residual(const HostCsr& k, const NearNullspace& modes) {
  long double worst = 0, k_max = 0;
  for (double v : k.values) k_max = std::max(k_max, std::abs((long double)v));
  for (std::size_t j = 0; j < modes.columns; ++j) {
    long double r_max = 0, kr_max = 0;
    for (std::size_t i = 0; i < modes.rows; ++i) r_max = std::max(r_max, std::abs((long double)modes.values[i * modes.columns + j]));
    for (std::int32_t i = 0; i < k.rows; ++i) {
      long double sum = 0;
      for (std::int32_t e = k.row_ptr[i]; e < k.row_ptr[i + 1]; ++e)
        sum += (long double)k.values[std::size_t(e)] * modes.values[std::size_t(k.col_idx[std::size_t(e)]) * modes.columns + j];
      kr_max = std::max(kr_max, std::abs(sum));
    }
    worst = std::max(worst, kr_max / (k_max * r_max));
  }
  return worst;
}

TEST(RigidBodyModes, SpanTheNullSpaceOfAFreeElasticBody) {
  const auto free2 = clcg::solver::elasticity_2d(7, 5, 0.3, false);
  const auto free3 = clcg::solver::elasticity_3d(4, 3, 5, 0.45, false);
  for (const auto* body : {&free2, &free3}) {
    SCOPED_TRACE(body->dimensions);
    const NearNullspace modes = modes_of(*body);
    ASSERT_EQ(modes.rows, std::size_t(body->stiffness.rows()));
    ASSERT_EQ(modes.columns, body->dimensions == 2 ? 3u : 6u);
    EXPECT_LT(worst_residual(to_host_csr(body->stiffness), modes), 1e-13L);
    EXPECT_NO_THROW(clcg::solver::check_near_nullspace(modes, modes.rows));
  }
  // Clamped, the body is SPD: the modes are no longer in its null space.
  const auto clamped = clcg::solver::elasticity_3d(4, 3, 5, 0.3);
  EXPECT_GT(worst_residual(to_host_csr(clamped.stiffness), modes_of(clamped)), 1e-3L);
  EXPECT_EQ(clamped.stiffness.rows(), 3 * 4 * 4 * 6);
  EXPECT_EQ(clcg::solver::check_symmetry(clamped.stiffness).symmetric, true);
}

TEST(RigidBodyModes, RejectsCoordinatesThatCannotMakeThem) {
  EXPECT_THROW(clcg::solver::rigid_body_modes(std::vector<double>{0, 1, 2}, 2), std::invalid_argument);  // 3 of 2
  EXPECT_THROW(clcg::solver::rigid_body_modes(std::vector<double>{0, 1}, 4), std::invalid_argument);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(clcg::solver::rigid_body_modes(std::vector<double>{0, 0, 1, nan}, 2), std::invalid_argument);
  // Nodes on one line in 2D span the rotation; in 3D the rotation about that line is lost.
  EXPECT_NO_THROW(clcg::solver::rigid_body_modes(std::vector<double>{0, 0, 1, 1, 2, 2}, 2));
  EXPECT_THROW(clcg::solver::rigid_body_modes(std::vector<double>{0, 0, 0, 1, 1, 1, 2, 2, 2}, 3), std::invalid_argument);
}

TEST(NearNullspaceCheck, NamesWhatIsWrong) {
  NearNullspace b{4, 2, {1, 0, 1, 1, 1, 2, 1, 3}};
  EXPECT_NO_THROW(clcg::solver::check_near_nullspace(b, 4));
  const auto message = [&](const NearNullspace& x, std::size_t rows) {
    try {
      clcg::solver::check_near_nullspace(x, rows);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(b, 5).find("4 rows but the matrix has 5"), std::string::npos) << message(b, 5);
  EXPECT_NE(message(NearNullspace{4, 0, {}}, 4).find("0 vectors"), std::string::npos);
  NearNullspace bad = b;
  bad.values[5] = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(bad, 4).find("vector 2 is not finite at row 3"), std::string::npos) << message(bad, 4);
  NearNullspace dependent{4, 3, {1, 0, 2, 1, 1, 3, 1, 2, 4, 1, 3, 5}};  // third = 2 first + second
  EXPECT_NE(message(dependent, 4).find("vector 3 is a combination"), std::string::npos) << message(dependent, 4);

  clcg::solver::AmgOptions options;
  options.block_size = 3;
  EXPECT_THROW(clcg::solver::check_block_options(options, 10), std::invalid_argument);
  EXPECT_NO_THROW(clcg::solver::check_block_options(options, 9));
  options.block_size = 0;
  EXPECT_THROW(clcg::solver::check_block_options(options, 9), std::invalid_argument);
}

// A symmetric matrix of `nodes` nodes of `block` rows with node-level neighbours (u + 1, u + 7,
// u + 31, and with `reach` all of u + 1 .. u + reach), random values.
HostCsr random_block_matrix(int nodes, int block, std::uint64_t seed, int reach = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> a(nodes * block, nodes * block);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int u = 0; u < nodes; ++u)
    for (int v = u; v < nodes && v <= u + std::max(reach, 31); ++v)
      if (v <= u + reach || v == u || v == u + 1 || v == u + 7 || v == u + 31)
        for (int i = 0; i < block; ++i)
          for (int j = 0; j < block; ++j) {
            if (v != u && (i + j + u) % 5 == 0) continue;  // some entries of a block missing
            const double x = value(rng);
            t.emplace_back(u * block + i, v * block + j, x);
            if (v != u) t.emplace_back(v * block + j, u * block + i, x);
          }
  a.setFromTriplets(t.begin(), t.end());
  return to_host_csr(a);
}

// Nodes of up to 1024 entries are taken by a group each, longer ones (reach 40 with block 6:
// ~80 neighbouring nodes of 36 entries) by one work-item: both equal the reference.
TEST(DeviceNearNullspace, NodeMatrixEqualsTheHostReference) {
  for (ElementType type : clcg::test::device_types())
    for (int block : {1, 2, 3, 6})
      for (int nodes : {0, 1, 301}) {
        SCOPED_TRACE("block " + std::to_string(block) + ", nodes " + std::to_string(nodes));
        const HostCsr a = random_block_matrix(nodes, block, std::uint64_t(nodes + block), block == 6 ? 40 : 0);
        if (block == 6 && nodes == 301) {
          int longest = 0;
          for (int u = 0; u < nodes; ++u) longest = std::max(longest, a.row_ptr[std::size_t(6 * u + 6)] - a.row_ptr[std::size_t(6 * u)]);
          EXPECT_GT(longest, 1024) << "the case must reach the one-work-item path";
        }
        const HostCsr expected = clcg::solver::node_matrix(a, block);
        clcg::solver::DeviceCoarsening coarsening(test_env(), type);
        const HostCsr got = download(test_env(), coarsening.node_matrix(DeviceCsrMatrix(test_env(), a, type), unsigned(block)));
        ASSERT_EQ(got.row_ptr, expected.row_ptr);
        ASSERT_EQ(got.col_idx, expected.col_idx);
        for (std::size_t e = 0; e < expected.values.size(); ++e)
          ASSERT_NEAR(got.values[e], expected.values[e], (type == ElementType::f64 ? 1e-14 : 1e-5) * expected.values[e]);
        // The reference against the definition: node (u, v)'s norm from A's entries directly.
        if (nodes == 301 && type == ElementType::f64) {
          long double sum = 0;
          for (int i = 0; i < block; ++i)
            for (std::int32_t e = a.row_ptr[std::size_t(7 * block + i)]; e < a.row_ptr[std::size_t(7 * block + i + 1)]; ++e)
              if (a.col_idx[std::size_t(e)] / block == 14) sum += (long double)a.values[std::size_t(e)] * a.values[std::size_t(e)];
          bool found = false;
          for (std::int32_t e = expected.row_ptr[7]; e < expected.row_ptr[8]; ++e)
            if (expected.col_idx[std::size_t(e)] == 14) {
              found = true;
              EXPECT_NEAR(expected.values[std::size_t(e)], double(std::sqrt(sum)), 1e-14);
            }
          EXPECT_TRUE(found);
        }
      }
}

// P_tent B_c reproduces B and P_tent's columns are orthonormal (aggregates are disjoint):
// checked in long double on what the device made, and the device against the host reference.
TEST(DeviceNearNullspace, TentativeProlongatorReproducesTheCandidates) {
  const auto body = clcg::solver::elasticity_3d(5, 4, 3, 0.3);
  const NearNullspace modes = modes_of(body);
  for (ElementType type : clcg::test::device_types()) {
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    const double tol = type == ElementType::f64 ? 1e-12 : 1e-4;
    const HostCsr a = to_host_csr(body.stiffness);
    clcg::solver::DeviceCoarsening coarsening(test_env(), type);
    const DeviceCsrMatrix da(test_env(), a, type);
    const clcg::solver::DeviceAggregates aggregates =
        coarsening.aggregate(coarsening.filter(coarsening.node_matrix(da, 3), 0.25));
    ASSERT_GT(aggregates.count, 1);
    ::cl::Buffer b = clcg::solver::make_vector(test_env(), type, modes.values.size()), coarse;
    clcg::solver::upload_vector(test_env(), modes.values, type, b);
    const HostCsr t = download(test_env(), coarsening.tentative_prolongator(aggregates, 3, b, 6, coarse));
    const std::vector<double> bc =
        clcg::solver::download_vector(test_env(), coarse, type, std::size_t(aggregates.count) * 36);
    ASSERT_EQ(t.cols, aggregates.count * 6);
    // P_tent B_c = B, row by row.
    long double worst = 0;
    for (std::int32_t i = 0; i < t.rows; ++i)
      for (std::size_t j = 0; j < 6; ++j) {
        long double sum = 0;
        for (std::int32_t e = t.row_ptr[i]; e < t.row_ptr[i + 1]; ++e)
          sum += (long double)t.values[std::size_t(e)] * bc[std::size_t(t.col_idx[std::size_t(e)]) * 6 + j];
        const long double want = type == ElementType::f64 ? modes.values[std::size_t(i) * 6 + j] : float(modes.values[std::size_t(i) * 6 + j]);
        worst = std::max(worst, std::abs(sum - want));
      }
    EXPECT_LT(worst, tol * 10) << "P_tent B_c != B";
    // P_tent^T P_tent = I.
    const HostCsr tt = clcg::solver::multiply(clcg::solver::transpose(t), t);
    for (std::int32_t c = 0; c < tt.rows; ++c)
      for (std::int32_t e = tt.row_ptr[c]; e < tt.row_ptr[c + 1]; ++e)
        ASSERT_NEAR(tt.values[std::size_t(e)], tt.col_idx[std::size_t(e)] == c ? 1.0 : 0.0, tol) << "column " << c;
    // The host reference on the same aggregates.
    if (type == ElementType::f64) {
      clcg::solver::Aggregates host_aggregates;
      host_aggregates.count = aggregates.count;
      host_aggregates.of_row.resize(std::size_t(aggregates.rows));
      test_env().queue().enqueueReadBuffer(aggregates.of_row, CL_TRUE, 0, host_aggregates.of_row.size() * sizeof(std::int32_t),
                                           host_aggregates.of_row.data());
      std::vector<double> expected_bc;
      const HostCsr expected = clcg::solver::tentative_prolongator(host_aggregates, 3, modes.values, 6, expected_bc);
      ASSERT_EQ(t.row_ptr, expected.row_ptr);
      ASSERT_EQ(t.col_idx, expected.col_idx);
      for (std::size_t e = 0; e < t.values.size(); ++e) ASSERT_NEAR(t.values[e], expected.values[e], 1e-12) << e;
      for (std::size_t e = 0; e < bc.size(); ++e) ASSERT_NEAR(bc[e], expected_bc[e], 1e-12 * 30) << e;
    }
  }
}

// A candidate that is a combination of the others on an aggregate leaves a zero column and a
// zero diagonal of R there, and P_tent B_c is still B.
TEST(DeviceNearNullspace, ADependentCandidateBecomesAZeroColumn) {
  clcg::solver::Aggregates aggregates;
  aggregates.count = 2;
  aggregates.of_row = {0, 0, 1, 1, 1};
  // Columns: 1, x, and on aggregate 0 a third equal to x (dependent there), independent on 1.
  const std::vector<double> b = {1, 0, 0, 1, 1, 1, 1, 2, 5, 1, 3, 1, 1, 4, 7};
  std::vector<double> bc;
  const HostCsr host = clcg::solver::tentative_prolongator(aggregates, 1, b, 3, bc);
  EXPECT_EQ(bc[2 * 3 + 2], 0.0) << "R_22 of aggregate 0";
  EXPECT_NE(bc[(3 + 2) * 3 + 2], 0.0) << "R_22 of aggregate 1";
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(host.values[i * 3 + 2], 0.0);
  for (ElementType type : clcg::test::device_types()) {
    clcg::solver::DeviceCoarsening coarsening(test_env(), type);
    clcg::solver::DeviceAggregates g;
    g.rows = 5;
    g.count = 2;
    g.of_row = clcg::solver::make_index_buffer(test_env(), 5);
    test_env().queue().enqueueWriteBuffer(g.of_row, CL_TRUE, 0, 5 * sizeof(std::int32_t), aggregates.of_row.data());
    ::cl::Buffer db = clcg::solver::make_vector(test_env(), type, b.size()), coarse;
    clcg::solver::upload_vector(test_env(), b, type, db);
    const HostCsr t = download(test_env(), coarsening.tentative_prolongator(g, 1, db, 3, coarse));
    const std::vector<double> dbc = clcg::solver::download_vector(test_env(), coarse, type, 18);
    EXPECT_EQ(dbc[2 * 3 + 2], 0.0);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        double sum = 0;
        for (std::int32_t e = t.row_ptr[i]; e < t.row_ptr[i + 1]; ++e)
          sum += t.values[std::size_t(e)] * dbc[std::size_t(t.col_idx[std::size_t(e)]) * 3 + j];
        EXPECT_NEAR(sum, b[i * 3 + j], 1e-5 * 8) << i << ", " << j;
      }
  }
}

struct Steps {
  std::size_t with_modes = 0, without = 0;
};

Steps amg_steps(const clcg::solver::ElasticBody& body) {
  const Eigen::VectorXd rhs = clcg::solver::times_ones(body.stiffness);
  clcg::solver::Settings settings;
  settings.preconditioner = clcg::solver::Preconditioner::amg;
  settings.precond_options.amg.coarse_rows = 50;  // several levels on a small body
  Steps steps;
  {
    const clcg::solver::HostSolution plain = clcg::solver::solve(test_env(), body.stiffness, rhs, settings);
    EXPECT_TRUE(plain.info.converged());
    steps.without = plain.info.iterations;
  }
  settings.precond_options.amg.block_size = body.dimensions;
  settings.precond_options.amg.near_nullspace = std::make_shared<const NearNullspace>(modes_of(body));
  const clcg::solver::HostSolution with = clcg::solver::solve(test_env(), body.stiffness, rhs, settings);
  EXPECT_TRUE(with.info.converged());
  EXPECT_LT((with.x.array() - 1).abs().maxCoeff(), 1e-5);
  const clcg::solver::HostSolution again = clcg::solver::solve(test_env(), body.stiffness, rhs, settings);
  EXPECT_EQ(again.info.iterations, with.info.iterations);
  EXPECT_TRUE(again.x == with.x) << "two set-ups with the modes differ";
  steps.with_modes = with.info.iterations;
  return steps;
}

TEST(AmgNearNullspace, TheRigidBodyModesCutTheStepsOnElasticBodies) {
  for (const auto& body : {clcg::solver::elasticity_2d(40, 40, 0.3), clcg::solver::elasticity_2d(80, 8, 0.45),
                           clcg::solver::elasticity_3d(16, 8, 8, 0.3)}) {
    const Steps steps = amg_steps(body);
    std::printf("elasticity %uD, %ld rows: %zu steps with the modes, %zu without\n", body.dimensions,
                long(body.stiffness.rows()), steps.with_modes, steps.without);
    EXPECT_LE(steps.with_modes, 40u);
    EXPECT_LT(steps.with_modes, steps.without);
  }
}

TEST(AmgNearNullspace, RejectsOptionsThatDoNotFitTheMatrix) {
  const auto body = clcg::solver::elasticity_2d(4, 3, 0.3);
  const DeviceCsrMatrix a(test_env(), to_host_csr(body.stiffness), ElementType::f64);
  clcg::solver::AmgOptions options;
  options.block_size = 3;  // 40 rows
  EXPECT_THROW(clcg::solver::AmgPreconditioner(test_env(), a, options), std::invalid_argument);
  options.block_size = 2;
  NearNullspace modes = modes_of(body);
  modes.rows -= 2;
  modes.values.resize(modes.rows * modes.columns);
  options.near_nullspace = std::make_shared<const NearNullspace>(modes);
  EXPECT_THROW(clcg::solver::AmgPreconditioner(test_env(), a, options), std::invalid_argument);
}

}  // namespace

namespace {

// A block level's products counted on the groups of k (multiply_grouped) give multiply's C: the
// same pattern, the values to rounding; and the whole hierarchy with the rigid body modes is
// the host reference's (the host multiplies plainly).
TEST(DeviceNearNullspace, GroupedProductsAndTheBlockHierarchyEqualTheReference) {
  const auto body = clcg::solver::elasticity_3d(7, 5, 4, 0.3);
  const NearNullspace modes = modes_of(body);
  const HostCsr a = to_host_csr(body.stiffness);
  for (ElementType type : clcg::test::device_types()) {
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    clcg::solver::DeviceCoarsening coarsening(test_env(), type);
    const DeviceCsrMatrix da(test_env(), a, type);
    const clcg::solver::DeviceAggregates aggregates =
        coarsening.aggregate(coarsening.filter(coarsening.node_matrix(da, 3), 0.25));
    ::cl::Buffer b = clcg::solver::make_vector(test_env(), type, modes.values.size()), coarse;
    clcg::solver::upload_vector(test_env(), modes.values, type, b);
    const DeviceCsrMatrix t = coarsening.tentative_prolongator(aggregates, 3, b, 6, coarse);
    const DeviceCsrMatrix p = coarsening.smoothed_prolongator(da, coarsening.inverse_diagonal(da), t, 0.4);
    clcg::solver::SparseProducts& products = coarsening.products();
    const DeviceCsrMatrix r = products.transpose(p);
    const DeviceCsrMatrix ap = products.multiply_grouped(da, p, 6, false, "A P");
    const DeviceCsrMatrix rap = products.multiply_grouped(r, ap, 6, true, "R (A P)");
    const HostCsr ap_ref = download(test_env(), products.multiply(da, p)), rap_ref = download(test_env(), products.multiply(r, ap));
    for (const auto& [got, want, what] : {std::tuple{download(test_env(), ap), ap_ref, "A P"},
                                          std::tuple{download(test_env(), rap), rap_ref, "R (A P)"}}) {
      SCOPED_TRACE(what);
      ASSERT_EQ(got.row_ptr, want.row_ptr);
      ASSERT_EQ(got.col_idx, want.col_idx);
      double scale = 0;
      for (double v : want.values) scale = std::max(scale, std::abs(v));
      for (std::size_t e = 0; e < want.values.size(); ++e)
        ASSERT_NEAR(got.values[e], want.values[e], (type == ElementType::f64 ? 1e-13 : 1e-5) * scale) << e;
    }
  }
  clcg::solver::AmgOptions options;
  options.coarse_rows = 40;
  options.block_size = 3;
  options.near_nullspace = std::make_shared<const NearNullspace>(modes);
  const DeviceCsrMatrix da(test_env(), a, ElementType::f64);
  clcg::solver::AmgPreconditioner device(test_env(), da, options), host(test_env(), da, a, options);
  ASSERT_GE(device.levels(), 2u);
  EXPECT_EQ(device.report().level_rows, host.report().level_rows);
  EXPECT_EQ(device.report().level_nnz, host.report().level_nnz);
  const std::size_t n = std::size_t(a.rows);
  const Eigen::VectorXd x = clcg::test::random_vector(Eigen::Index(n), 3);
  ::cl::Buffer in = clcg::solver::make_vector(test_env(), ElementType::f64, n);
  clcg::solver::upload_vector(test_env(), std::vector<double>(x.data(), x.data() + n), ElementType::f64, in);
  const auto applied = [&](clcg::solver::AmgPreconditioner& m) {
    ::cl::Buffer out = clcg::solver::make_vector(test_env(), ElementType::f64, n);
    m.apply(in, out);
    return clcg::solver::download_vector(test_env(), out, ElementType::f64, n);
  };
  const std::vector<double> z = applied(device), z_host = applied(host);
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(z_host[i])), diff = std::max(diff, std::abs(z[i] - z_host[i]));
  EXPECT_LE(diff, 1e-9 * scale);
}

}  // namespace
