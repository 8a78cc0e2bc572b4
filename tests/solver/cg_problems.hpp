#pragma once
// Small seeded problems and Eigen references for the solver's device tests.
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "clcg/solver/matrix_market.hpp"

namespace clcg::test {

using solver::HostMatrix;

// Largest / smallest eigenvalue of the Dirichlet 5-point (2D) or 7-point (3D) Laplacian.
inline double poisson_condition(std::initializer_list<int> dims) {
  double lo = 0, hi = 0;
  for (int n : dims) {
    lo += 2 - 2 * std::cos(std::numbers::pi / (n + 1));
    hi += 2 - 2 * std::cos(n * std::numbers::pi / (n + 1));
  }
  return hi / lo;
}

// A matrix with rows of length 0 (an empty row), 1 (diagonal only) and `long_row` (much
// longer than any work-group), plus random short rows; values uniform in [-1, 1).
inline HostMatrix ragged_matrix(int rows, int cols, int long_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> column(0, cols - 1), length(0, 9);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < rows; ++i) {
    int len = 0;
    if (i % 7 == 0) len = 0;                       // empty rows
    else if (i % 7 == 1) len = 1;                  // a single entry
    else if (i % 97 == 2) len = std::min(long_row, cols);  // long rows
    else len = length(rng);
    if (len == 1) {
      t.emplace_back(i, i % cols, value(rng));
      continue;
    }
    if (len == cols) {
      for (int j = 0; j < cols; ++j) t.emplace_back(i, j, value(rng));
      continue;
    }
    for (int k = 0; k < len; ++k) t.emplace_back(i, column(rng), value(rng));  // duplicates summed
  }
  HostMatrix a(rows, cols);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

}  // namespace clcg::test
