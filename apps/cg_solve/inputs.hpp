#pragma once
// What cg-solve reads and checks before a solve, on one device or on rank 0 under mpirun:
// the matrix (a file or --generate), the vectors, and that the outputs can be written.
#include <Eigen/Core>

#include <string>

#include "cli_options.hpp"
#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/io/matrix_market.hpp"

namespace cg_solve {

// --matrix (a 'general' file must be symmetric up to rounding unless --no-symmetry-check) or
// the --generate problem (32-bit indices: UsageError pointing to mpirun beyond them).
clcg::solver::HostMatrix read_problem(const CliOptions& cli, clcg::solver::MatrixMarketInfo& info);

// The Matrix Market vector at `path` (empty path: an empty vector), `rows` long (InputError).
Eigen::VectorXd read_vector_option(const std::string& path, Eigen::Index rows, const std::string& what);

// Fails now, not after a long solve, on an output that cannot be written or that is stdout
// where --json writes.
void check_outputs(const CliOptions& cli);

// `text` to `path`, whole or not at all.
void write_file(const std::string& path, const std::string& text);

}  // namespace cg_solve
