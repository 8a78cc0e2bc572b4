#pragma once
// Linear elasticity on a box of unit Q1 cells (bilinear quadrilaterals in 2D, plane strain;
// trilinear hexahedra in 3D), Young's modulus 1: the stiffness matrix with the unknowns
// interleaved by node (rows d i .. d i + d - 1 are node i's displacements), and the nodes'
// coordinates in the same order, from which the rigid body modes are built
// (multigrid/near_nullspace.hpp). Clamped, the nodes of the face x = 0 are removed (their
// displacements are 0): the matrix is SPD. Free, it is singular, and its null space is exactly
// the rigid body modes: what the tests check them on. Rows are built on every core, a row from
// the cells around its node (every cell has the same element matrix).
#include <vector>

#include "clcg/solver/io/host_matrix.hpp"

namespace clcg::solver {

struct ElasticBody {
  HostMatrix stiffness;
  std::vector<double> coordinates;  // d a node, nodes in the order of the rows
  unsigned dimensions = 0;
};

// nx x ny cells (nx x ny x nz), Poisson's ratio nu in (-1, 0.5). std::invalid_argument for sizes
// below 1, a nu outside that range, or more rows or nonzeros than 32-bit indices hold.
ElasticBody elasticity_2d(int nx, int ny, double nu, bool clamped = true);
ElasticBody elasticity_3d(int nx, int ny, int nz, double nu, bool clamped = true);

}  // namespace clcg::solver
