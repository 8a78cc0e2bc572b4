#include "inputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <limits>

#include "clcg/solver/io/atomic_file.hpp"
#include "clcg/solver/io/input_error.hpp"
#include "clcg/solver/problems/generators.hpp"

namespace cg_solve {
namespace {

namespace solver = clcg::solver;

// A 'general' file must be symmetric up to rounding unless the user says otherwise.
void check_symmetric(const CliOptions& cli, const solver::HostMatrix& a, const solver::MatrixMarketInfo& info) {
  if (cli.no_symmetry_check || info.symmetry == solver::MmSymmetry::symmetric) return;
  const solver::SymmetryReport report = solver::check_symmetry(a);
  if (report.symmetric) return;
  char message[256];
  std::snprintf(message, sizeof message,
                "matrix is not symmetric: largest |a_ij - a_ji| = %.6g at (%d, %d), max |a| = %.6g; CG needs a "
                "symmetric matrix (--no-symmetry-check solves it anyway)",
                report.max_abs_mismatch, report.row + 1, report.col + 1, report.max_abs_entry);
  throw solver::InputError(cli.matrix, 0, message);
}

// Whether `path` is the file, pipe or terminal this process's stdout writes to.
bool is_standard_output(const std::string& path) {
  struct stat target {}, out {};
  return ::stat(path.c_str(), &target) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 && target.st_dev == out.st_dev &&
         target.st_ino == out.st_ino;
}

// The --generate problem on one device (32-bit indices).
solver::HostMatrix generated_matrix(const CliOptions& cli, solver::MatrixMarketInfo& info) {
  const GeneratedProblem& p = cli.problem;
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (p.rows() * (p.dimensions == 3 ? 7 : 5) > limit)
    throw UsageError("--generate " + cli.generate + ": more nonzeros than one device's 32-bit indices hold; run it "
                     "under mpirun over several devices (docs/USAGE.md, \"MPI: one device per rank\")");
  solver::HostMatrix a = p.dimensions == 3 ? solver::poisson_3d(int(p.nx), int(p.ny), int(p.nz))
                                           : solver::poisson_2d(int(p.nx), int(p.ny));
  info.stored_entries = a.nonZeros();
  info.symmetry = solver::MmSymmetry::symmetric;
  return a;
}

}  // namespace

solver::HostMatrix read_problem(const CliOptions& cli, solver::MatrixMarketInfo& info) {
  if (!cli.generate.empty()) return generated_matrix(cli, info);
  solver::HostMatrix a = solver::read_matrix_market(cli.matrix, &info);
  check_symmetric(cli, a, info);
  return a;
}

Eigen::VectorXd read_vector_option(const std::string& path, Eigen::Index rows, const std::string& what) {
  if (path.empty()) return {};
  Eigen::VectorXd v = solver::read_vector_market(path);
  solver::check_vector_length(v, rows, path, what.c_str());
  return v;
}

void check_outputs(const CliOptions& cli) {
  if (!cli.output.empty()) solver::check_writable(cli.output);
  if (cli.json && !cli.output.empty() && is_standard_output(cli.output))
    throw UsageError("--output " + cli.output + " is standard output, where --json writes too");
  if (!cli.history.empty()) solver::check_writable(cli.history);
}

void write_file(const std::string& path, const std::string& text) {
  solver::AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace cg_solve
