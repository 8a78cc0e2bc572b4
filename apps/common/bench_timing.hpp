#pragma once
// The timing helpers every benchmark app shares (pi, reduce-bench, roundtrip-bench, cg-bench).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace clcg::apps {

// The median; the mean of the two middle values for an even count.
inline double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

// Median wall time of `repeats` calls of f, in milliseconds.
template <class F>
double median_ms(int repeats, F&& f) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median(std::move(samples));
}

}  // namespace clcg::apps
