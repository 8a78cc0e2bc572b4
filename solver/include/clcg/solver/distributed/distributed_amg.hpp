#pragma once
// Smoothed-aggregation AMG as the distributed CG's preconditioner, one device per rank: the
// hierarchy built over the ranks (amg_hierarchy.hpp), each level's rows of A, P and R on the
// rank's device with local columns (A and R those the set-up left there, in the hierarchy's
// precision), and z = M^-1 r one V-cycle from z = 0 as the
// one-device AMG runs it (multigrid/amg.hpp): the same Chebyshev smoother before and after the
// coarse correction, whose every product first fetches the ghosts of its vector (DeviceHalo).
// A level small enough (AmgOptions::gather_rows) goes whole onto every rank, which runs the
// rest of the cycle on it with the one-device AMG (multigrid/amg.hpp, down to its Cholesky
// solve), the same on every rank; where coarsening stalls above that, a Chebyshev solve.
//
// Every rank reads a matrix in the same row layout, the one-device choice made on the global
// rows (ELL, CSR a work-item a row, or CSR a vector of work-items a row, of a size from the
// global mean): a row's sum then runs in one order whichever rank holds it, so z has the same
// bits on any number of ranks.
#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/conversion.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::distributed {

struct DistributedHierarchy;

class DistributedAmg {
 public:
  // Collective. `a`: this rank's rows (partition.begin(rank) ..), global columns. `solve`: the
  // precision of r and z; `type`: the hierarchy's (float for a solve in double halves its
  // bytes: r is narrowed on the way in and z widened on the way out, as one device does).
  // `finest`, where given, is called on this rank with the finest level's A as the set-up left
  // it on the device (double, local columns, its halo: RankSetup::Rows) before the levels take
  // their precision: the distributed CG makes its own rows from it rather than uploading A
  // again. It runs on this rank alone (no MPI); an error it throws ends every rank. Where it
  // made an ELL copy it returns it: the finest level reads its columns rather than a second
  // copy of them (a third of A's bytes; 1024^3 on four H100s needs it), the set-up's double
  // rows freed first.
  struct FinestEll {
    ::cl::Buffer columns, values;  // `width` entries a row, column-major (spmv_ell.cl's csr_to_ell)
    solver::ElementType type = solver::ElementType::f64;
    unsigned width = 0;
  };
  using FinestRows = std::function<std::optional<FinestEll>(const RankSetup::Rows&)>;
  DistributedAmg(MPI_Comm comm, const cl::Env& env, const Partition& partition, const LocalRows& a,
                 solver::ElementType solve, solver::ElementType type, const solver::AmgOptions& options,
                 const FinestRows& finest = {});
  ~DistributedAmg();
  DistributedAmg(const DistributedAmg&) = delete;
  DistributedAmg& operator=(const DistributedAmg&) = delete;

  // Collective. New values of A on the same rows (time stepping, Newton): `a` as the
  // constructor's (the same partition; its pattern may differ). The hierarchy keeps its
  // aggregates (so its levels and their sizes, and the gathered level's one-device AMG keeps its
  // own: update_values) and makes the rest anew: strength, the independent set's rounds and the
  // joins are skipped. The bits of a fresh set-up whose aggregation gives the same aggregates.
  // `finest` as in the constructor. After an error the preconditioner is not usable.
  void update_values(const LocalRows& a, const FinestRows& finest = {});

  // Collective. z = M^-1 r: r this rank's rows, z with room for the ghosts of A's columns after
  // them (both in the solve's precision).
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z);

  std::size_t levels() const noexcept { return level_rows_.size(); }
  // Every level's rows and nonzeros, the gathered AMG's included (global).
  const std::vector<std::int64_t>& level_rows() const noexcept { return level_rows_; }
  const std::vector<std::int64_t>& level_nnz() const noexcept { return level_nnz_; }
  solver::ElementType precision() const noexcept { return type_; }  // the hierarchy's
  std::size_t distributed_levels() const noexcept { return levels_.size() - (gathered_ ? 1 : 0); }
  // Set-up seconds by phase (coarsening, Lanczos, Galerkin, the gather, the levels on the
  // device, and the rest between them) and the halo exchanges' seconds since the last reset.
  const std::vector<std::pair<std::string, double>>& phases() const noexcept { return phases_; }
  double setup_seconds() const noexcept;  // the phases' sum: the wall time less the programs compiled and A's first upload
  double build_seconds() const noexcept { return build_seconds_; }  // OpenCL programs its set-up compiled
  double halo_seconds() const noexcept;
  // Host wall time in the gathered level's cycles since the last reset, from its right-hand side
  // on the host (the finer levels' work done) until its x is enqueued back: the gather over the
  // ranks, the upload, the one-device cycle down to its Cholesky solve on the host (0 where no
  // level is gathered).
  double coarse_seconds() const noexcept { return coarse_seconds_; }
  // Bytes one apply reads and writes on this rank's device over its distributed levels, each
  // kernel's operands counted once (the gathered level's one-device cycle left out: it is small).
  std::uint64_t bytes_per_apply() const noexcept;
  // Device memory the hierarchy holds on this rank (matrices, their ELL copies, the levels'
  // vectors, the gathered level's one-device hierarchy), as the set-up counted it.
  std::uint64_t device_bytes() const noexcept;
  void reset_times() noexcept;

 private:
  struct Level;
  struct Layouts;  // a level's row layouts of A, P and R, agreed collectively
  // The hierarchy built on the ranks from `a` (`kept`: the aggregates of a set-up before), then
  // set_up; the time no phase names (the set-up's pinned staging made and freed, its buffers
  // freed) counted as a phase of its own, so that the phases add up to the wall time less the
  // programs compiled (collective).
  void build(const LocalRows& a, std::vector<RankSetup::Aggregates> kept, const FinestRows& finest);
  // The levels on the devices from a hierarchy built on the ranks (collective).
  void set_up(DistributedHierarchy h, const FinestRows& finest);
  // Every level on this rank's device, from the set-up's device rows (no MPI: may fail on one rank alone).
  // Returns the seconds `finest` took (the CG's own rows: upload, not set-up).
  double upload_levels(DistributedHierarchy& h, const std::vector<Layouts>& layouts, const FinestRows& finest);
  // The caller's ELL values (`rows` of them) in the hierarchy's precision, a copy of its own.
  ::cl::Buffer ell_values(const FinestEll& ell, std::size_t rows) const;
  void cycle(std::size_t l, const ::cl::Buffer& b, ::cl::Buffer& x);
  // The last level gathered onto every rank: its b gathered, the one-device AMG's cycle, this rank's x.
  void gathered_cycle(Level& level, const ::cl::Buffer& b, ::cl::Buffer& x);

  MPI_Comm comm_;
  cl::Env env_;
  solver::ElementType solve_, type_;
  Partition partition_;
  solver::AmgOptions options_;
  std::vector<RankSetup::Aggregates> aggregates_;  // each coarsened level's, kept for update_values
  std::optional<solver::Conversion> narrow_, widen_;  // a hierarchy in another precision than the solve's
  ::cl::Buffer r_inner_, z_inner_;
  std::vector<std::unique_ptr<Level>> levels_;
  std::vector<std::int64_t> level_rows_, level_nnz_;
  std::vector<std::pair<std::string, double>> phases_;
  double build_seconds_ = 0;
  double upload_seconds_ = 0;  // the last build's A's first upload and the CG's rows made from it (not set-up)
  struct Gathered;
  std::unique_ptr<Gathered> gathered_;  // the last level whole on this rank, where it was gathered
  double coarse_seconds_ = 0;
};

}  // namespace clcg::distributed
