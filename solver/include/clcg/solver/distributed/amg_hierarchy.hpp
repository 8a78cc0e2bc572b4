#pragma once
// The smoothed-aggregation hierarchy of a matrix whose rows are spread over MPI ranks, built on
// the ranks' devices (rank_setup.hpp): strength, the independent set's rounds and the joins,
// the tentative and smoothed prolongators, the sparse products, the transposes R = P^T and the
// Lanczos estimates. The levels' A, P and R stay there for the solve, and A P for R (A P). The
// hosts make each level's halo and move the rows and entries other ranks need. The steps of
// clcg::solver's host reference (multigrid/coarsening.hpp) with halo exchanges where a row
// needs its neighbours' values (strength, the rounds, the joins), each aggregate's tentative
// prolongator factored on the rank of its seed, P's remote rows fetched once for A P, and
// R = P^T's remote rows of A P for R (A P). Aggregates are numbered in seed order, so a coarse
// level's rows lie on the ranks of their seeds.
//
// The same hierarchy, bit for bit, on any number of ranks and any partition: the rounds are
// synchronous and keyed on global row numbers, every sum runs in the single-process order, and
// the one estimate that needs dot products (rho(D^-1 A), Lanczos) sums them over chunks that do
// not depend on the partition: level 0's dot chunks, and on a coarse level the aggregates whose
// seeds lie in a chunk of the level above (a chunk never spans two ranks).
//
// Scalar problems and block systems (AmgOptions::block_size: nodes of that many rows; every
// rank's first row a multiple of it), with one constant a component or the vectors of
// AmgOptions::near_nullspace, which here holds this rank's rows of them (the rigid body modes of
// elasticity). Small levels go whole onto every rank (AmgOptions::gather_rows).
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::distributed {

struct DistributedLevel {
  Partition partition;      // which rank holds which of this level's rows
  // This rank's rows of the level's operator on the host (global columns): on the finest level
  // the caller's (`given`, not copied: they outlive the hierarchy), on a gathered last level
  // `a`; other levels' are on the device alone (a_here).
  LocalRows a;
  const LocalRows* given = nullptr;
  const LocalRows& rows() const noexcept { return given ? *given : a; }
  std::vector<std::int64_t> chunk_begin;  // this rank's dot chunks: local row where each starts, then the end
  double radius = 0;        // the Lanczos estimate of rho(D^-1 A) (0 for a level without rows)
  // To the next (coarser) level; empty on the coarsest: P (this level's rows, the next level's
  // columns) and R = P^T (the next level's rows, this level's columns) on this rank's device
  // with their halos, in build_hierarchy's `levels` precision (RankSetup::download brings
  // double ones back).
  std::optional<RankSetup::Rows> p_here, r_here;
  // A on this rank's device in double with its halo (every level but a gathered last one below
  // the finest: the finest's is kept for the distributed CG's rows, uploaded again where it left
  // the device through R (A P): DistributedHierarchy::finest_reuploaded), as the set-up left it.
  // The solve's levels are made from a_here, p_here and r_here (distributed_amg.hpp).
  std::optional<RankSetup::Rows> a_here;
};

struct DistributedHierarchy {
  std::vector<DistributedLevel> levels;
  // The last level, whole, on every rank, where it has at most max(options.gather_rows,
  // amg_coarse_factor_limit) rows: each rank runs the rest of the cycle on it with the
  // one-device AMG. Else (coarsening stalled above that) the last level runs a Chebyshev solve.
  bool gathered = false;
  solver::HostCsr whole;
  unsigned block = 1, vectors = 1;       // the last level's rows a node, and its near-null-space vectors
  std::vector<double> whole_candidates;  // the gathered level's near-null space (rows x vectors), unless the constants
  // Each coarsened level's aggregates, finest first: given back to build_hierarchy for new
  // values of A (`kept`), they skip the aggregation and fix the levels.
  std::vector<RankSetup::Aggregates> aggregates;
  // Whether level 0's A left the device through its Galerkin product and went up again from the
  // host rows (`finest_leaves_above`).
  bool finest_reuploaded = false;
  // The phases' wall time, the OpenCL programs compiled meanwhile left out (build_seconds).
  // A's first upload is not set-up (the one-device solver and AmgX count it apart too); its
  // upload again where it left the device for level 0's products is (lanczos_seconds).
  double lanczos_seconds = 0, coarsening_seconds = 0, galerkin_seconds = 0, gather_seconds = 0;
  double build_seconds = 0;
  double upload_seconds = 0;  // A's first upload (programs compiled meanwhile left out)
};

// Whether build_hierarchy reads A's entries on the host (nodes of block_size > 1 rows, or a
// hierarchy of one level gathered whole); where not, A's rows may come with their entries
// pending (LocalRows::make_entries), made as they are uploaded.
bool hierarchy_reads_entries(const solver::AmgOptions& options, std::int64_t global_rows);

// Collective. `a`: this rank's rows of A (partition.begin(rank) ..); options.near_nullspace, if
// any, this rank's rows of the vectors. Throws std::invalid_argument for a block size that does
// not divide the rows or a rank's first row, or a near-null space of another row count.
// `env`: this rank's device, for the products (in double: it needs fp64). `kept`, where not
// empty, are an earlier hierarchy's aggregates (DistributedHierarchy::aggregates) on the same
// rows, partition and options: each level is coarsened by them instead of aggregating (new
// values of A: time stepping, Newton), and the hierarchy has as many levels as they do.
// `levels`: the precision P and R take as soon as the set-up is done with them (the solve's
// levels', distributed_amg.hpp: less memory through the set-up's later products), and the
// Lanczos estimates' (RankSetup::radius); A's stay in double. Level 0's A leaves the device
// through R (A P), the set-up's memory peak, and goes up again from `a` at the end (0.7 s at
// 640^3 on an H200) where A, A P, R and P together pass `finest_leaves_above` bytes on any rank
// (0: 0.9 of the device's memory; tests set it low), and that product then lists no columns for
// its fill where they would pass it too.
DistributedHierarchy build_hierarchy(MPI_Comm comm, const cl::Env& env, const Partition& partition,
                                     const LocalRows& a, const solver::AmgOptions& options,
                                     std::vector<RankSetup::Aggregates> kept = {},
                                     solver::ElementType levels = solver::ElementType::f64,
                                     std::uint64_t finest_leaves_above = 0);

}  // namespace clcg::distributed
