#pragma once
// ViennaCL 1.7's CG (OpenCL backend, its pipelined variant) on clcg's own context, device and
// queue: cg-bench's peer column. Built only when ViennaCL's headers are found.
#include <Eigen/Core>

#include <cstddef>

#include "clcg/cl/env.hpp"
#include "clcg/solver/io/host_matrix.hpp"

struct ViennaclResult {
  double ms_per_iteration = 0;  // fixed work, median of repeats after a warm-up
  double solve_ms = 0;          // to 1e-8, end to end (upload excluded)
  std::size_t solve_iterations = 0;
};

ViennaclResult viennacl_cg(const clcg::cl::Env& env, const clcg::solver::HostMatrix& a, const Eigen::VectorXd& b,
                           int iterations, int repeats);
