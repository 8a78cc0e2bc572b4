#pragma once
// A set-up phase's seconds: its device work finished, the OpenCL programs it compiled left out
// (they are the report's build_seconds), so the phases add up to the set-up's seconds. For the
// one-device AMG (amg.cpp) and the distributed hierarchy (distributed/amg_hierarchy.cpp).
//
//   PhaseClock phase(env);
//   phase.start();
//   ...                                  // the phase's work
//   report.phases.push_back({"name", phase.seconds()});
#include <algorithm>
#include <chrono>

#include "clcg/cl/env.hpp"

namespace clcg::solver {

class PhaseClock {
 public:
  explicit PhaseClock(const cl::Env& env) : env_(env) {}
  void start() {
    start_ = std::chrono::steady_clock::now();
    builds_ = env_.programs().build_seconds();
  }
  double seconds() const {
    env_.queue().finish();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return std::max(0.0, wall - (env_.programs().build_seconds() - builds_));
  }

 private:
  const cl::Env& env_;
  std::chrono::steady_clock::time_point start_;
  double builds_ = 0;
};

}  // namespace clcg::solver
