#pragma once
// CG over MPI ranks, one device per rank (docs/USAGE.md, "MPI"). Each rank holds its rows of A
// (64-bit offsets, local columns) and its part of every vector on its device; each SpMV sends
// only ghost values (packed on the device, MPI point-to-point through host memory, unpacked)
// while the interior rows' SpMV runs; each dot product is summed over fixed global chunks and
// the chunks' partials added exactly (ExactSum) across ranks, so iterates, iteration counts
// and residuals have the same bits on any number of ranks.
//
// Variants: fused (two allreduces a step: p.Ap, then r.z and r.r together; the x, r, z
// updates in one pass) and single (Chronopoulos-Gear: one allreduce a step of r.z, w.z, r.r).
// Preconditioners: none, jacobi. The stopping rule, statuses, true residual and history are
// those of the one-device solvers.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/exact_sum.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::distributed {

using solver::ElementType;

// Where a solve's time went on this rank (seconds, summed over the solve).
struct StepTimes {
  double halo = 0;        // pack, device -> host, MPI exchange, host -> device (host wall time)
  double allreduce = 0;   // MPI_Allreduce of the dot partials
  double partials = 0;    // waiting for the device's dot partials (the device work before them)
  std::size_t exchanges = 0, allreduces = 0;
  std::uint64_t halo_bytes = 0;  // sent + received
};

class DistributedCg {
 public:
  // Collective: every rank of `comm` calls it with its rows (partition.begin(rank) ..). Checks
  // the device's memory (needed vs available, the largest buffer against the single-allocation
  // limit) and uploads. `settings`: variant fused or single, preconditioner none or jacobi
  // (std::invalid_argument otherwise; an error on any rank makes the others throw
  // AnotherRankFailed, so all leave together); tolerance, max_iterations, record_history, should_stop
  // are read at each solve.
  DistributedCg(MPI_Comm comm, const cl::Env& env, const Partition& partition, LocalRows rows, ElementType type,
                const solver::Settings& settings);

  // Collective. b and x: this rank's rows; x is the guess when use_guess, the last iterate after.
  solver::SolveInfo solve(const std::vector<double>& b, std::vector<double>& x, bool use_guess);

  solver::Settings& settings() noexcept { return settings_; }
  const Halo& halo() const noexcept { return halo_; }
  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t nnz() const noexcept { return nnz_; }
  const StepTimes& times() const noexcept { return times_; }
  double setup_seconds() const noexcept { return setup_seconds_; }
  std::uint64_t device_bytes() const noexcept { return device_bytes_; }
  // Bytes one step of this variant reads and writes on this rank's device, each kernel's
  // operands counted once (the bandwidth floor).
  std::uint64_t bytes_per_step() const noexcept;

 private:
  // Checks the device's memory, builds the kernels, uploads the rows and allocates the vectors.
  void upload(LocalRows& rows, const std::vector<double>& diagonal, std::vector<std::int32_t>& local_col);
  void spmv(const ::cl::Buffer& x, ::cl::Buffer& y);  // y = A x, x with room for the ghosts
  // Global dot products (a_d, b_d), d < pairs.size() (1 to 3), in one allreduce.
  std::vector<double> dots(const std::vector<std::pair<const ::cl::Buffer*, const ::cl::Buffer*>>& pairs,
                           bool* stop = nullptr);
  void precondition(const ::cl::Buffer& r, ::cl::Buffer& z);  // z = M^-1 r
  void launch_rows(const std::vector<std::uint32_t>& list, const ::cl::Buffer& rows, const ::cl::Buffer& x,
                   ::cl::Buffer& y);

  MPI_Comm comm_;
  cl::Env env_;
  ElementType type_;
  solver::Settings settings_;
  std::int64_t rows_ = 0, global_rows_ = 0, nnz_ = 0, chunk_ = 32;
  Halo halo_;
  std::vector<int> neighbours_;
  std::size_t element_ = 8;
  ::cl::Buffer row_ptr_, col_, values_, interior_, boundary_, send_index_, send_buffer_, inv_diag_;
  ::cl::Buffer r_, z_, p_, q_, s_, b_, x_, partials_;
  cl::PinnedBuffer send_host_, recv_host_, partials_host_;
  ::cl::Kernel spmv_kernel_, pack_kernel_, dots_kernel_;
  std::optional<solver::VectorOps> ops_;  // built with the kernels, in upload()
  std::size_t dot_wg_ = 256;
  StepTimes times_;
  double setup_seconds_ = 0;
  std::uint64_t device_bytes_ = 0;
};

}  // namespace clcg::distributed
