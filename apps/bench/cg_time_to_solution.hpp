#pragma once
// cg-bench --preconds: time to solution per preconditioner, the set-up included. A is uploaded
// once (not timed); each repeat plans (auto: the planner with the host matrix, its symbolic
// analysis timed), sets up the preconditioner or the direct method's factor (timed, the queue
// finished), builds the solver with --variant auto and solves b = A 1 to 1e-8 (timed); medians
// of the repeats after a warm-up repeat that also builds every program. Each repeat then
// refreshes the preconditioner for A's values (refresh_preconditioner: what new values on the
// same pattern cost; AMG keeps its aggregates and patterns), timed the same way. The repeats
// run on a queue without profiling (as cg-solve's); `kernels` comes from one more set-up on
// env's queue, which must profile.
// `options.precision` as the library takes it.
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"

struct TimeToSolutionRow {
  std::string matrix, precond, variant, precision;  // precond: "auto (chebyshev)" for auto; variant "direct"
  long long rows = 0, nnz = 0;
  std::size_t iterations = 0;
  double setup_ms = 0, solve_ms = 0, total_ms = 0, true_residual = 0;
  double update_ms = 0;  // refresh_preconditioner for new values (0 for the direct method)
  bool converged = false;
  std::vector<std::size_t> level_rows;                 // AMG
  std::vector<std::pair<std::string, double>> phases;  // set-up phases, ms (AMG, IC(0))
  std::vector<clcg::solver::KernelTime> kernels;       // AMG's set-up kernels (profiling events)
};

std::vector<TimeToSolutionRow> time_to_solution(const clcg::cl::Env& env, const std::string& name,
                                                const clcg::solver::HostMatrix& a,
                                                const std::vector<clcg::solver::Preconditioner>& preconds,
                                                const clcg::solver::PreconditionerOptions& options, int repeats);
