#pragma once
// cg-solve's command line: parsed and validated here, so main() only runs the job.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "clcg/cl/device.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "common/command_line.hpp"
#include "common/near_nullspace_input.hpp"

namespace cg_solve {

using clcg::apps::UsageError;  // a bad command line: exit 2 with the message and the usage line

// --generate poisson3d:N | poisson3d:NXxNYxNZ | poisson2d:N | poisson2d:NXxNY: the Dirichlet
// Laplacian (7-point or 5-point) on that grid, built in place of reading --matrix (under mpirun,
// each rank builds only its rows).
struct GeneratedProblem {
  int dimensions = 0;  // 0: none
  std::int64_t nx = 0, ny = 0, nz = 1;
  std::int64_t rows() const noexcept { return nx * ny * nz; }
};
GeneratedProblem parse_generated_problem(const std::string& spec);  // UsageError naming the problem

struct CliOptions {
  std::string matrix, rhs, x0, output, history;
  std::string generate;  // the --generate text, as given
  GeneratedProblem problem;
  std::string partition;  // --partition: the cut rows under mpirun (empty: balanced by nonzeros)
  // AMG's near-null space: a file of vectors, or node coordinates (rigid body modes), and the
  // unknowns a node (read into precond_options.amg once the matrix's rows are known).
  clcg::apps::NearNullspaceFiles near_nullspace;
  double tolerance = 1e-8;
  std::optional<std::size_t> max_iterations;  // empty: default_max_iterations(rows)
  clcg::solver::Preconditioner preconditioner = clcg::solver::Preconditioner::automatic;
  clcg::solver::PreconditionerOptions precond_options;
  clcg::reduction::ElementType precision = clcg::reduction::ElementType::f64;
  std::string device = "auto", platform;
  std::string variant = "auto";
  clcg::solver::SpmvKernel spmv = clcg::solver::SpmvKernel::automatic;
  bool list_devices = false, no_symmetry_check = false, reference = false, json = false, quiet = false;
  bool output_unconverged = false;  // write x to --output even when the solve failed
  bool help = false, version = false;
};

extern const char* const usage_line;

// Generous, unlike the library's 2 x rows (Eigen's): a shell user wants an answer, and
// ill-conditioned matrices need more than 2n steps in floating point.
inline std::size_t default_max_iterations(std::size_t rows) { return std::max<std::size_t>(1000, 10 * rows); }

// Throws UsageError for unknown options, missing or malformed values, and values out of
// range (--tol must be a finite number > 0 and < 1, --max-iter an integer >= 1). --help
// prints the help (cli.help is then set).
CliOptions parse_command_line(int argc, char** argv);

// The device --device and --platform (or CLCG_DEVICE) ask for; UsageError where one is malformed.
clcg::cl::DeviceSelector device_selector(const CliOptions& cli);

}  // namespace cg_solve
