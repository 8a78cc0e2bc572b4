#pragma once
// Sorting the ids a rank collects (ghost columns, rows to fetch) on the host's threads: at
// 1024^3 a rank's boundary holds millions of them, which one thread sorted in ~0.1 s a list.
#include <cstdint>
#include <span>
#include <vector>

namespace clcg::distributed {

// `ids` sorted, each once. Already sorted input (a slab's ghosts in row order) takes one pass;
// otherwise ranges are sorted apart on the host's threads, then merged pairwise.
std::vector<std::int64_t> sorted_distinct(std::vector<std::int64_t> ids);

// The same for ids known to lie in [0, universe) (throws std::out_of_range for another): a bit
// for each possible id, set on the host's threads, then read in order. No sort: the columns a
// rank's rows name on other ranks are millions of repeats of far fewer ids, in no order.
std::vector<std::int64_t> sorted_distinct_below(std::span<const std::int64_t> ids, std::int64_t universe);

}  // namespace clcg::distributed
