#pragma once
// The matrix as the host holds it (what the Matrix Market reader and the generators produce,
// what the host-matrix solve APIs take), and its symmetry check.
#include <Eigen/SparseCore>

namespace clcg::solver {

// Expanded (both triangles), compressed, columns sorted within each row.
using HostMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// Largest |a_ij - a_ji| and where it is (0-based row/col of the first entry, in row-major
// order, that attains it; -1/-1 when the matrix has no mismatch at all).
// symmetric == (max_abs_mismatch <= relative_tolerance * max_abs_entry).
// A non-square matrix reports symmetric = false with max_abs_mismatch = +inf.
struct SymmetryReport {
    double max_abs_mismatch = 0.0;
    double max_abs_entry = 0.0;
    int row = -1;
    int col = -1;
    bool symmetric = true;
};
SymmetryReport check_symmetry(const HostMatrix& a, double relative_tolerance = 1e-12);

// A·1 (each row's values summed in column order: the bits of Eigen's a * VectorXd::Ones()),
// on every host core: the right-hand side whose exact solution is the all-ones vector.
Eigen::VectorXd times_ones(const HostMatrix& a);

}  // namespace clcg::solver
