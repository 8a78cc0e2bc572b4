// cl::parallel_ranges: the pieces cover [0, n) exactly once, whatever n and the grain, and an
// exception thrown in a piece reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "clcg/cl/host_threads.hpp"

namespace {

TEST(ParallelRanges, CoversEveryIndexExactlyOnce) {
  for (const std::size_t n : {0u, 1u, 9u, 10u, 21u, 100000u}) {
    SCOPED_TRACE(n);
    std::vector<std::atomic<int>> seen(n);
    clcg::cl::parallel_ranges(n, 5, [&](std::size_t begin, std::size_t end) {
      ASSERT_LE(begin, end);
      ASSERT_LE(end, n);
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i;
  }
}

TEST(ParallelRanges, ASmallRangeRunsAsOnePiece) {
  int pieces = 0;
  clcg::cl::parallel_ranges(9, 5, [&](std::size_t begin, std::size_t end) {
    ++pieces;
    EXPECT_EQ(begin, 0u);
    EXPECT_EQ(end, 9u);
  });
  EXPECT_EQ(pieces, 1);
}

TEST(ParallelRanges, AnExceptionInAPieceReachesTheCaller) {
  // Every piece throws: the calling thread's and, where the host has several cores, the others'.
  EXPECT_THROW(clcg::cl::parallel_ranges(1 << 20, 1, [](std::size_t, std::size_t) { throw std::runtime_error("piece"); }),
               std::runtime_error);
}

}  // namespace
