#pragma once
// Which preconditioner M a CG solve applies (z = M^-1 r), and its options. Every one is
// symmetric positive definite by construction, so CG's theory holds; each is set up once per
// matrix and applied on the device. docs/USAGE.md says which variant takes which.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "clcg/reduction/op.hpp"

namespace clcg::solver {

enum class Preconditioner {
  none,       // M = I: plain CG
  jacobi,     // M = diag(A) (Eigen's DiagonalPreconditioner); precond/jacobi.hpp
  chebyshev,  // M^-1 = a Chebyshev polynomial in D^-1 A times D^-1; precond/chebyshev.hpp
  ic0,        // incomplete Cholesky with zero fill, applied by Jacobi sweeps; precond/ic0.hpp
  amg,        // smoothed-aggregation algebraic multigrid, one V-cycle; multigrid/amg.hpp
  cholesky,   // M = A: an exact Cholesky factor, where FactorPlace says (precond/cholesky.hpp)
  automatic,  // the one choose_preconditioner picks for the matrix (krylov/preconditioner_factory.hpp)
};

std::string_view preconditioner_name(Preconditioner p) noexcept;  // "none", "jacobi", ..., "auto"
Preconditioner parse_preconditioner(std::string_view name);       // std::invalid_argument listing the names

// Where an exact factor of A lives (the cholesky preconditioner, the planner's direct method).
enum class FactorPlace {
  automatic,  // the planner's choice (krylov/plan.hpp); the cholesky preconditioner: host
  host,       // a sparse LDL^T on the host (direct/sparse_cholesky.hpp)
  device,     // a dense LL^T in double on the device (direct/dense_device_cholesky.hpp; fp64)
};
std::string_view factor_place_name(FactorPlace p) noexcept;  // "auto", "host", "device"
FactorPlace parse_factor_place(std::string_view name);       // std::invalid_argument listing the names

struct ChebyshevOptions {
  unsigned degree = 4;           // SpMVs per apply (>= 1); 1 is Jacobi scaled by 1/upper-bound midpoint
  double lower_ratio = 30;       // the polynomial targets [upper / lower_ratio, upper] of D^-1 A
  double upper_safety = 1.1;     // upper = this x the Lanczos estimate of lambda_max(D^-1 A)
  unsigned lanczos_steps = 12;   // steps of the estimate (device SpMVs and reductions)
};

struct Ic0Options {
  unsigned sweeps = 3;           // Jacobi sweeps for each triangular factor in an apply
};

// Vectors that A nearly annihilates (the rigid body modes of an elastic body, a constant a
// component, ...), row-major: values[i * columns + j] is vector j's value at row i.
// multigrid/near_nullspace.hpp builds and checks them.
struct NearNullspace {
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::vector<double> values;
};

struct AmgOptions {
  // a_ij is a strong connection where a_ij^2 / |a_ii a_jj| >= strength^2 times the largest such
  // ratio in row i or row j (kernels/aggregation.cl's is_strong), on every level (halving it on
  // coarser levels, as the measure against 0.08 did, cost the rotated anisotropy 6% more steps).
  double strength = 0.25;
  // Coarsen until at most this many rows (then a Cholesky solve on the host); from 1M rows of A,
  // a coarse level until at most half as many (amg.cpp: its dense factor costs n^3/3).
  std::size_t coarse_rows = 600;
  std::size_t max_levels = 25;
  // Under mpirun: a level of at most this many rows (and 32 times as many entries; or of
  // amg_coarse_factor_limit rows) is gathered onto every rank, and each rank runs the rest of the
  // V-cycle on it with the one-device AMG: small levels cost a halo exchange a product and little
  // else (distributed/distributed_amg.hpp; amg_hierarchy.cpp's `gathers`).
  std::size_t gather_rows = 65536;
  unsigned smoother_degree = 2;  // Chebyshev smoother, the same before and after (M stays SPD)
  // The smoother targets [upper / this, upper] of D^-1 A: 10 took fewer steps than 30 on every
  // mesh problem measured (PoCL, ~200K rows: 3D Poisson 14 -> 10, coefficient jumps 14 -> 10,
  // layers 15 -> 13, P2 tets 15 -> 13; docs/PERFORMANCE.md), the smoother no dearer.
  double smoother_lower_ratio = 10;
  // Rows a node (1 to 16): rows block_size i .. block_size i + block_size - 1 are node i's
  // components (unknowns interleaved by node, as finite-element codes number them). Strength
  // and aggregation work on nodes, so a node's components share an aggregate; rows must be a
  // multiple of it.
  unsigned block_size = 1;
  // What the coarse levels must represent exactly (1 to 16 vectors of A's rows); null: one
  // constant vector a component (block_size of them). Elasticity needs its rigid body modes
  // (near_nullspace.hpp: rigid_body_modes).
  std::shared_ptr<const NearNullspace> near_nullspace;
  // A P (the one set-up product that passes 2^31 - 1 nonzeros first, from ~630^3 on 3D Poisson)
  // takes 64-bit row offsets above this many nonzeros. Lower only in tests, to run that path on
  // small matrices.
  std::uint64_t wide_offsets_from = std::uint64_t(std::numeric_limits<std::int32_t>::max());
};

struct PreconditionerOptions {
  // What M is applied in: float for a solve in double halves its bytes (precond/
  // mixed_precision.hpp); empty: choose_preconditioner_precision's pick. Jacobi, fused into
  // the CG passes, always runs in the solve's precision; double for a float solve is refused.
  std::optional<reduction::ElementType> precision;
  ChebyshevOptions chebyshev;
  Ic0Options ic0;
  AmgOptions amg;
  FactorPlace factor = FactorPlace::automatic;
};

}  // namespace clcg::solver
