#pragma once
// The memory bandwidth a CG step is measured against: a device-to-device copy of up to 1 GiB
// (bytes read + written per second), the median of 10 copies after one warm-up.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "clcg/cl/env.hpp"
#include "common/bench_timing.hpp"

namespace clcg::apps {

inline double copy_bandwidth(const clcg::cl::Env& env) {
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, env.info().max_allocation_bytes / 4);
  ::cl::Buffer from(env.context(), CL_MEM_READ_WRITE, bytes), to(env.context(), CL_MEM_READ_WRITE, bytes);
  env.queue().enqueueFillBuffer(from, cl_uchar{1}, 0, bytes);
  std::vector<double> times;
  for (int k = 0; k < 11; ++k) {
    env.queue().finish();
    const auto start = std::chrono::steady_clock::now();
    env.queue().enqueueCopyBuffer(from, to, 0, 0, bytes);
    env.queue().finish();
    if (k > 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * static_cast<double>(bytes) / median(times);
}

}  // namespace clcg::apps
