#pragma once
// Smoothed-aggregation AMG as the distributed CG's preconditioner, one device per rank: the
// hierarchy built over the ranks on their hosts (amg_hierarchy.hpp), each level's rows of A, P
// and R on the rank's device with local columns, and z = M^-1 r one V-cycle from z = 0 as the
// one-device AMG runs it (multigrid/amg.hpp): the same Chebyshev smoother before and after the
// coarse correction, whose every product first fetches the ghosts of its vector (DeviceHalo),
// and on the coarsest level, gathered onto every rank, the exact solve of a sparse Cholesky
// factor on each rank's host (or a Chebyshev solve where it was too large to gather).
//
// Every kernel sums a row in its stored (global column) order and every rank takes the same
// row layout (ELL or CSR scalar), so z has the same bits on any number of ranks.
#include <mpi.h>

#include <memory>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::distributed {

class DistributedAmg {
 public:
  // Collective. `a`: this rank's rows (partition.begin(rank) ..), global columns.
  DistributedAmg(MPI_Comm comm, const cl::Env& env, const Partition& partition, const LocalRows& a,
                 solver::ElementType type, const solver::AmgOptions& options);
  ~DistributedAmg();
  DistributedAmg(const DistributedAmg&) = delete;
  DistributedAmg& operator=(const DistributedAmg&) = delete;

  // Collective. z = M^-1 r: r this rank's rows, z with room for the ghosts of A's columns after them.
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z);

  std::size_t levels() const noexcept;
  const std::vector<std::int64_t>& level_rows() const noexcept { return level_rows_; }  // global
  const std::vector<std::int64_t>& level_nnz() const noexcept { return level_nnz_; }    // global
  // Set-up seconds by phase (host coarsening, host Lanczos, host Galerkin, device upload) and
  // the halo exchanges' seconds since the last reset.
  const std::vector<std::pair<std::string, double>>& phases() const noexcept { return phases_; }
  double halo_seconds() const noexcept;
  void reset_times() noexcept;

 private:
  struct Level;
  void cycle(std::size_t l, const ::cl::Buffer& b, ::cl::Buffer& x);
  void coarse_solve(Level& level, const ::cl::Buffer& b, ::cl::Buffer& x);

  MPI_Comm comm_;
  cl::Env env_;
  solver::ElementType type_;
  std::vector<std::unique_ptr<Level>> levels_;
  std::vector<std::int64_t> level_rows_, level_nnz_;
  std::vector<std::pair<std::string, double>> phases_;
  struct CoarseFactor;
  std::unique_ptr<CoarseFactor> coarse_;  // the gathered coarsest level's factor, where there is one
};

}  // namespace clcg::distributed
