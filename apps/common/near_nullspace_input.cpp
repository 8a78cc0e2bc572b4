#include "near_nullspace_input.hpp"

#include <Eigen/Core>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/io/input_error.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"
#include "common/command_line.hpp"

namespace clcg::apps {

void add_near_nullspace_options(CommandLine& cli) {
  cli.add()
      ("near-nullspace", po::value<std::string>(),
       "AMG: k vectors A nearly annihilates, Matrix Market array n x k (k = 1 .. 16), which coarse levels keep exactly")
      ("coordinates", po::value<std::string>(),
       "AMG: node coordinates, Matrix Market array nodes x d (d = 1 .. 3; node i's unknowns are rows d i .. d i + d - 1): "
       "elasticity's rigid body modes become the near-null space")
      ("block-size", po::value<Count>(),
       "AMG: unknowns a node, aggregated together (1 .. 16; default: the coordinates' d, else 1); alone, one constant "
       "vector a component");
}

NearNullspaceFiles near_nullspace_files(const po::variables_map& args) {
  NearNullspaceFiles files;
  if (args.count("near-nullspace")) files.vectors = args["near-nullspace"].as<std::string>();
  if (args.count("coordinates")) files.coordinates = args["coordinates"].as<std::string>();
  if (args.count("block-size")) files.block_size = unsigned(count_in_range(args, "block-size", 1, 16));
  if (!files.vectors.empty() && !files.coordinates.empty())
    throw UsageError("--near-nullspace and --coordinates both give the near-null space; give one");
  return files;
}

void read_near_nullspace(const NearNullspaceFiles& files, std::size_t n, solver::AmgOptions& amg) {
  const auto rows_of = [&](const std::string& path, std::size_t file_rows, const std::string& what) {
    if (file_rows != n)
      throw solver::InputError(path, 0, what + " give " + std::to_string(file_rows) + " rows but the matrix has " +
                                            std::to_string(n));
  };
  // A row-major copy of a column-major file, and what the library says of it, as an input error.
  const auto row_major = [](const Eigen::MatrixXd& m) {
    std::vector<double> values(std::size_t(m.size()));
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), m.rows(), m.cols()) = m;
    return values;
  };
  const auto checked = [](const std::string& path, auto&& f) {
    try {
      return f();
    } catch (const std::invalid_argument& e) {
      throw solver::InputError(path, 0, e.what());
    }
  };
  if (!files.vectors.empty()) {
    const Eigen::MatrixXd b = solver::read_dense_market(files.vectors);
    rows_of(files.vectors, std::size_t(b.rows()), "its " + std::to_string(b.cols()) + " vectors");
    solver::NearNullspace space{n, std::size_t(b.cols()), row_major(b)};
    checked(files.vectors, [&] { solver::check_near_nullspace(space, n); return 0; });
    amg.near_nullspace = std::make_shared<const solver::NearNullspace>(std::move(space));
  }
  if (!files.coordinates.empty()) {
    const Eigen::MatrixXd x = solver::read_dense_market(files.coordinates);
    const unsigned d = unsigned(x.cols());
    if (files.block_size && *files.block_size != d)
      throw UsageError("--block-size " + std::to_string(*files.block_size) + " but --coordinates " + files.coordinates +
                       " gives " + std::to_string(d) + " coordinates a node: a node's unknowns are its displacements");
    rows_of(files.coordinates, std::size_t(x.rows()) * d,
            "its " + std::to_string(x.rows()) + " nodes x " + std::to_string(d) + " displacements");
    amg.near_nullspace = std::make_shared<const solver::NearNullspace>(
        checked(files.coordinates, [&] { return solver::rigid_body_modes(row_major(x), d); }));
    amg.block_size = d;
  }
  if (files.block_size) amg.block_size = *files.block_size;
  if (n % amg.block_size != 0)
    throw UsageError("--block-size " + std::to_string(amg.block_size) + " does not divide the matrix's " +
                     std::to_string(n) + " rows");
}

}  // namespace clcg::apps
