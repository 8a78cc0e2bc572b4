#include "clcg/solver/multigrid/device_coarsening.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "clcg/solver/multigrid/row_kernels.hpp"

namespace clcg::solver {
namespace {

// Rounds of the independent set before the undecided rows are all taken in (never reached on
// the shared matrices or the grids: they take 3 to 13).
static_assert(max_mis_rounds < 255, "mis_decide marks rows with the next round in a uchar");

constexpr std::size_t block_group = 64;   // kernels/aggregation.cl's BLOCK_GROUP: a node's work-items
constexpr std::size_t block_stage = 1024;  // and BLOCK_STAGE: the most entries of a node's rows they take

}  // namespace

template <class... Args>
void DeviceCoarsening::run_rows(::cl::Kernel& kernel, const char* name, const DeviceCsrMatrix& a,
                                const Args&... args) {
  if (RowKernels::row_team(a.rows(), a.nnz()) == 1)  // (the default launch shape: a grid stride)
    kernels_.run(kernel, name, std::size_t(a.rows()), cl_uint(1), args...);
  else
    kernels_.run_teams(kernel, name, a.rows(), a.nnz(), args...);
}

DeviceCoarsening::DeviceCoarsening(const cl::Env& env, ElementType type, std::uint64_t wide_from)
    : env_(env),
      type_(type),
      products_(env, type, wide_from),
      kernels_(env, type),
      changed_(make_index_buffer(env, 1)),
      undecided_(make_index_buffer(env, max_mis_rounds + 1)),
      progress_(env, (max_mis_rounds + 1) * sizeof(cl_int)) {
  const std::string options = real_build_options(type);
  const auto kernel = [&](const char* name) { return env.kernel("aggregation.cl", name, options); };
  row_diagonal_ = kernel("row_diagonal");
  coupling_max_ = kernel("coupling_max");
  strength_mask_ = kernel("strength_mask");
  filter_count_ = kernel("filter_count");
  filter_fill_ = kernel("filter_fill");
  mis_start_ = kernel("mis_start");
  mis_neighbour_max_ = kernel("mis_neighbour_max");
  mis_decide_ = kernel("mis_decide");
  mis_members_ = kernel("mis_members");
  join_seeds_ = kernel("join_seeds");
  join_neighbours_ = kernel("join_neighbours");
  component_constants_ = kernel("component_constants");
  block_norms_ = kernel("block_norms");
  block_norms_team_ = kernel("block_norms_team");
  tentative_count_ = kernel("tentative_count");
  tentative_fill_ = kernel("tentative_fill");
  tentative_qr_ = kernel("tentative_qr");
  tentative_scatter_ = kernel("tentative_scatter");
  smooth_prolongator_ = kernel("smooth_prolongator");
}

DeviceCsrMatrix DeviceCoarsening::filter(const DeviceCsrMatrix& a, double theta) {
  const std::size_t n = std::size_t(a.rows());
  ::cl::Buffer diag = make_vector(env_, type_, n);
  kernels_.run(row_diagonal_, "row_diagonal", n, a.row_ptr(), a.col_idx(), a.values(), cl_int(0), diag);
  ::cl::Buffer strong =
      env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, std::size_t(a.nnz())), "allocating the strong connections");
  ::cl::Buffer most = make_vector(env_, type_, n);
  kernels_.run(coupling_max_, "coupling_max", n, a.row_ptr(), a.col_idx(), a.values(), diag, most);
  run_rows(strength_mask_, "strength_mask", a, a.row_ptr(), a.col_idx(), a.values(), diag, most,
           Real{theta * theta}, strong);
  ::cl::Buffer counts = make_index_buffer(env_, n + 1);
  kernels_.clear_ints(changed_, 1);
  kernels_.run(filter_count_, "filter_count", n, a.row_ptr(), strong, counts, changed_);
  cl_int changed = 0;
  cl::checked("reading whether the filter drops entries",
              [&] { env_.queue().enqueueReadBuffer(changed_, CL_TRUE, 0, sizeof(cl_int), &changed); });
  if (!changed) return a;  // A_f is A: nothing to store or copy
  DeviceCsrMatrix filtered = products_.allocate(counts, a.rows(), a.cols());
  run_rows(filter_fill_, "filter_fill", a, a.row_ptr(), a.col_idx(), a.values(), strong, filtered.row_ptr(),
           filtered.col_idx(), filtered.values());
  return filtered;
}

::cl::Buffer DeviceCoarsening::inverse_diagonal(const DeviceCsrMatrix& a) {
  const std::size_t n = std::size_t(a.rows());
  ::cl::Buffer inv_diag = make_vector(env_, type_, n);
  kernels_.run(row_diagonal_, "row_diagonal", n, a.row_ptr(), a.col_idx(), a.values(), cl_int(1), inv_diag);
  return inv_diag;
}

DeviceAggregates DeviceCoarsening::aggregate(const DeviceCsrMatrix& f) {
  const std::size_t n = std::size_t(f.rows());
  DeviceAggregates result;
  result.rows = f.rows();
  const auto bytes = [&](std::size_t per_row) {
    return env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * per_row, "allocating the independent set's state");
  };
  ::cl::Buffer state = make_index_buffer(env_, n), key = bytes(sizeof(cl_ulong)), most = bytes(sizeof(cl_ulong)),
               near = bytes(1);
  kernels_.run(mis_start_, "mis_start", n, f.row_ptr(), state, key);
  kernels_.clear_ints(undecided_, max_mis_rounds + 1);
  // Every second round's progress is read without blocking (into pinned memory: no staging
  // copy), and the host waits for the read of two rounds before: the device always has rounds
  // queued (a blocking read would drain it) and stops at most three rounds after the last
  // undecided row (a round with none left changes nothing).
  std::vector<::cl::Event> read(max_mis_rounds + 1);
  cl_int* progress = reinterpret_cast<cl_int*>(progress_.data());
  for (cl_int round = 1; n > 0; ++round) {
    kernels_.run(mis_neighbour_max_, "mis_neighbour_max", n, f.row_ptr(), f.col_idx(), near, round, key, most);
    kernels_.run(mis_decide_, "mis_decide", n, f.row_ptr(), f.col_idx(), most, round,
                 cl_int(round == cl_int(max_mis_rounds)), state, key, near, undecided_);
    if (round % 2 != 0) continue;
    const std::size_t r = std::size_t(round);
    cl::checked("reading the independent set's progress", [&] {
      env_.queue().enqueueReadBuffer(undecided_, CL_FALSE, r * sizeof(cl_int), sizeof(cl_int), &progress[r], nullptr,
                                     &read[r]);
    });
    const std::size_t done = round == cl_int(max_mis_rounds) ? r : r - 2;
    if (done < 2) continue;
    cl::checked("waiting for the independent set's progress", [&] { read[done].wait(); });
    if (progress[done] == 0) break;
  }
  ::cl::Buffer seed = make_index_buffer(env_, n + 1);
  kernels_.run(mis_members_, "mis_members", n, state, seed);
  result.count = std::int32_t(products_.exclusive_scan(seed, n).total);  // (at most n)
  ::cl::Buffer first = make_index_buffer(env_, n);
  kernels_.run(join_seeds_, "join_seeds", n, f.row_ptr(), f.col_idx(), state, seed, first);
  result.of_row = make_index_buffer(env_, n);
  kernels_.run(join_neighbours_, "join_neighbours", n, f.row_ptr(), f.col_idx(), first, result.of_row);
  return result;
}

DeviceCsrMatrix DeviceCoarsening::node_matrix(const DeviceCsrMatrix& a, unsigned block) {
  const std::size_t nodes = std::size_t(a.rows()) / block;
  // Nodes of up to block_stage entries by a group each, longer ones (where a's rows may be so
  // long) by one work-item.
  const bool long_nodes = a.max_row_length() == 0 || std::size_t(a.max_row_length()) * block > block_stage;
  const std::size_t groups = std::min(nodes, groups_per_unit * env_.info().compute_units * 8);
  const auto pass = [&](cl_int fill, const ::cl::Buffer& count, const ::cl::Buffer& n_row, const ::cl::Buffer& n_col,
                        const ::cl::Buffer& n_val) {
    if (groups > 0)
      kernels_.run_groups(block_norms_team_, "block_norms_team", groups, block_group, nodes, cl_uint(block), fill,
                          a.row_ptr(), a.col_idx(), a.values(), count, n_row, n_col, n_val);
    if (long_nodes)
      kernels_.run(block_norms_, "block_norms", nodes, cl_uint(block), fill, cl_int(1), a.row_ptr(), a.col_idx(),
                   a.values(), count, n_row, n_col, n_val);
  };
  ::cl::Buffer counts = make_index_buffer(env_, nodes + 1);
  pass(0, counts, counts, counts, a.values());
  DeviceCsrMatrix n = products_.allocate(counts, std::int32_t(nodes), std::int32_t(nodes));
  pass(1, n.row_ptr(), n.row_ptr(), n.col_idx(), n.values());
  return n;
}

::cl::Buffer DeviceCoarsening::component_constants(std::size_t rows, unsigned k) {
  ::cl::Buffer out = make_vector(env_, type_, rows * k);
  kernels_.run(component_constants_, "component_constants", rows, cl_uint(k), out);
  return out;
}

DeviceCsrMatrix DeviceCoarsening::tentative_prolongator(const DeviceAggregates& g, unsigned block,
                                                        const ::cl::Buffer& candidates, unsigned k,
                                                        ::cl::Buffer& coarse_candidates) {
  const std::size_t n = std::size_t(g.rows) * block;
  ::cl::Buffer counts = make_index_buffer(env_, n + 1);
  kernels_.run(tentative_count_, "tentative_count", n, cl_uint(block), cl_uint(k), g.of_row, counts);
  DeviceCsrMatrix tentative = products_.allocate(counts, std::int32_t(n), std::int32_t(std::size_t(g.count) * k));
  kernels_.run(tentative_fill_, "tentative_fill", n, cl_uint(block), cl_uint(k), g.of_row, candidates,
               tentative.row_ptr(), tentative.col_idx(), tentative.values());
  const DeviceCsrMatrix by_aggregate = products_.transpose(tentative);
  coarse_candidates = make_vector(env_, type_, std::size_t(g.count) * k * k);
  kernels_.run(tentative_qr_, "tentative_qr", std::size_t(g.count), cl_uint(k), Real{dependent_candidate(type_)},
               by_aggregate.row_ptr(), by_aggregate.values(), coarse_candidates);
  kernels_.run(tentative_scatter_, "tentative_scatter", std::size_t(by_aggregate.rows()), cl_uint(k),
               by_aggregate.row_ptr(), by_aggregate.col_idx(), by_aggregate.values(), tentative.row_ptr(),
               tentative.values());
  return tentative;
}

DeviceCsrMatrix DeviceCoarsening::smoothed_prolongator(const DeviceCsrMatrix& a, const ::cl::Buffer& inv_diag,
                                                       const DeviceCsrMatrix& tentative, double omega) {
  DeviceCsrMatrix p = products_.multiply(a, tentative, "A P_tent");
  kernels_.run(smooth_prolongator_, "smooth_prolongator", std::size_t(p.rows()), tentative.row_ptr(),
               tentative.col_idx(), tentative.values(), inv_diag, Real{omega}, p.row_ptr(), p.col_idx(), p.values());
  return p;
}

void DeviceCoarsening::smoothed_prolongator_values(const DeviceCsrMatrix& a, const ::cl::Buffer& inv_diag,
                                                   const DeviceCsrMatrix& tentative, double omega, DeviceCsrMatrix& p) {
  products_.multiply_values(a, tentative, p, "A P_tent");
  kernels_.run(smooth_prolongator_, "smooth_prolongator", std::size_t(p.rows()), tentative.row_ptr(),
               tentative.col_idx(), tentative.values(), inv_diag, Real{omega}, p.row_ptr(), p.col_idx(), p.values());
}

std::vector<KernelTime> DeviceCoarsening::take_kernel_times() {
  std::vector<KernelTime> times = kernels_.take_times();
  add_times(times, products_.take_kernel_times());
  return times;
}

}  // namespace clcg::solver
