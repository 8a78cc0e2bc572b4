// New values on the same pattern (time stepping, Newton): the values-only sparse products and
// transposes equal fresh ones, and an AMG hierarchy brought to new values (it keeps the strong
// connections, aggregates, P_tent and the products' patterns) gives the same bits as a set-up
// from scratch on those values, whenever the strong connections are the same on every level
// (D A D keeps them, and the nonzeros, while changing P, R and every A_c). Float and double,
// n = 0 and 1, sizes off the group size.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::HostCsr;
using clcg::solver::to_host_csr;
using clcg::test::test_env;

std::string traced(ElementType type) { return type == ElementType::f64 ? " double" : " float"; }

// The same pattern with values drawn anew (fixed seed).
HostCsr with_new_values(HostCsr m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (double& v : m.values) v = value(rng);
  return m;
}

std::vector<double> applied(clcg::solver::DevicePreconditioner& m, ElementType type, std::size_t n) {
  const Eigen::VectorXd r = clcg::test::random_vector(Eigen::Index(n), 11);
  ::cl::Buffer in = clcg::solver::make_vector(test_env(), type, n), out = clcg::solver::make_vector(test_env(), type, n);
  clcg::solver::upload_vector(test_env(), std::vector<double>(r.data(), r.data() + n), type, in);
  m.apply(in, out);
  return clcg::solver::download_vector(test_env(), out, type, n);
}

TEST(DeviceSparseProduct, ValuesOnlyProductsAndTransposesEqualFreshOnes) {
  for (ElementType type : clcg::test::device_types())
    for (const auto& [m, k, n] : {std::tuple{0, 0, 0}, std::tuple{1, 1, 1}, std::tuple{157, 93, 71}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + traced(type));
      const HostCsr a = to_host_csr(clcg::test::ragged_matrix(m, k, 20, 3 + m));
      const HostCsr b = to_host_csr(clcg::test::ragged_matrix(k, n, 9, 4 + m));
      clcg::solver::SparseProducts products(test_env(), type);
      const DeviceCsrMatrix da(test_env(), a, type), db(test_env(), b, type);
      DeviceCsrMatrix c = products.multiply(da, db), t = products.transpose(da);
      const DeviceCsrMatrix da2(test_env(), with_new_values(a, 5), type), db2(test_env(), with_new_values(b, 6), type);
      products.multiply_values(da2, db2, c);
      products.transpose_values(da2, t);
      const HostCsr fresh_c = download(test_env(), products.multiply(da2, db2)), fresh_t = download(test_env(), products.transpose(da2));
      const HostCsr got_c = download(test_env(), c), got_t = download(test_env(), t);
      EXPECT_EQ(got_c.row_ptr, fresh_c.row_ptr);
      EXPECT_EQ(got_c.col_idx, fresh_c.col_idx);
      EXPECT_EQ(got_c.values, fresh_c.values);
      EXPECT_EQ(got_t.col_idx, fresh_t.col_idx);
      EXPECT_EQ(got_t.values, fresh_t.values);
      if (m != n) {
        EXPECT_THROW(products.multiply_values(da2, db2, t), std::invalid_argument);  // not A B's shape
      }
    }
}

TEST(AmgNewValues, AnUpdatedHierarchyGivesAFreshSetUpsBits) {
  const double strong = clcg::solver::AmgOptions{}.strength;
  // Strength 0 keeps every nonzero (A_f is A on every level: on meshes the default's coarse
  // strong connections move with the values); the default drops the weak entries of a random
  // diagonally dominant matrix (A_f is not A), which D A D keeps weak.
  // One level of more rows than the coarse factor takes: a Chebyshev coarse solve.
  const std::vector<std::tuple<std::string, clcg::solver::HostMatrix, double, std::size_t>> cases{
      {"2D Poisson 37 x 29", clcg::test::poisson(37, 29), 0.0, 20},
      {"3D Poisson 9 x 8 x 7", clcg::test::poisson(9, 8, 7), 0.0, 20},
      {"random diagonally dominant 301, default strength", clcg::test::random_dd_spd(301, 9, 5), strong, 20},
      {"2D Poisson 50 x 43, one level", clcg::test::poisson(50, 43), 0.0, 1},
      {"1 x 1", clcg::test::poisson(1, 1), 0.0, 20},
      {"0 x 0", clcg::solver::HostMatrix(0, 0), 0.0, 20}};
  for (ElementType type : clcg::test::device_types())
    for (const auto& [name, a, strength, levels] : cases) {
      SCOPED_TRACE(name + traced(type));
      clcg::solver::AmgOptions options;
      options.coarse_rows = 40;  // several levels on small grids
      options.strength = strength;
      options.max_levels = levels;
      const std::size_t n = std::size_t(a.rows());
      const DeviceCsrMatrix before(test_env(), to_host_csr(a), type);
      const DeviceCsrMatrix after(test_env(), to_host_csr(clcg::test::scaled_symmetrically(a, 9)), type);
      clcg::solver::AmgPreconditioner updated(test_env(), before, options), fresh(test_env(), after, options);
      const std::vector<double> z_before = applied(updated, type, n);
      ASSERT_TRUE(updated.update_values(after));
      EXPECT_EQ(updated.report().level_rows, fresh.report().level_rows);
      EXPECT_EQ(updated.report().level_nnz, fresh.report().level_nnz);
      const std::vector<double> z = applied(updated, type, n);
      EXPECT_EQ(z, applied(fresh, type, n)) << "the update differs from a fresh set-up";
      if (n > 1) {
        EXPECT_NE(z, z_before) << "the new values changed nothing";
      }
      // A second update, back to the first values: the first set-up's bits.
      ASSERT_TRUE(updated.update_values(before));
      EXPECT_EQ(applied(updated, type, n), z_before) << "the update back differs from the first set-up";
    }
}

// A P with 64-bit row offsets on every level (forced from the first nonzero; on a GPU from
// 2^31 - 1, ~630^3 of 3D Poisson) gives the 32-bit hierarchy's bits, set up and updated.
TEST(AmgWideOffsets, ForcedWideAPGivesTheSameBits) {
  const std::vector<std::pair<std::string, clcg::solver::HostMatrix>> cases{
      {"2D Poisson 37 x 29", clcg::test::poisson(37, 29)},
      {"3D Poisson 9 x 8 x 7", clcg::test::poisson(9, 8, 7)},
      {"random diagonally dominant 301", clcg::test::random_dd_spd(301, 9, 5)}};
  for (ElementType type : clcg::test::device_types())
    for (const auto& [name, a] : cases) {
      SCOPED_TRACE(name + traced(type));
      clcg::solver::AmgOptions narrow, wide;
      narrow.coarse_rows = wide.coarse_rows = 40;  // several levels
      wide.wide_offsets_from = 0;
      const std::size_t n = std::size_t(a.rows());
      const DeviceCsrMatrix da(test_env(), to_host_csr(a), type);
      clcg::solver::AmgPreconditioner m32(test_env(), da, narrow), m64(test_env(), da, wide);
      ASSERT_GE(m64.report().level_rows.size(), 2u) << "the case must have a coarse level";
      EXPECT_EQ(m64.report().level_nnz, m32.report().level_nnz);
      EXPECT_EQ(applied(m64, type, n), applied(m32, type, n)) << "set up";
      const DeviceCsrMatrix scaled(test_env(), to_host_csr(clcg::test::scaled_symmetrically(a, 9)), type);
      ASSERT_TRUE(m32.update_values(scaled));
      ASSERT_TRUE(m64.update_values(scaled));
      EXPECT_EQ(applied(m64, type, n), applied(m32, type, n)) << "updated";
    }
}

TEST(AmgNewValues, AnotherPatternIsRefusedAndTheHostReferenceSetsUpAnew) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(20, 17);
  const DeviceCsrMatrix da(test_env(), to_host_csr(a), ElementType::f32);
  const DeviceCsrMatrix other(test_env(), to_host_csr(clcg::test::poisson(17, 20, 2)), ElementType::f32);
  clcg::solver::AmgPreconditioner device(test_env(), da, {});
  EXPECT_THROW(device.update_values(other), std::invalid_argument);
  clcg::solver::AmgPreconditioner host(test_env(), da, to_host_csr(a), {});
  EXPECT_FALSE(host.update_values(da));
}

// refresh_preconditioner: AMG (also applied in float for a double solve) is updated in place;
// Jacobi, which keeps nothing worth keeping, is set up anew; both give a fresh set-up's bits.
TEST(AmgNewValues, RefreshUpdatesAmgInPlaceAndSetsJacobiUpAnew) {
  if (!clcg::test::device_has_fp64()) GTEST_SKIP() << "the mixed-precision case needs a double solve (no fp64 here)";
  const clcg::solver::HostMatrix a = clcg::test::poisson(31, 23);
  const std::size_t n = std::size_t(a.rows());
  const HostCsr scaled = to_host_csr(clcg::test::scaled_symmetrically(a, 3));
  DeviceCsrMatrix da(test_env(), to_host_csr(a), ElementType::f64);
  const DeviceCsrMatrix fresh_a(test_env(), scaled, ElementType::f64);
  for (const auto p : {clcg::solver::Preconditioner::amg, clcg::solver::Preconditioner::jacobi}) {
    SCOPED_TRACE(clcg::solver::preconditioner_name(p));
    clcg::solver::PreconditionerOptions options;
    if (p == clcg::solver::Preconditioner::amg) options.precision = ElementType::f32;
    DeviceCsrMatrix a_now(test_env(), to_host_csr(a), ElementType::f64);
    auto m = clcg::solver::make_preconditioner(test_env(), a_now, nullptr, p, options);
    a_now.upload_values(test_env(), scaled.values);
    auto refreshed = clcg::solver::refresh_preconditioner(test_env(), m, a_now, nullptr, p, options);
    EXPECT_EQ(refreshed == m, p == clcg::solver::Preconditioner::amg);
    EXPECT_GT(refreshed->report().setup_seconds, 0.0);
    auto fresh = clcg::solver::make_preconditioner(test_env(), fresh_a, nullptr, p, options);
    EXPECT_EQ(applied(*refreshed, ElementType::f64, n), applied(*fresh, ElementType::f64, n));
  }
}

}  // namespace
