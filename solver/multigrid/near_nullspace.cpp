#include "clcg/solver/multigrid/near_nullspace.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/multigrid/coarsening.hpp"

namespace clcg::solver {
namespace {

// B^T B (columns x columns, row-major), summed on every core.
std::vector<double> gram(const NearNullspace& b) {
  const std::size_t k = b.columns;
  std::vector<double> g(k * k, 0.0);
  std::mutex add;
  parallel_rows(b.rows, [&](std::size_t begin, std::size_t end) {
    std::vector<double> part(k * k, 0.0);
    for (std::size_t i = begin; i < end; ++i)
      for (std::size_t l = 0; l < k; ++l)
        for (std::size_t j = 0; j <= l; ++j) part[l * k + j] += b.values[i * k + l] * b.values[i * k + j];
    const std::lock_guard<std::mutex> lock(add);
    for (std::size_t e = 0; e < g.size(); ++e) g[e] += part[e];
  });
  return g;
}

// The first column that is (to 1e-12 of B^T B) a combination of those before it, or `columns`.
std::size_t first_dependent(const NearNullspace& b) {
  const std::size_t k = b.columns;
  std::vector<double> g = gram(b);
  for (std::size_t l = 0; l < k; ++l) {  // scaled to unit diagonal, then Cholesky (lower triangle)
    if (!(g[l * k + l] > 0)) return l;
  }
  std::vector<double> scale(k);
  for (std::size_t l = 0; l < k; ++l) scale[l] = 1 / std::sqrt(g[l * k + l]);
  for (std::size_t l = 0; l < k; ++l)
    for (std::size_t j = 0; j <= l; ++j) g[l * k + j] *= scale[l] * scale[j];
  for (std::size_t j = 0; j < k; ++j) {
    double pivot = g[j * k + j];
    for (std::size_t p = 0; p < j; ++p) pivot -= g[j * k + p] * g[j * k + p];
    if (!(pivot > 1e-12)) return j;
    const double root = std::sqrt(pivot);
    g[j * k + j] = root;
    for (std::size_t l = j + 1; l < k; ++l) {
      double v = g[l * k + j];
      for (std::size_t p = 0; p < j; ++p) v -= g[l * k + p] * g[j * k + p];
      g[l * k + j] = v / root;
    }
  }
  return k;
}

// Its rows, vector count and value count.
void check_shape(const NearNullspace& b, std::size_t rows) {
  if (b.rows != rows)
    throw std::invalid_argument("the near-null space has " + std::to_string(b.rows) + " rows but the matrix has " +
                                std::to_string(rows));
  if (b.columns < 1 || b.columns > max_block_size)
    throw std::invalid_argument("the near-null space has " + std::to_string(b.columns) + " vectors; give 1 to " +
                                std::to_string(max_block_size));
  if (b.values.size() != b.rows * b.columns)
    throw std::invalid_argument("the near-null space holds " + std::to_string(b.values.size()) +
                                " values, not rows x vectors = " + std::to_string(b.rows * b.columns));
}

}  // namespace

NearNullspace rigid_body_modes(std::span<const double> coordinates, unsigned dimensions) {
  if (dimensions < 1 || dimensions > 3)
    throw std::invalid_argument("rigid body modes need 1, 2 or 3 coordinates a node, not " + std::to_string(dimensions));
  const std::size_t d = dimensions;
  if (coordinates.size() % d != 0)
    throw std::invalid_argument(std::to_string(coordinates.size()) + " coordinates are not " + std::to_string(d) +
                                " a node");
  const std::size_t nodes = coordinates.size() / d;
  double centre[3] = {0, 0, 0};
  for (std::size_t i = 0; i < nodes; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const double x = coordinates[i * d + c];
      if (!std::isfinite(x))
        throw std::invalid_argument("node " + std::to_string(i + 1) + " has a coordinate that is not finite (" +
                                    std::to_string(x) + ")");
      centre[c] += x;
    }
  for (std::size_t c = 0; c < d; ++c) centre[c] /= double(std::max<std::size_t>(nodes, 1));
  NearNullspace modes;
  modes.rows = nodes * d;
  modes.columns = d == 1 ? 1 : d == 2 ? 3 : 6;
  modes.values.assign(modes.rows * modes.columns, 0.0);
  const std::size_t k = modes.columns;
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto at = [&](std::size_t component, std::size_t mode) -> double& {
      return modes.values[(i * d + component) * k + mode];
    };
    for (std::size_t c = 0; c < d; ++c) at(c, c) = 1;  // translations
    const double x = coordinates[i * d] - centre[0];
    const double y = d > 1 ? coordinates[i * d + 1] - centre[1] : 0.0;
    const double z = d > 2 ? coordinates[i * d + 2] - centre[2] : 0.0;
    if (d >= 2) at(0, d) = -y, at(1, d) = x;  // about z
    if (d == 3) {
      at(1, 4) = -z, at(2, 4) = y;  // about x
      at(0, 5) = z, at(2, 5) = -x;  // about y
    }
  }
  if (nodes > 0 && first_dependent(modes) < k)
    throw std::invalid_argument("the " + std::to_string(nodes) +
                                " nodes' coordinates do not span the rotations (all on one point or one line): "
                                "the rigid body modes are not independent");
  return modes;
}

void check_near_nullspace(const NearNullspace& b, std::size_t rows) {
  check_shape(b, rows);
  for (std::size_t e = 0; e < b.values.size(); ++e)
    if (!std::isfinite(b.values[e]))
      throw std::invalid_argument("the near-null space's vector " + std::to_string(e % b.columns + 1) + " is not finite at row " +
                                  std::to_string(e / b.columns + 1));
  if (const std::size_t j = first_dependent(b); rows > 0 && j < b.columns)
    throw std::invalid_argument("the near-null space's vector " + std::to_string(j + 1) +
                                " is a combination of the vectors before it (or zero): give independent vectors");
}

std::size_t near_nullspace_vectors(const AmgOptions& amg) {
  return amg.near_nullspace ? amg.near_nullspace->columns : amg.block_size;
}

void check_block_options(const AmgOptions& options, std::size_t rows) {
  const unsigned block = options.block_size;
  if (block < 1 || block > max_block_size)
    throw std::invalid_argument("AMG block size " + std::to_string(block) + ": give 1 to " +
                                std::to_string(max_block_size) + " rows a node");
  if (rows % block != 0)
    throw std::invalid_argument("AMG block size " + std::to_string(block) + " does not divide the matrix's " +
                                std::to_string(rows) + " rows");
  if (options.near_nullspace) check_shape(*options.near_nullspace, rows);
}

}  // namespace clcg::solver
