// Seeded test problems. All return expanded, compressed, symmetric positive definite
// matrices with sorted columns; sizes are validated (std::invalid_argument for
// non-positive sizes or when rows/nonzeros would not fit 32-bit int indices).
#pragma once

#include "clcg/solver/io/host_matrix.hpp"

#include <cstdint>

namespace clcg::solver {

// 5-point Laplacian on an nx x ny grid, Dirichlet boundary: diagonal 4, neighbours -1.
// Unknown (i, j) (0 <= i < nx, 0 <= j < ny) is row i + nx * j.
HostMatrix poisson_2d(int nx, int ny);

// 7-point Laplacian on nx x ny x nz, Dirichlet: diagonal 6, neighbours -1.
// Unknown (i, j, k) is row i + nx * (j + ny * k).
HostMatrix poisson_3d(int nx, int ny, int nz);

// -epsilon u_xx - u_yy with the 5-point stencil: diagonal 2 epsilon + 2, x-neighbours
// -epsilon, y-neighbours -1 (epsilon > 0 and finite). Small epsilon makes CG slow.
HostMatrix anisotropic_poisson_2d(int nx, int ny, double epsilon);

// Random symmetric matrix with about nnz_per_row nonzeros per row (diagonal included;
// each row draws (nnz_per_row - 1) / 2 distinct off-diagonal columns, mirrored, values
// uniform in [-1, 1); collisions are summed). The diagonal is 1 + sum of |off-diagonal|
// in its row, so the matrix is strictly diagonally dominant with a positive diagonal,
// hence SPD. Uses std::mt19937_64 with its own mappings, so a seed gives the same
// matrix on every platform and standard library. Needs 1 <= nnz_per_row <= n.
HostMatrix random_spd(int n, int nnz_per_row, std::uint64_t seed);

}  // namespace clcg::solver
