// DistributedCg's library forms under mpirun (1 to 4 ranks, in the hierarchy test's executable
// and main): the span form writes x in place (an unset BulkVector) with the vector form's bits,
// b and x are read back whole, and wrong sizes are refused before any rank communicates; new
// values (update_values) give a fresh set-up's bits, AMG keeping its aggregates.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <span>
#include <stdexcept>
#include <vector>

#include "clcg/solver/distributed/distributed_amg.hpp"
#include "clcg/solver/distributed/distributed_cg.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/io/bulk_vector.hpp"
#include "support/device_fixture.hpp"

namespace {

namespace dist = clcg::distributed;
namespace solver = clcg::solver;

TEST(DistributedCg, SpanAndVectorFormsGiveTheSameBits) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::int64_t nx = 9, ny = 10, nz = 11;  // 990 rows: no rank's share a multiple of a work-group
  const dist::Partition partition = dist::uniform_partition(nx * ny * nz, ranks);
  const std::int64_t begin = partition.begin(rank), rows = partition.size(rank);
  for (const solver::ElementType type : {solver::ElementType::f64, solver::ElementType::f32}) {
    SCOPED_TRACE(type == solver::ElementType::f64 ? "double" : "float");
    dist::LocalRows local = dist::poisson_rows(3, nx, ny, nz, begin, begin + rows);
    const std::vector<double> b = local.row_sums();
    solver::Settings settings;
    settings.preconditioner = solver::Preconditioner::jacobi;
    settings.tolerance = type == solver::ElementType::f64 ? 1e-10 : 1e-5;
    dist::DistributedCg cg(MPI_COMM_WORLD, clcg::test::test_env(), partition, std::move(local), type, settings);

    std::vector<double> by_vector;
    const solver::SolveInfo first = cg.solve(b, by_vector, false);
    ASSERT_TRUE(first.converged()) << first.message;
    ASSERT_EQ(by_vector.size(), std::size_t(rows));

    solver::BulkVector<double> in_place(static_cast<std::size_t>(rows));
    for (double& v : in_place) v = std::numeric_limits<double>::quiet_NaN();  // all overwritten
    const solver::SolveInfo second = cg.solve(b, std::span<double>(in_place), false);
    EXPECT_EQ(second.iterations, first.iterations);
    EXPECT_EQ(second.true_residual, first.true_residual);
    for (std::size_t i = 0; i < by_vector.size(); ++i) ASSERT_EQ(in_place[i], by_vector[i]) << "row " << begin + i;
    // The guess is read from the span: from a far one a solve takes about as many steps as from
    // 0 (the device still holds the answer), from the answer few.
    std::vector<double> far(std::size_t(rows), 1e3);
    const solver::SolveInfo from_far = cg.solve(b, std::span<double>(far), true);
    EXPECT_GT(from_far.iterations, first.iterations / 2);
    const solver::SolveInfo guessed = cg.solve(b, std::span<double>(in_place), true);
    EXPECT_LT(guessed.iterations, first.iterations / 2);
    // Sizes: every rank gives the same wrong sizes, so every rank throws before communicating.
    std::vector<double> short_x(std::size_t(rows) + 1);
    EXPECT_THROW(cg.solve(b, std::span<double>(short_x), false), std::invalid_argument);
    EXPECT_THROW(cg.solve(std::span<const double>(b).first(b.size() / 2), std::span<double>(in_place), false),
                 std::invalid_argument);  // (every rank holds rows here)
  }
}

// D A D for D keyed on the global row (entries in [1, 2), multiples of 1/8: the same on any
// partition): new values that keep A SPD and its strong connections, so that a fresh set-up
// aggregates as the first did.
dist::LocalRows scaled_symmetrically(dist::LocalRows a) {
  const auto d = [](std::int64_t row) { return 1.0 + double((std::uint64_t(row) * 2654435761u >> 7) % 8) / 8; };
  for (std::int64_t i = 0; i < a.rows(); ++i)
    for (std::int64_t e = a.row_ptr[std::size_t(i)]; e < a.row_ptr[std::size_t(i) + 1]; ++e)
      a.values[std::size_t(e)] *= d(a.row_begin + i) * d(a.col[std::size_t(e)]);
  return a;
}

// The 7-point Laplacian's pattern with the z couplings 100 times weaker: the default strength
// drops them, so aggregating it afresh gives other aggregates than the Laplacian's.
dist::LocalRows anisotropic(dist::LocalRows a, std::int64_t plane) {
  for (std::int64_t i = 0; i < a.rows(); ++i)
    for (std::int64_t e = a.row_ptr[std::size_t(i)]; e < a.row_ptr[std::size_t(i) + 1]; ++e) {
      const std::int64_t offset = a.col[std::size_t(e)] - (a.row_begin + i);
      double& v = a.values[std::size_t(e)];
      v = offset == 0 ? 4.02 : offset == plane || offset == -plane ? -0.01 : v;
    }
  return a;
}

struct Solved {
  solver::SolveInfo info;
  std::vector<double> x;
};
Solved solved(dist::DistributedCg& cg, const dist::LocalRows& a) {
  Solved s;
  s.info = cg.solve(a.row_sums(), s.x, false);
  return s;
}

// This rank's rows of the 7-point Laplacian on nx x ny x nz, the grid split evenly over the ranks.
struct RanksGrid {
  dist::Partition partition;
  std::int64_t begin = 0, end = 0;
  dist::LocalRows rows;
};
RanksGrid ranks_grid(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  RanksGrid g;
  g.partition = dist::uniform_partition(nx * ny * nz, ranks);
  g.begin = g.partition.begin(rank);
  g.end = g.begin + g.partition.size(rank);
  g.rows = dist::poisson_rows(3, nx, ny, nz, g.begin, g.end);
  return g;
}

TEST(DistributedCg, NewValuesGiveAFreshSetUpsBits) {
  const std::int64_t nx = 9, ny = 10, nz = 11;
  const RanksGrid grid = ranks_grid(nx, ny, nz);
  const dist::Partition& partition = grid.partition;
  const dist::LocalRows& a = grid.rows;
  const dist::LocalRows dad = scaled_symmetrically(a);
  for (const solver::ElementType type : {solver::ElementType::f64, solver::ElementType::f32})
    for (const solver::Preconditioner precond :
         {solver::Preconditioner::amg, solver::Preconditioner::jacobi, solver::Preconditioner::chebyshev}) {
      SCOPED_TRACE(std::string(type == solver::ElementType::f64 ? "double, " : "float, ") +
                   std::string(solver::preconditioner_name(precond)));
      solver::Settings settings;
      settings.preconditioner = precond;
      settings.tolerance = type == solver::ElementType::f64 ? 1e-10 : 1e-5;
      solver::PreconditionerOptions options;
      options.amg.strength = 0;       // every entry strong: D A D aggregates as A (the joins are keyed on rows)
      options.amg.coarse_rows = 40;   // several distributed levels,
      options.amg.gather_rows = 0;    // then the last gathered (its one-device AMG updated in place)
      dist::DistributedCg updated(MPI_COMM_WORLD, clcg::test::test_env(), partition, a, type, settings, options);
      dist::DistributedCg fresh(MPI_COMM_WORLD, clcg::test::test_env(), partition, dad, type, settings, options);
      const Solved first = solved(updated, a);
      ASSERT_TRUE(first.info.converged()) << first.info.message;
      updated.update_values(dad);
      EXPECT_GE(updated.update_seconds(), 0.0);
      if (updated.amg()) {
        EXPECT_EQ(updated.amg()->level_rows(), fresh.amg()->level_rows());
        EXPECT_EQ(updated.amg()->level_nnz(), fresh.amg()->level_nnz());
        EXPECT_GE(updated.amg()->distributed_levels(), 2u);
      }
      const Solved after = solved(updated, dad), want = solved(fresh, dad);
      ASSERT_TRUE(want.info.converged()) << want.info.message;
      EXPECT_EQ(after.info.iterations, want.info.iterations);
      EXPECT_EQ(after.info.true_residual, want.info.true_residual);
      EXPECT_EQ(after.x, want.x) << "the update differs from a fresh set-up on the new values";
      EXPECT_NE(after.x, first.x) << "the new values changed nothing";
      // Back to the first values: the first set-up's bits.
      updated.update_values(a);
      const Solved back = solved(updated, a);
      EXPECT_EQ(back.info.iterations, first.info.iterations);
      EXPECT_EQ(back.x, first.x) << "the update back differs from the first set-up";
      // Rows of another matrix (every rank's differ): refused on every rank, the solver unchanged.
      EXPECT_THROW(updated.update_values(dist::poisson_rows(3, nx, ny, nz + 1, grid.begin, grid.end)), std::invalid_argument);
      EXPECT_EQ(solved(updated, a).x, first.x);
    }
}

// Where the CG reads A in ELL, the AMG's finest level reads its columns (values converted to the
// hierarchy's precision, or copied where it has the solve's): the bits of the CSR rows, before
// and after new values; the hierarchy's own bytes less the shared columns.
TEST(DistributedCg, AmgOnTheCgsEllColumnsGivesTheCsrBits) {
  const RanksGrid grid = ranks_grid(9, 10, 11);
  const dist::LocalRows dad = scaled_symmetrically(grid.rows);
  for (const solver::ElementType type : {solver::ElementType::f64, solver::ElementType::f32}) {
    SCOPED_TRACE(type == solver::ElementType::f64 ? "double (AMG in float)" : "float");
    solver::Settings settings;
    settings.preconditioner = solver::Preconditioner::amg;
    settings.tolerance = type == solver::ElementType::f64 ? 1e-10 : 1e-5;
    solver::PreconditionerOptions options;
    options.amg.strength = 0;
    options.amg.coarse_rows = 40;
    options.amg.gather_rows = 0;
    settings.spmv = solver::SpmvKernel::scalar;
    dist::DistributedCg csr(MPI_COMM_WORLD, clcg::test::test_env(), grid.partition, grid.rows, type, settings, options);
    settings.spmv = solver::SpmvKernel::ell;
    dist::DistributedCg ell(MPI_COMM_WORLD, clcg::test::test_env(), grid.partition, grid.rows, type, settings, options);
    const Solved want = solved(csr, grid.rows), got = solved(ell, grid.rows);
    ASSERT_TRUE(want.info.converged()) << want.info.message;
    EXPECT_EQ(got.info.iterations, want.info.iterations);
    EXPECT_EQ(got.x, want.x);
    // The finest level's bytes: its CSR arrays against its ELL values alone (its columns are the
    // CG's; 7 slots a row: the grid's interior rows are the longest).
    const std::uint64_t n = std::uint64_t(grid.end - grid.begin), nnz = std::uint64_t(grid.rows.nnz());
    const std::uint64_t e = ell.amg()->precision() == solver::ElementType::f64 ? 8 : 4;
    EXPECT_EQ(csr.amg()->device_bytes() - ell.amg()->device_bytes(), (n + 1) * 4 + nnz * (4 + e) - n * 7 * e)
        << "the shared columns counted as the AMG's";
    csr.update_values(dad);
    ell.update_values(dad);
    EXPECT_EQ(solved(ell, dad).x, solved(csr, dad).x) << "after new values";
  }
}

TEST(DistributedCg, NewValuesKeepTheAmgAggregates) {
  const std::int64_t nx = 12, ny = 11, nz = 10;
  const RanksGrid grid = ranks_grid(nx, ny, nz);
  const dist::Partition& partition = grid.partition;
  const dist::LocalRows& a = grid.rows;
  const dist::LocalRows weak_z = anisotropic(a, nx * ny);
  solver::Settings settings;
  settings.preconditioner = solver::Preconditioner::amg;
  settings.tolerance = 1e-10;
  solver::PreconditionerOptions options;  // the default strength
  options.amg.coarse_rows = 40;
  options.amg.gather_rows = 0;
  dist::DistributedCg updated(MPI_COMM_WORLD, clcg::test::test_env(), partition, a, solver::ElementType::f64, settings,
                              options);
  dist::DistributedCg fresh(MPI_COMM_WORLD, clcg::test::test_env(), partition, weak_z, solver::ElementType::f64,
                            settings, options);
  const std::vector<std::int64_t> levels = updated.amg()->level_rows();
  ASSERT_NE(fresh.amg()->level_rows(), levels) << "the case needs other aggregates for the new values";
  updated.update_values(weak_z);
  EXPECT_EQ(updated.amg()->level_rows(), levels) << "the update aggregated anew";
  const Solved s = solved(updated, weak_z);
  EXPECT_TRUE(s.info.converged()) << s.info.message;
  EXPECT_LT(s.info.true_residual, 1e-9);
}

}  // namespace
