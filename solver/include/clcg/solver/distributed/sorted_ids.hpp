#pragma once
// Sorting the ids a rank collects (ghost columns, rows to fetch) on the host's threads: at
// 1024^3 a rank's boundary holds millions of them, which one thread sorted in ~0.1 s a list.
#include <cstdint>
#include <vector>

namespace clcg::distributed {

// `ids` sorted, each once. Already sorted input (a slab's ghosts in row order) takes one pass;
// otherwise ranges are sorted apart on the host's threads, then merged pairwise.
std::vector<std::int64_t> sorted_distinct(std::vector<std::int64_t> ids);

}  // namespace clcg::distributed
