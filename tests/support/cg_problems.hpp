#pragma once
// Small seeded problems and Eigen references for the solver's device tests.
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/io/matrix_market.hpp"

namespace clcg::test {

using solver::HostMatrix;

// n values uniform in [-1, 1) from a fixed seed (std::mt19937_64): the same on every machine.
inline Eigen::VectorXd random_vector(Eigen::Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (auto& x : v) x = value(rng);
  return v;
}

// Largest / smallest eigenvalue of the Dirichlet 5-point (2D) or 7-point (3D) Laplacian.
inline double poisson_condition(std::initializer_list<int> dims) {
  double lo = 0, hi = 0;
  for (int n : dims) {
    lo += 2 - 2 * std::cos(std::numbers::pi / (n + 1));
    hi += 2 - 2 * std::cos(n * std::numbers::pi / (n + 1));
  }
  return hi / lo;
}

// The bilinear (Q1) Laplacian on an nx x ny grid of nodes, Dirichlet: 8/3 on the diagonal, -1/3 to
// each of the 8 neighbours (a 2D mesh whose rows are longer than a 5-point stencil's).
inline HostMatrix nine_point(int nx, int ny) {
  std::vector<Eigen::Triplet<double, int>> t;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di)
          if (i + di >= 0 && i + di < nx && j + dj >= 0 && j + dj < ny)
            t.emplace_back(i + nx * j, i + di + nx * (j + dj), di == 0 && dj == 0 ? 8.0 / 3 : -1.0 / 3);
  HostMatrix a(nx * ny, nx * ny);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
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

// The 5-point (2D) / 7-point (3D) Dirichlet Laplacian, unknown (i, j, k) at i + nx (j + ny k).
inline HostMatrix poisson(int nx, int ny, int nz = 1) {
  const int n = nx * ny * nz;
  const double diagonal = nz == 1 ? 4.0 : 6.0;
  std::vector<Eigen::Triplet<double, int>> t;
  auto at = [&](int i, int j, int k) { return i + nx * (j + ny * k); };
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int row = at(i, j, k);
        t.emplace_back(row, row, diagonal);
        if (i > 0) t.emplace_back(row, at(i - 1, j, k), -1.0);
        if (i + 1 < nx) t.emplace_back(row, at(i + 1, j, k), -1.0);
        if (j > 0) t.emplace_back(row, at(i, j - 1, k), -1.0);
        if (j + 1 < ny) t.emplace_back(row, at(i, j + 1, k), -1.0);
        if (k > 0) t.emplace_back(row, at(i, j, k - 1), -1.0);
        if (k + 1 < nz) t.emplace_back(row, at(i, j, k + 1), -1.0);
      }
  HostMatrix a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

// Random symmetric, strictly diagonally dominant with positive diagonal (so SPD): about
// nnz_per_row entries per row, off-diagonals uniform in [-1, 1), diagonal 1 + sum |off|.
inline HostMatrix random_dd_spd(int n, int nnz_per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> column(0, n - 1);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < (nnz_per_row - 1) / 2; ++k) {
      const int j = column(rng);
      if (j == i) continue;
      const double v = value(rng);
      t.emplace_back(i, j, v);
      t.emplace_back(j, i, v);
    }
  HostMatrix off(n, n);
  off.setFromTriplets(t.begin(), t.end());
  t.clear();
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (HostMatrix::InnerIterator it(off, i); it; ++it) {
      sum += std::abs(it.value());
      t.emplace_back(i, int(it.col()), it.value());
    }
    t.emplace_back(i, i, 1.0 + sum);
  }
  HostMatrix a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

// D A D for a random positive diagonal D (entries in [0.5, 2)): new values on A's pattern that
// keep it SPD and keep every strong connection (|a_ij|^2 >= theta^2 a_ii a_jj is unchanged by
// a symmetric diagonal scaling): what a time step or Newton step hands a solver.
inline HostMatrix scaled_symmetrically(HostMatrix a, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  std::vector<double> d(std::size_t(a.rows()));
  for (double& v : d) v = value(rng);
  for (int i = 0; i < a.outerSize(); ++i)
    for (HostMatrix::InnerIterator it(a, i); it; ++it) it.valueRef() *= d[std::size_t(i)] * d[std::size_t(it.col())];
  return a;
}

// Gershgorin bound on cond2 of a symmetric matrix whose discs stay right of 0 (else +inf).
inline double gershgorin_condition(const HostMatrix& a) {
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < a.rows(); ++i) {
    double d = 0, off = 0;
    for (HostMatrix::InnerIterator it(a, i); it; ++it) (it.col() == i ? d : off) += std::abs(it.value());
    lo = std::min(lo, d - off);
    hi = std::max(hi, d + off);
  }
  return lo > 0 ? hi / lo : INFINITY;
}

// The shared public matrices (../shared/data/matrices), or "" when the folder is absent.
inline std::string shared_matrix(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(CLCG_SHARED_MATRICES) / name;
  return std::filesystem::exists(path) ? path.string() : std::string();
}

// A small Matrix Market coordinate reader for the tests (real / integer / pattern, general /
// symmetric), independent of the library's reader so the solver tests do not test it.
inline HostMatrix read_mtx(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  std::transform(line.begin(), line.end(), line.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const bool pattern = line.find("pattern") != std::string::npos;
  const bool symmetric = line.find("symmetric") != std::string::npos;
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  long rows = 0, cols = 0, entries = 0;
  std::istringstream(line) >> rows >> cols >> entries;
  std::vector<Eigen::Triplet<double, int>> t;
  for (long e = 0; e < entries && std::getline(in, line); ++e) {
    std::istringstream fields(line);
    long i = 0, j = 0;
    double v = 1.0;
    fields >> i >> j;
    if (!pattern) v = std::strtod(line.c_str() + fields.tellg(), nullptr);
    t.emplace_back(int(i - 1), int(j - 1), v);
    if (symmetric && i != j) t.emplace_back(int(j - 1), int(i - 1), v);
  }
  HostMatrix a(rows, cols);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

}  // namespace clcg::test
