#pragma once
// AMG's near-null space as the apps take it (cg-solve, cg-bench): --near-nullspace B.mtx (n x k
// vectors), --coordinates X.mtx (nodes x d: the rigid body modes, d rows a node) and
// --block-size k, read, checked against the matrix and put into the AMG options.
#include <cstddef>
#include <optional>
#include <string>

#include "clcg/solver/precond/preconditioner.hpp"
#include "common/command_line.hpp"

namespace clcg::apps {

struct NearNullspaceFiles {
  std::string vectors, coordinates;  // empty: not given (never both)
  std::optional<unsigned> block_size;
  bool given() const noexcept { return !vectors.empty() || !coordinates.empty() || block_size.has_value(); }
};

// The three options on an app's command line, and what was given (UsageError for both files).
void add_near_nullspace_options(CommandLine& cli);
NearNullspaceFiles near_nullspace_files(const po::variables_map& args);

// Reads them into `amg` for a matrix of `rows` rows: InputError naming the file (its line where
// the reader has one: NaN, a size line of no columns), UsageError for a block size that does
// not divide the rows or that is not the coordinates' d.
void read_near_nullspace(const NearNullspaceFiles& files, std::size_t rows, solver::AmgOptions& amg);

}  // namespace clcg::apps
