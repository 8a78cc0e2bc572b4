#pragma once
// Wall-clock helpers the host-side benchmarks share (upload-bench, mtx-read-bench).
#include <algorithm>
#include <chrono>

namespace clcg::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The fastest of `repeat` runs of run(), in seconds.
template <class Run>
double best_of(int repeat, Run&& run) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    run();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

}  // namespace clcg::bench
