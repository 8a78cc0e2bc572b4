// Row partitions over ranks (cuts on dot-chunk boundaries) and rank-local Poisson rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "support/threads_variable.hpp"

namespace {

using namespace clcg::distributed;

TEST(Partition, ChunkDependsOnTheGlobalSizeOnly) {
  EXPECT_EQ(dot_chunk(0), 32);
  EXPECT_EQ(dot_chunk(4096 * 32), 32);
  EXPECT_EQ(dot_chunk(4096 * 32 + 1), 64);
  EXPECT_EQ(dot_chunk(std::int64_t(1) << 30), std::int64_t(1) << 18);
}

TEST(Partition, BalancesNonzerosOnChunkBoundaries) {
  // 1000 rows: the first 100 hold 10 nonzeros each, the rest 1.
  std::vector<std::int64_t> row_ptr{0};
  for (int i = 0; i < 1000; ++i) row_ptr.push_back(row_ptr.back() + (i < 100 ? 10 : 1));
  const Partition p = balanced_partition(row_ptr, 4);
  ASSERT_EQ(p.ranks(), 4);
  EXPECT_EQ(p.offsets.front(), 0);
  EXPECT_EQ(p.offsets.back(), 1000);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(p.begin(r) % p.chunk, 0) << r;
  // the heavy rows are split thinly: rank 0 takes fewer rows than an even split
  EXPECT_LT(p.size(0), 250);
  EXPECT_EQ(p.owner(0), p.size(0) > 0 ? 0 : 1);
  EXPECT_EQ(p.owner(999), 3);
}

TEST(Partition, MoreRanksThanChunksLeavesRanksEmpty) {
  const Partition p = uniform_partition(40, 5);  // two chunks of 32 for five ranks
  std::int64_t total = 0;
  int empty = 0;
  for (int r = 0; r < 5; ++r) {
    total += p.size(r);
    empty += p.size(r) == 0;
  }
  EXPECT_EQ(total, 40);
  EXPECT_GE(empty, 3);
}

TEST(Partition, ExplicitCutsAreChecked) {
  EXPECT_EQ(explicit_partition(100, 3, {32, 96}).offsets, (std::vector<std::int64_t>{0, 32, 96, 100}));
  EXPECT_EQ(explicit_partition(100, 2, {100}).offsets, (std::vector<std::int64_t>{0, 100, 100}));
  EXPECT_THROW(explicit_partition(100, 3, {32}), std::invalid_argument);      // one cut short
  EXPECT_THROW(explicit_partition(100, 3, {64, 32}), std::invalid_argument);  // decreasing
  EXPECT_THROW(explicit_partition(100, 2, {33}), std::invalid_argument);      // off a chunk boundary
  EXPECT_THROW(explicit_partition(100, 2, {128}), std::invalid_argument);     // past the end
  EXPECT_EQ(parse_cuts("32,64"), (std::vector<std::int64_t>{32, 64}));
  EXPECT_TRUE(parse_cuts("").empty());
  EXPECT_THROW(parse_cuts("32,,64"), std::invalid_argument);
  EXPECT_THROW(parse_cuts("-32"), std::invalid_argument);
  EXPECT_THROW(parse_cuts("3x"), std::invalid_argument);
}

// The rank-local rows are exactly the one-device generator's matrix, cut anywhere.
void expect_same_rows(int dimensions, int nx, int ny, int nz) {
  const clcg::solver::HostMatrix whole =
      dimensions == 3 ? clcg::solver::poisson_3d(nx, ny, nz) : clcg::solver::poisson_2d(nx, ny);
  const std::int64_t n = whole.rows();
  for (std::int64_t begin : {std::int64_t(0), n / 3, n - 1}) {
    const std::int64_t end = std::min(n, begin + n / 2 + 1);
    const LocalRows rows = poisson_rows(dimensions, nx, ny, nz, begin, end);
    ASSERT_EQ(rows.rows(), end - begin);
    for (std::int64_t i = begin; i < end; ++i) {
      std::int64_t j = rows.row_ptr[std::size_t(i - begin)];
      for (clcg::solver::HostMatrix::InnerIterator it(whole, Eigen::Index(i)); it; ++it, ++j) {
        ASSERT_LT(j, rows.row_ptr[std::size_t(i - begin) + 1]) << "row " << i;
        EXPECT_EQ(rows.col[std::size_t(j)], it.col());
        EXPECT_EQ(rows.values[std::size_t(j)], it.value());
      }
      EXPECT_EQ(j, rows.row_ptr[std::size_t(i - begin) + 1]) << "row " << i;
    }
    const std::vector<double> diagonal = rows.diagonal();
    for (double d : diagonal) EXPECT_EQ(d, dimensions == 3 ? 6.0 : 4.0);
  }
}

// A block system's nodes stay whole: every cut a multiple of the chunk and of the node size.
TEST(Partition, NodesAreNeverSplit) {
  const std::int64_t rows = 3 * 1000;  // chunk 32: cuts on multiples of 96
  for (int ranks : {2, 3, 7}) {
    const std::vector<std::int64_t> row_ptr = [&] {
      std::vector<std::int64_t> v(std::size_t(rows) + 1);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int64_t(i * i % 7 + 5 * i);  // rising, uneven
      return v;
    }();
    for (const Partition& p : {uniform_partition(rows, ranks, 3), balanced_partition(row_ptr, ranks, 3)}) {
      EXPECT_EQ(p.offsets.back(), rows);
      for (std::int64_t cut : p.offsets) EXPECT_EQ(cut % 3, 0) << cut << " of " << ranks << " ranks";
      for (std::size_t r = 1; r + 1 < p.offsets.size(); ++r) EXPECT_EQ(p.offsets[r] % 96, 0);
    }
  }
  EXPECT_EQ(explicit_partition(rows, 2, {96}, 3).offsets, (std::vector<std::int64_t>{0, 96, rows}));
  EXPECT_THROW(explicit_partition(rows, 2, {64}, 3), std::invalid_argument);  // on a chunk, inside a node
}

TEST(LocalRows, PoissonRowsMatchTheOneDeviceGenerator) {
  expect_same_rows(3, 5, 4, 3);
  expect_same_rows(2, 7, 3, 1);
  expect_same_rows(3, 1, 1, 1);
}

// The same arrays on one thread and on several (past a thread's 65536 rows: the offsets'
// running sums made by ranges, then joined).
TEST(LocalRows, PoissonRowsAreTheSameOnAnyThreadCount) {
  const auto generated = [](const char* threads) {
    const clcg::test::ThreadsVariable scope(threads);
    return poisson_rows(3, 61, 64, 53, 1000, 61 * 64 * 53 - 7);  // 206,905 rows
  };
  const LocalRows one = generated("1");
  for (const char* threads : {"3", "4"}) {
    const LocalRows several = generated(threads);
    EXPECT_EQ(several.row_ptr, one.row_ptr) << threads << " threads";
    EXPECT_EQ(several.col, one.col) << threads << " threads";
    EXPECT_EQ(several.values, one.values) << threads << " threads";
  }
  EXPECT_EQ(one.row_ptr.front(), 0);
  EXPECT_EQ(one.nnz(), std::int64_t(one.col.size()));
}

// Entries left pending (the AMG set-up's upload makes them): the offsets and b = A 1 made now,
// the entries by make() or make_entries exactly as the generator makes them, on any thread count.
TEST(LocalRows, PendingEntriesAreTheGeneratorsOnAnyThreadCount) {
  clcg::solver::BulkVector<double> sums_made, sums_pending;
  const LocalRows made = poisson_rows(3, 61, 64, 53, 1000, 61 * 64 * 53 - 7, &sums_made);  // 206,905 rows
  for (const char* threads : {"1", "3"}) {
    const clcg::test::ThreadsVariable scope(threads);
    LocalRows pending = poisson_rows(3, 61, 64, 53, 1000, 61 * 64 * 53 - 7, &sums_pending, true);
    ASSERT_TRUE(pending.entries_pending());
    EXPECT_TRUE(pending.col.empty());
    EXPECT_TRUE(pending.values.empty());
    EXPECT_EQ(pending.row_ptr, made.row_ptr) << threads << " threads";
    EXPECT_EQ(sums_pending, sums_made) << threads << " threads";
    EXPECT_THROW((void)pending.row_sums(), std::logic_error);
    EXPECT_THROW((void)pending.diagonal(), std::logic_error);
    // rows 5..9 alone, from their first entry, as distances from column 3000; from column 2^32
    // they do not fit 32 bits
    const std::size_t first = std::size_t(made.row_ptr[5]), count = std::size_t(made.row_ptr[9]) - first;
    std::vector<std::int32_t> col(count);
    std::vector<double> values(count);
    EXPECT_TRUE(pending.make_entries(5, 9, 3000, col.data(), values.data()));
    for (std::size_t k = 0; k < count; ++k) EXPECT_EQ(3000 + col[k], made.col[first + k]) << "entry " << k;
    EXPECT_TRUE(std::equal(values.begin(), values.end(), made.values.begin() + std::ptrdiff_t(first)));
    EXPECT_FALSE(pending.make_entries(5, 9, std::int64_t(1) << 32, col.data(), values.data()));
    pending.make();
    EXPECT_FALSE(pending.entries_pending());
    EXPECT_EQ(pending.col, made.col) << threads << " threads";
    EXPECT_EQ(pending.values, made.values) << threads << " threads";
    const std::vector<double> sums_after = pending.row_sums();
    EXPECT_EQ(std::vector<double>(sums_made.begin(), sums_made.end()), sums_after);
  }
}

TEST(LocalRows, RowSumsAreAOnes) {
  const LocalRows rows = poisson_rows(2, 3, 3, 1, 0, 9);
  const std::vector<double> sums = rows.row_sums();
  EXPECT_EQ(sums[0], 2.0);  // corner: 4 - 1 - 1
  EXPECT_EQ(sums[4], 0.0);  // centre
  for (const int dimensions : {2, 3}) {  // made with the rows: the same bits
    clcg::solver::BulkVector<double> made;
    const LocalRows more = poisson_rows(dimensions, 7, 6, dimensions == 3 ? 5 : 1, 11, dimensions == 3 ? 200 : 40, &made);
    const std::vector<double> sums_after = more.row_sums();
    EXPECT_EQ(std::vector<double>(made.begin(), made.end()), sums_after) << dimensions << "D";
  }
  EXPECT_THROW(poisson_rows(4, 2, 2, 2, 0, 8), std::invalid_argument);
  EXPECT_THROW(poisson_rows(3, 2, 2, 2, 0, 9), std::invalid_argument);
}

}  // namespace
