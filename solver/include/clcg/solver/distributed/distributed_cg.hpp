#pragma once
// CG over MPI ranks, one device per rank (docs/USAGE.md, "MPI"). Each rank holds its rows of A
// (ELL or CSR with 64-bit offsets, local columns) and its part of every vector on its device;
// each SpMV sends only ghost values (packed on the device, MPI point-to-point through host
// memory, unpacked) while the interior rows' SpMV runs; each dot product is summed over fixed
// global chunks, and every rank gathers all chunks' partials and adds them in one fixed order
// (fixed_order_sum), so iterates, iteration counts and residuals have the same bits on any
// number of ranks.
//
// Variants: fused (two passes and two allreduces a step, as the one-device fused CG: p = z +
// beta p inside the SpMV, which also writes p.Ap's partials and the deferred x update; then
// r, z and the partials of r.z and r.r; the halo sends z, whose exchange runs behind the
// allreduce and the interior rows) and single (Chronopoulos-Gear: one allreduce a step of r.z, w.z, r.r).
// Preconditioners: none, jacobi, chebyshev (its SpMVs exchange halos; no dot), amg (one V-cycle
// of distributed_amg.hpp, the same bits on any rank count too). The stopping rule, statuses,
// true residual and history are those of the one-device solvers.
#include <mpi.h>

#include <chrono>
#include <memory>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/distributed_amg.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::distributed {

using solver::ElementType;

// Where a solve's time went on this rank (seconds, summed over the solve).
struct StepTimes {
  double halo = 0;        // pack, device -> host, MPI exchange, host -> device (host wall time)
  double allreduce = 0;   // MPI_Allreduce of the dot partials
  double partials = 0;    // waiting for the device's dot partials (the device work before them)
  double coarse = 0;      // AMG: the gathered level's cycles (amg's coarse_seconds)
  double steps = 0;       // the steps themselves: the solve less r0 = b - A x0, z0 and the true residual
  double transfer = 0;    // b (and x0) to the device, x back (not in SolveInfo::seconds)
  std::size_t exchanges = 0, allreduces = 0;
  std::uint64_t halo_bytes = 0;  // sent + received
};

class DistributedCg {
 public:
  // Collective: every rank of `comm` calls it with its rows (partition.begin(rank) ..). Checks
  // the device's memory (needed vs available, the largest buffer against the single-allocation
  // limit) and uploads. `settings`: variant fused or single, preconditioner none, jacobi, amg (`options.amg`; applied in
  // `options.precision`, else choose_preconditioner_precision's pick: float on a GPU for a large
  // solve in double) or chebyshev (with `options.chebyshev`'s degree and lower_ratio; its upper end is the Gershgorin bound
  // of D^-1 A, a true bound and the same on every rank, where one device runs a Lanczos
  // estimate) (std::invalid_argument otherwise; an error on any rank makes the others throw
  // AnotherRankFailed, so all leave together); tolerance, max_iterations, record_history, should_stop
  // are read at each solve.
  DistributedCg(MPI_Comm comm, const cl::Env& env, const Partition& partition, LocalRows rows, ElementType type,
                const solver::Settings& settings, const solver::PreconditionerOptions& options = {});

  // Collective. New values of A on the same rows (time stepping, Newton): `rows` as the
  // constructor's, for the same partition (std::invalid_argument otherwise, before anything
  // changes). The solver sets itself up on them anew with what it was made with; AMG keeps its
  // aggregates (DistributedAmg::update_values: the aggregation is skipped, the levels keep their
  // sizes), so its pattern may differ but the aggregates stay the first matrix's. Chebyshev's
  // bound is that of the new rows. update_seconds(): what it took. After a failure on any rank
  // (a device's memory) every rank throws and the solver is not usable.
  void update_values(LocalRows rows);

  ~DistributedCg();
  DistributedCg(const DistributedCg&) = delete;
  DistributedCg& operator=(const DistributedCg&) = delete;

  // Collective. b and x: this rank's rows; x is the guess when use_guess, the last iterate after.
  // SolveInfo::seconds runs from b on the device to the true residual (StepTimes::transfer
  // holds b's and x's crossings). The span form writes x in place (a caller's uninitialised
  // BulkVector is first touched by the read back's threads); the vector form sizes x.
  solver::SolveInfo solve(std::span<const double> b, std::span<double> x, bool use_guess);
  solver::SolveInfo solve(const std::vector<double>& b, std::vector<double>& x, bool use_guess);

  solver::Settings& settings() noexcept { return settings_; }
  const Halo& halo() const noexcept { return halo_; }
  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t nnz() const noexcept { return nnz_; }
  const StepTimes& times() const noexcept { return times_; }
  const DistributedAmg* amg() const noexcept { return amg_.get(); }  // null unless the preconditioner is amg
  double setup_seconds() const noexcept { return setup_seconds_; }  // AMG's hierarchy left out (DistributedAmg's)
  double update_seconds() const noexcept { return update_seconds_; }  // the last update_values, AMG's included
  std::uint64_t device_bytes() const noexcept { return device_bytes_; }
  // How the SpMV reads the rows, the same on every rank: "ell" (rows padded to the longest,
  // column-major) or "csr" (Settings::spmv, else ELL on GPUs where the rows suit it).
  const char* row_layout() const noexcept { return ell_ ? "ell" : "csr"; }
  // Bytes one step of this variant reads and writes on this rank's device, each kernel's
  // operands counted once (the bandwidth floor).
  std::uint64_t bytes_per_step() const noexcept;

 private:
  // Everything the constructor and update_values do (collective): the checks, the halo or the
  // AMG's hierarchy, the upload.
  void set_up(LocalRows rows);
  // Checks the device's memory, builds the kernels, uploads the rows and allocates the vectors.
  void upload(LocalRows& rows, const std::vector<double>& diagonal, solver::BulkVector<std::int32_t>& local_col);
  // The rows' layout on the device (ELL or CSR), one answer for every rank (collective).
  bool choose_ell(std::int64_t longest);
  // What AMG is applied in (collective; std::invalid_argument for double in a float solve).
  ElementType amg_precision(const solver::PreconditionerOptions& options) const;
  void upload_ell(const LocalRows& rows, const solver::BulkVector<std::int32_t>& local_col);
  // With AMG: the halo, the boundary rows and the rows in this solve's layout and precision,
  // made on the device from the finest level the set-up left there (DistributedAmg's `finest`),
  // instead of the host's build_halo and upload. Local to this rank. Returns the ELL copy
  // where it makes one (for the AMG's finest level to share its columns).
  std::optional<DistributedAmg::FinestEll> take_rows(const RankSetup::Rows& a);
  std::string kernel_options() const;  // distributed.cl's: the precision, the chunk, the layout
  ::cl::Buffer unused_offsets() const;  // the row offsets argument of the ELL layout

  // The pass over rows a kernel runs first: every row where no row waits for ghosts, else
  // the interior ones (kernels/distributed.cl's ALL_ROWS, INTERIOR_ROWS).
  cl_uint first_pass() const noexcept;
  std::size_t local_chunks() const noexcept;  // this rank's dot chunks: a work-group each in the row kernels
  // Sets a row kernel's matrix arguments (0 to 4) and its pass's (5 to 9: the pass, the
  // boundary rows' mask, the boundary chunks' flags and list, their count); returns the
  // work-groups to launch (one a chunk the pass visits).
  std::size_t set_rows_args(::cl::Kernel& kernel, cl_uint pass);

  void spmv(::cl::Buffer& x, ::cl::Buffer& y);  // y = A x, x with room for the ghosts (written)
  // Global dot products (a_d, b_d), d < pairs.size() (1 to 3), in one allreduce.
  std::vector<double> dots(const std::vector<std::pair<const ::cl::Buffer*, const ::cl::Buffer*>>& pairs,
                           bool* stop = nullptr);
  // The `count` dots whose chunk partials a kernel has written: every rank gathers every
  // chunk's partials and sums them in one fixed order (reads the partials back: blocks).
  // Posts a started exchange once the read is done.
  std::vector<double> sum_partials(std::size_t count, bool* stop);
  void precondition(const ::cl::Buffer& r, ::cl::Buffer& z);  // z = M^-1 r (z with room for the ghosts)
  using Clock = std::chrono::steady_clock;
  // The steps of each variant, from r = b - A x and z = M^-1 r; they fill info.
  void fused_steps(std::size_t limit, double norm_b, Clock::time_point start, solver::SolveInfo& info);
  void single_steps(std::size_t limit, double norm_b, Clock::time_point start, solver::SolveInfo& info);
  // Step k's bookkeeping (iterations, residual, history, callback) and the tests that end a
  // solve: true where it ends, with info's status and message set.
  bool step_ends(std::size_t k, std::size_t limit, double norm_b, double rr, double rz, double alpha, double beta,
                 bool stop, Clock::time_point start, solver::SolveInfo& info);

  MPI_Comm comm_;
  cl::Env env_;
  ElementType type_;
  solver::Settings settings_;
  Partition partition_;
  solver::PreconditionerOptions options_;
  std::int64_t rows_ = 0, global_rows_ = 0, nnz_ = 0, chunk_ = 32;
  Halo halo_;
  std::vector<std::int64_t> rank_chunks_;  // dot chunks each rank holds, in rank order
  std::size_t element_ = 8;
  bool ell_ = false;
  unsigned ell_width_ = 0;
  std::uint64_t stored_ = 0;  // matrix entries on the device (ELL: rows x width)
  ::cl::Buffer row_ptr_, col_, values_, boundary_, chunk_flag_, chunk_list_, inv_diag_;
  std::size_t boundary_chunks_ = 0;  // chunks holding a row that touches a ghost
  solver::ChebyshevOptions chebyshev_;
  double theta_ = 0, delta_ = 0;        // Chebyshev: the interval's centre and half-width
  ::cl::Buffer cheb_d_, cheb_w_;        // Chebyshev: its direction, A z
  ::cl::Kernel cheb_start_, cheb_update_;
  ::cl::Buffer r_, z_, p_, p_old_, q_, s_, b_, x_, partials_;
  cl::PinnedBuffer partials_host_;
  std::optional<DeviceHalo> exchange_;  // z's (and the Chebyshev's and the true residual's) ghosts
  ::cl::Kernel spmv_kernel_, direction_kernel_, ghost_kernel_, update_kernel_, dots_kernel_;
  std::unique_ptr<DistributedAmg> amg_;  // the preconditioner amg
  std::optional<solver::VectorOps> ops_;  // built with the kernels, in upload()
  std::size_t dot_wg_ = 256;
  StepTimes times_;
  double setup_seconds_ = 0, update_seconds_ = 0;
  std::uint64_t device_bytes_ = 0;
};

}  // namespace clcg::distributed
