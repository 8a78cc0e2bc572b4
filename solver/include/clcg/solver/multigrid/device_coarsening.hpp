#pragma once
// Smoothed-aggregation coarsening on the device (kernels/aggregation.cl), the same steps as
// the host reference (coarsening.hpp) and the same results: aggregates and patterns equal,
// values to rounding. No pass over a level leaves the device; only a scan's total and largest count, the
// independent set's progress and the aggregate count are read back.
//
//   DeviceCoarsening coarsening(env, ElementType::f64);
//   DeviceAggregates g = coarsening.aggregate(coarsening.filter(a, 0.25));
//   DeviceCsrMatrix t = coarsening.tentative_prolongator(g, 1, ones, 1, coarse_candidate);
//   ::cl::Buffer inv_diag = coarsening.inverse_diagonal(a);
//   DeviceCsrMatrix p = coarsening.smoothed_prolongator(a, inv_diag, t, omega);
// A block system (nodes of `block` rows, k near-null-space vectors) aggregates its nodes:
//   DeviceAggregates g = coarsening.aggregate(coarsening.filter(coarsening.node_matrix(a, 3), 0.25));
//   DeviceCsrMatrix t = coarsening.tentative_prolongator(g, 3, modes, 6, coarse_modes);
// New values of A on the same pattern keep the aggregates and t:
//   coarsening.smoothed_prolongator_values(a, coarsening.inverse_diagonal(a), t, omega, p);
#include <cstdint>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

struct DeviceAggregates {
  ::cl::Buffer of_row;      // the aggregate of each row (node), -1 for one with no strong connection
  std::int32_t rows = 0;    // the rows (nodes) aggregated
  std::int32_t count = 0;   // aggregates
};

class DeviceCoarsening {
 public:
  // wide_from: SparseProducts' (64-bit row offsets for A P above that many nonzeros).
  DeviceCoarsening(const cl::Env& env, ElementType type, std::uint64_t wide_from = max_csr_index);

  // A_f, the strength graph aggregate() reads: A's strong entries (as strong_connections()
  // defines them), and first in each row the diagonal plus the weak entries (row sums kept); A
  // itself where that keeps every entry (as filtered_matrix() on the host).
  DeviceCsrMatrix filter(const DeviceCsrMatrix& a, double theta);
  // 1 / A's diagonal (0 where it is 0): D^-1 of the prolongator smoother.
  ::cl::Buffer inverse_diagonal(const DeviceCsrMatrix& a);
  // Aggregates of A_f's graph, as aggregate() on the host.
  DeviceAggregates aggregate(const DeviceCsrMatrix& filtered);
  // The node matrix of A (rows a multiple of `block`, at most max_block_size), as node_matrix()
  // on the host: entry (u, v) the Frobenius norm of A's block (u, v).
  DeviceCsrMatrix node_matrix(const DeviceCsrMatrix& a, unsigned block);
  // P_tent for the level's near-null space `candidates` (rows x k, row-major; k at most
  // max_block_size) over the aggregates of its nodes (`block` rows each), as
  // tentative_prolongator() on the host: row i's k entries, in columns g k .. g k + k - 1 of
  // its node's aggregate g, are Q_g's row of the aggregate's B_g = Q_g R_g; `coarse_candidates`
  // gets the R_g (count k x k, row-major), the next level's candidates.
  DeviceCsrMatrix tentative_prolongator(const DeviceAggregates& aggregates, unsigned block, const ::cl::Buffer& candidates,
                                        unsigned k, ::cl::Buffer& coarse_candidates);
  // The constant vector of each of k components (out[i k + j] = 1 where i % k == j), rows x k.
  ::cl::Buffer component_constants(std::size_t rows, unsigned k);
  // P = (I - omega D^-1 A) P_tent (inv_diag: inverse_diagonal(a)), as smoothed_prolongator()
  // on the host.
  DeviceCsrMatrix smoothed_prolongator(const DeviceCsrMatrix& a, const ::cl::Buffer& inv_diag,
                                       const DeviceCsrMatrix& tentative, double omega);
  // The same into p (from smoothed_prolongator with A's pattern unchanged): values only.
  void smoothed_prolongator_values(const DeviceCsrMatrix& a, const ::cl::Buffer& inv_diag,
                                   const DeviceCsrMatrix& tentative, double omega, DeviceCsrMatrix& p);

  SparseProducts& products() noexcept { return products_; }
  // Device time per kernel since the last call, the products' included (a profiling queue only).
  std::vector<KernelTime> take_kernel_times();

 private:
  // kernel(rows, team, args...) over a's rows, `team` work-items a row (aggregation.cl's
  // CLCG_FOR_EACH_TEAM_ROW): one where a's rows are short, more where they are long.
  template <class... Args>
  void run_rows(::cl::Kernel& kernel, const char* name, const DeviceCsrMatrix& a, const Args&... args);

  cl::Env env_;
  ElementType type_;
  SparseProducts products_;
  RowKernels kernels_;
  ::cl::Buffer changed_;    // filter_count's flag: A_f is not A
  ::cl::Buffer undecided_;  // the independent set's undecided rows after each round
  cl::PinnedBuffer progress_;  // undecided_ as read back (kept: the reads do not block)
  ::cl::Kernel row_diagonal_, coupling_max_, strength_mask_, filter_count_, filter_fill_, mis_start_, mis_neighbour_max_, mis_decide_,
      mis_members_, join_seeds_, join_neighbours_, component_constants_, block_norms_, block_norms_team_, tentative_count_,
      tentative_fill_, tentative_qr_, tentative_scatter_, smooth_prolongator_;
};

}  // namespace clcg::solver
