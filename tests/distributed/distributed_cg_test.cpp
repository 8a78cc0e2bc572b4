// DistributedCg's library forms under mpirun (1 to 4 ranks, in the hierarchy test's executable
// and main): the span form writes x in place (an unset BulkVector) with the vector form's bits,
// b and x are read back whole, and wrong sizes are refused before any rank communicates.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

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

}  // namespace
