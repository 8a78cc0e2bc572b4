#pragma once
// The host's wall time, for the distributed solver's timed parts.
#include <chrono>

namespace clcg::distributed {

using Clock = std::chrono::steady_clock;

// Seconds from `start` until now.
inline double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace clcg::distributed
