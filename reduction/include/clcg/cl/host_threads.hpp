#pragma once
// Host passes over [0, n) on every core, the range cut into one contiguous piece per thread:
// for the reduction module's own host work (the staged upload's fill), which must build
// without solver/; solver's passes use io/host_threads.hpp (CLCG_THREADS).
// Pieces are disjoint, so a pass whose pieces only write their own elements gives the same
// result for any thread count.
#include <cstddef>
#include <functional>

namespace clcg::cl {

// Calls f(begin, end) on contiguous pieces covering [0, n), each of at least `grain` elements
// (one piece, on the calling thread, when n < 2 * grain), at most one per hardware thread.
// Returns when every piece is done; an exception from a piece is rethrown here.
void parallel_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f);

}  // namespace clcg::cl
