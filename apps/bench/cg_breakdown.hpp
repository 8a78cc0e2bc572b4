#pragma once
// cg-bench --breakdown: where a CG step's time goes. Each building block of the three
// variants runs back to back K times between two markers on a profiling queue; the marker
// timestamps (OpenCL profiling events) give device time per launch, next to the bytes the
// block must move and the resulting GB/s. The host round trip (tiny kernel + blocking read
// of the partials) is timed on the host, as the solvers pay it.
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/io/host_matrix.hpp"

struct BreakdownRow {
  std::string matrix, block;
  double us = 0;     // per launch (device time), or per round trip (host time)
  double bytes = 0;  // the least this block must move
};

std::vector<BreakdownRow> cg_breakdown(const clcg::cl::Env& env, const std::string& name,
                                       const clcg::solver::HostMatrix& a);
