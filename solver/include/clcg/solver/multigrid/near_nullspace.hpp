#pragma once
// The near-null space an AMG hierarchy must represent exactly (AmgOptions::near_nullspace):
// built from node coordinates for elasticity (rigid body modes, as PETSc's
// MatNullSpaceCreateRigidBody and AMGCL's rigid_body_modes build them), and checked before a
// set-up. Host only; the device set-up takes the vectors as they are.
//
//   NearNullspace modes = rigid_body_modes(xyz, 3);  // nodes x 3 coordinates -> 3 nodes x 6
//   check_near_nullspace(modes, a.rows());           // std::invalid_argument saying what is wrong
//   options.amg.block_size = 3;
//   options.amg.near_nullspace = std::make_shared<const NearNullspace>(std::move(modes));
#include <cstddef>
#include <span>

#include "clcg/solver/precond/preconditioner.hpp"

namespace clcg::solver {

// The rigid body modes of a body whose node i sits at coordinates[i d .. i d + d - 1] (d = 1, 2
// or 3; a node's d displacements are rows d i .. d i + d - 1): d translations, then the
// rotations about the centroid, (-y, x) in 2D and (-y, x, 0), (0, -z, y), (z, 0, -x) in 3D:
// 1, 3 or 6 vectors of d * nodes rows. std::invalid_argument for another d, a coordinate count
// that is not a multiple of d, a coordinate that is not finite, or nodes that do not span the
// rotations (all on one point or one line: the modes are not independent).
NearNullspace rigid_body_modes(std::span<const double> coordinates, unsigned dimensions);

// std::invalid_argument unless `b` can be the near-null space of a matrix of `rows` rows: that
// many rows, 1 to max_block_size columns, every value finite, columns linearly independent
// (the smallest pivot of B^T B's Cholesky above 1e-12 of its column's norm: a candidate that is
// a combination of the others adds nothing and would leave every coarse block singular).
void check_near_nullspace(const NearNullspace& b, std::size_t rows);

// The near-null-space vectors AMG takes with these options: the given ones, else one constant
// a component (block_size of them).
std::size_t near_nullspace_vectors(const AmgOptions& amg);

// std::invalid_argument unless the options' block size and near-null space fit a matrix of
// `rows` rows: block_size 1 to max_block_size dividing rows; the near-null space's rows and
// columns (its values are check_near_nullspace's: a pass over them, which the set-up leaves
// to whoever reads them in).
void check_block_options(const AmgOptions& options, std::size_t rows);

}  // namespace clcg::solver
