// clcg::distributed::sorted_distinct and sorted_distinct_below against std::set on the same
// ids: sorted input, random input with repeats on 1 and several threads (sizes past the threads'
// grain, odd part counts, universes not a multiple of 64), the empty list and one id, and an id
// outside the universe refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "clcg/solver/distributed/sorted_ids.hpp"
#include "support/threads_variable.hpp"

namespace {

using clcg::distributed::sorted_distinct;
using clcg::distributed::sorted_distinct_below;

std::vector<std::int64_t> reference(const std::vector<std::int64_t>& ids) {
  const std::set<std::int64_t> s(ids.begin(), ids.end());
  return {s.begin(), s.end()};
}

std::vector<std::int64_t> random_ids(std::size_t n, std::int64_t range, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> id(-range, range);  // (negative: distances below a rank's first)
  std::vector<std::int64_t> v(n);
  for (std::int64_t& x : v) x = id(rng);
  return v;
}

TEST(SortedDistinct, EqualsASetOnRandomIdsOnAnyThreadCount) {
  for (const char* threads : {"1", "3", "7"}) {
    const clcg::test::ThreadsVariable scope(threads);
    for (const std::size_t n : {std::size_t(1000), std::size_t(3) * 65536 + 17, std::size_t(7) * 65536 + 5}) {
      const std::vector<std::int64_t> ids = random_ids(n, std::int64_t(n) / 3, unsigned(n));
      EXPECT_EQ(sorted_distinct(ids), reference(ids)) << n << " ids on " << threads << " threads";
    }
  }
}

TEST(SortedDistinct, SortedInputKeepsOneOfEach) {
  std::vector<std::int64_t> ids = random_ids(200003, 50000, 5);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(sorted_distinct(ids), reference(ids));
}

TEST(SortedDistinct, EmptyAndOne) {
  EXPECT_TRUE(sorted_distinct({}).empty());
  EXPECT_EQ(sorted_distinct({42}), std::vector<std::int64_t>{42});
  EXPECT_EQ(sorted_distinct({7, 7, 7}), std::vector<std::int64_t>{7});
}

TEST(SortedDistinctBelow, EqualsASetOnRandomIdsOnAnyThreadCount) {
  for (const char* threads : {"1", "3", "7"}) {
    const clcg::test::ThreadsVariable scope(threads);
    for (const std::size_t n : {std::size_t(1000), std::size_t(3) * 65536 + 17, std::size_t(7) * 65536 + 5}) {
      const std::int64_t universe = std::int64_t(n) / 3 * 2 + 1;  // (ids from -n/3 .. n/3, shifted)
      std::vector<std::int64_t> ids = random_ids(n, std::int64_t(n) / 3, unsigned(n) + 1);
      for (std::int64_t& id : ids) id += std::int64_t(n) / 3;
      EXPECT_EQ(sorted_distinct_below(ids, universe), reference(ids)) << n << " ids on " << threads << " threads";
    }
  }
}

TEST(SortedDistinctBelow, EdgesOfTheUniverse) {
  EXPECT_TRUE(sorted_distinct_below({}, 0).empty());
  EXPECT_TRUE(sorted_distinct_below({}, 100).empty());
  const std::vector<std::int64_t> ids{64, 0, 63, 64, 129, 0, 128, 129};
  EXPECT_EQ(sorted_distinct_below(ids, 130), (std::vector<std::int64_t>{0, 63, 64, 128, 129}));
  EXPECT_EQ(sorted_distinct_below(std::vector<std::int64_t>{6}, 7), std::vector<std::int64_t>{6});
  EXPECT_THROW(sorted_distinct_below(std::vector<std::int64_t>{7}, 7), std::out_of_range);
  EXPECT_THROW(sorted_distinct_below(std::vector<std::int64_t>{3, -1}, 7), std::out_of_range);
}

}  // namespace
