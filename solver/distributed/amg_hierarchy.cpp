#include "clcg/solver/distributed/amg_hierarchy.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>

#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/distributed/wall_clock.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/multigrid/phase_clock.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"

namespace clcg::distributed {
namespace {

constexpr unsigned lanczos_steps = 10;  // as the one-device set-up

// node_matrix() of the host reference on this rank's nodes (`block` rows each): entry (u, v)
// the Frobenius norm of A's block (u, v), summed row by row in column order.
LocalRows node_rows(const LocalRows& a, int block) {
  LocalRows n;
  n.global_rows = a.global_rows / block;
  n.row_begin = a.row_begin / block;
  std::map<std::int64_t, double> row;
  for (std::int64_t u = 0; u < a.rows() / block; ++u) {
    row.clear();
    for (std::int64_t c = 0; c < block; ++c) {
      const std::size_t i = std::size_t(u * block + c);
      for (std::int64_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e)
        row[a.col[std::size_t(e)] / block] += a.values[std::size_t(e)] * a.values[std::size_t(e)];
    }
    for (const auto& [v, sum] : row) n.col.push_back(v), n.values.push_back(std::sqrt(sum));
    n.row_ptr.push_back(std::int64_t(n.col.size()));
  }
  return n;
}

// A partition counted in other units: its offsets times `times` over `divided_by` (rows to a
// block system's nodes, aggregates to a coarse level's rows, k a node).
Partition scaled(const Partition& p, std::int64_t times, std::int64_t divided_by) {
  Partition out = p;
  for (std::int64_t& o : out.offsets) o = o * times / divided_by;
  return out;
}

// The bounds of the fine level's chunks in nodes of `block` rows: the first node at or past
// each (aggregate() counts the seeds before each).
std::vector<std::int64_t> chunk_nodes(const std::vector<std::int64_t>& fine_chunks, int block) {
  std::vector<std::int64_t> out(fine_chunks.size());
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = (fine_chunks[c] + block - 1) / block;
  return out;
}

// The coarse level's chunks: the k rows of each aggregate seeded (by a node) in each chunk of
// the fine level.
std::vector<std::int64_t> coarse_chunks(const RankSetup::Aggregates& g, int k) {
  std::vector<std::int64_t> out(g.seeds_before.size());
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = g.seeds_before[c] * k;
  return out;
}

// The whole operator on every rank (collective).
solver::HostCsr gather_whole(MPI_Comm comm, const DistributedLevel& level) {
  const int ranks = level.partition.ranks();
  const LocalRows& a = level.rows();
  std::vector<int> row_counts(static_cast<std::size_t>(ranks)), entry_counts(static_cast<std::size_t>(ranks));
  int rows = int(a.rows()), entries = int(a.nnz());
  MPI_Allgather(&rows, 1, MPI_INT, row_counts.data(), 1, MPI_INT, comm);
  MPI_Allgather(&entries, 1, MPI_INT, entry_counts.data(), 1, MPI_INT, comm);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = a.row_ptr[i + 1] - a.row_ptr[i];
  const std::int64_t total_rows = level.partition.rows();
  std::vector<std::int64_t> all_lengths(static_cast<std::size_t>(total_rows));
  MPI_Allgatherv(lengths.data(), rows, MPI_INT64_T, all_lengths.data(), row_counts.data(),
                 offsets_of(row_counts).data(), MPI_INT64_T, comm);
  std::int64_t nnz = 0;
  for (std::int64_t l : all_lengths) nnz += l;
  solver::HostCsr whole;
  whole.rows = whole.cols = std::int32_t(total_rows);
  whole.values.resize(std::size_t(nnz));
  whole.col_idx.resize(std::size_t(nnz));
  // (the columns as the gathered matrix's 32 bits: no 64-bit copy of the whole level)
  const std::vector<std::int32_t> cols(a.col.begin(), a.col.end());
  MPI_Allgatherv(cols.data(), entries, MPI_INT32_T, whole.col_idx.data(), entry_counts.data(),
                 offsets_of(entry_counts).data(), MPI_INT32_T, comm);
  MPI_Allgatherv(a.values.data(), entries, MPI_DOUBLE, whole.values.data(), entry_counts.data(),
                 offsets_of(entry_counts).data(), MPI_DOUBLE, comm);
  whole.row_ptr.assign(std::size_t(total_rows) + 1, 0);
  for (std::size_t i = 0; i < all_lengths.size(); ++i) whole.row_ptr[i + 1] = whole.row_ptr[i] + std::int32_t(all_lengths[i]);
  return whole;
}

// The last level's candidates (rows x k), whole on every rank (collective).
std::vector<double> gather_candidates(MPI_Comm comm, const DistributedLevel& level, const std::vector<double>& mine,
                                      int k) {
  const int ranks = level.partition.ranks();
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) counts[std::size_t(r)] = int(level.partition.size(r)) * k;
  std::vector<double> whole(std::size_t(level.partition.rows()) * std::size_t(k));
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_DOUBLE, whole.data(), counts.data(), offsets_of(counts).data(),
                 MPI_DOUBLE, comm);
  return whole;
}

// The bytes the set-up's level 0 may hold on this device: `above`, or 0.9 of its memory where 0.
double memory_limit(const cl::Env& env, std::uint64_t above) {
  return above ? double(above) : 0.9 * double(env.info().global_memory_bytes);
}

std::uint64_t bytes_of(std::initializer_list<const solver::DeviceCsrMatrix*> held) {
  std::uint64_t bytes = 0;
  for (const solver::DeviceCsrMatrix* m : held) bytes += m->bytes();
  return bytes;
}

// Whether level 0's A leaves the device through its Galerkin product (collective;
// build_hierarchy's `finest_leaves_above`). With A on the device through R (A P) the set-up's
// peak is about 1.04 times the four matrices on 3D Poisson (81.6 GB at A P's fill at 660^3 on
// one rank); it ran out on an H100 at 0.95 of its memory (660^3) and fitted at 0.87 (640^3,
// where going up again would cost 0.7 s of a 3.8 s set-up on an H200): 0.9 parts them.
bool finest_a_leaves(MPI_Comm comm, const cl::Env& env, std::uint64_t above,
                     std::initializer_list<const solver::DeviceCsrMatrix*> held) {
  int leaves = double(bytes_of(held)) > memory_limit(env, above);
  MPI_Allreduce(MPI_IN_PLACE, &leaves, 1, MPI_INT, MPI_MAX, comm);
  return leaves != 0;
}

// Whether level 0's R (A P) lists its columns for its fill, which then only sums (the product a
// third shorter on 256^3): where the list and about as much again for the product fit beside
// the set-up's matrices within `above` bytes (finest_a_leaves' limit). At the set-up's memory
// peak (level 0's R (A P) of 1024^3 on four H100s, where the list is 9.2 GB a rank) it lists
// none. The choice leaves the product's bits as they are: each rank makes its own.
solver::ColumnList level0_list(const cl::Env& env, std::uint64_t above, std::size_t rows,
                               std::initializer_list<const solver::DeviceCsrMatrix*> held) {
  const std::uint64_t bytes = 3 * solver::SparseProducts::listed_bytes(rows) + bytes_of(held);
  return double(bytes) <= memory_limit(env, above) ? solver::ColumnList::where_it_fits : solver::ColumnList::none;
}

// Whether a level of `rows` rows and `entries` entries (global) stops the coarsening and goes
// whole onto every rank: at most options.gather_rows rows and 32 times as many entries.
// Every rank copies the gathered level and sets the rest up on it through its host, ~45 ns an
// entry on an H200's host (0.15 s for 256^3's third level, 42K rows of 87 entries, most of it
// not counted as set-up before; one rank sets it up with the ranks' levels in less, call 155);
// a level on the ranks costs the solve a halo exchange a product instead (~30 ms over 12 steps
// for 2.5K rows on two ranks, call 154). 512^3's fourth level (8.5K rows of 136) still goes whole.
bool gathers(std::size_t rows, std::int64_t entries, const solver::AmgOptions& options) {
  return rows <= options.gather_rows && entries <= 32 * std::int64_t(options.gather_rows);
}

}  // namespace

bool hierarchy_reads_entries(const solver::AmgOptions& options, std::int64_t global_rows) {
  return options.block_size > 1 || std::size_t(global_rows) <= std::max(options.gather_rows, solver::amg_coarse_factor_limit);
}

DistributedHierarchy build_hierarchy(MPI_Comm comm, const cl::Env& env, const Partition& partition,
                                     const LocalRows& a, const solver::AmgOptions& options,
                                     std::vector<RankSetup::Aggregates> kept, solver::ElementType levels,
                                     std::uint64_t finest_leaves_above) {
  solver::AmgOptions global = options;  // the near-null space here is this rank's rows of it
  global.near_nullspace.reset();
  solver::check_block_options(global, std::size_t(partition.rows()));
  const solver::NearNullspace* given = options.near_nullspace.get();
  if (a.entries_pending() && hierarchy_reads_entries(options, partition.rows()))
    throw std::logic_error("build_hierarchy: A's entries are read on the host here; make() them first");
  throw_if_any_rank_failed(comm, capture([&] {  // a rank's own rows: every rank leaves if one is wrong
    if (given && (given->rows != std::size_t(a.rows()) || given->columns < 1 ||
                  given->columns > solver::max_block_size || given->values.size() != given->rows * given->columns))
      throw std::invalid_argument("the near-null space has " + std::to_string(given->rows) + " rows of " +
                                  std::to_string(given->columns) + " vectors here, for this rank's " +
                                  std::to_string(a.rows()) + " rows of A");
  }));
  int block = int(options.block_size), k = given ? int(given->columns) : block;
  const int rank = comm_rank(comm);
  for (std::int64_t cut : partition.offsets)
    if (cut % block != 0)
      throw std::invalid_argument("AMG with block size " + std::to_string(block) + " needs every rank's first row a "
                                  "multiple of it; row " + std::to_string(cut) + " is not");
  RankSetup device(comm, env);
  DistributedHierarchy h;
  const double built_before = env.programs().build_seconds();
  DistributedLevel first;
  first.partition = partition;
  first.given = &a;
  if (partition.size(rank) > 0) {
    const std::int64_t begin = partition.begin(rank), end = begin + partition.size(rank);
    for (std::int64_t c = begin / partition.chunk; c * partition.chunk < end; ++c)
      first.chunk_begin.push_back(std::max(c * partition.chunk, begin) - begin);
  }
  first.chunk_begin.push_back(partition.size(rank));
  h.levels.push_back(std::move(first));
  const std::size_t a_rows = std::size_t(partition.rows());
  solver::PhaseClock phase(env);
  const auto uploading = Clock::now();
  h.levels.front().a_here = device.upload(a, partition);
  env.queue().finish();  // (A's upload is not set-up: DistributedHierarchy's phases)
  h.upload_seconds = since(uploading) - (env.programs().build_seconds() - built_before);
  phase.start();
  // The finest level's candidates (rows x k, row-major, on the device): the given ones, else
  // none (one constant a component: RankSetup::tentative).
  ::cl::Buffer candidates = given ? device.uploaded(given->values) : ::cl::Buffer();
  h.lanczos_seconds += phase.seconds();
  // The aggregates kept for new values wait on the host where A takes over a quarter of a
  // device's memory (1024^3 on four H100s: there the set-up's peak is within a GB of the card);
  // elsewhere the wait for their read costs more than their memory (0.7 s at 512^3 on one H200).
  int tight = h.levels.front().a_here->matrix.bytes() > env.info().global_memory_bytes / 4;
  MPI_Allreduce(MPI_IN_PLACE, &tight, 1, MPI_INT, MPI_MAX, comm);
  while (true) {
    DistributedLevel& fine = h.levels.back();
    const std::size_t rows = std::size_t(fine.partition.rows()), at = h.levels.size() - 1;
    std::int64_t entries = fine.a_here->matrix.nnz();
    MPI_Allreduce(MPI_IN_PLACE, &entries, 1, MPI_INT64_T, MPI_SUM, comm);
    if (kept.empty() ? !(rows > solver::amg_largest_coarsest(a_rows, at > 0, options) &&
                         !gathers(rows, entries, options) && h.levels.size() < options.max_levels)
                     : at == kept.size())
      break;
    phase.start();
    const RankSetup::Rows& a_here = *fine.a_here;
    RankSetup::Aggregates g;
    if (!kept.empty()) {
      g = std::move(kept[at]);
      device.back_on_device(g);
    } else {
      // Aggregates of the strength graph: A's rows (on the device already), or its nodes' (made
      // on the host from A's rows, which come back for it below the finest level).
      std::optional<RankSetup::Rows> nodes_here;
      if (block > 1) {
        const LocalRows a_rows_here = at == 0 ? LocalRows() : device.download(a_here);
        nodes_here = device.upload(node_rows(at == 0 ? fine.rows() : a_rows_here, block),
                                   scaled(fine.partition, 1, block));
      }
      g = device.aggregate(block > 1 ? *nodes_here : a_here, options.strength, chunk_nodes(fine.chunk_begin, block));
    }
    const std::int64_t count = g.coarse.rows();
    h.coarsening_seconds += phase.seconds();
    if (count == 0 || double(count) * k > 0.8 * double(rows)) break;
    phase.start();
    ::cl::Buffer d = device.diagonal(a_here);
    fine.radius = device.radius(a_here, d, fine.chunk_begin, lanczos_steps, levels);
    h.lanczos_seconds += phase.seconds();
    phase.start();
    Partition coarse_partition = scaled(g.coarse, k, 1);  // an aggregate's k unknowns on its seed's rank
    coarse_partition.chunk = fine.partition.chunk;
    const std::int64_t coarse_rows = coarse_partition.rows();
    ::cl::Buffer coarse_candidates;
    RankSetup::KeptRows tentative =
        device.tentative(g.of_node, block, candidates, k, fine.partition, coarse_partition, coarse_candidates);
    candidates = std::move(coarse_candidates);
    h.aggregates.push_back(g);  // (of_node a device handle here: no copy of its memory)
    if (tight) {
      device.hold_on_host(h.aggregates.back(), std::size_t(fine.partition.size(rank) / block));
      g.of_node = {};
    }
    // P = P_tent - omega D^-1 A P_tent (the ghost rows of P_tent fetched), kept for A P.
    RankSetup::KeptRows p_here =
        device.smoothed(a_here, tentative, device.fetch_rows(fine.partition, tentative, a_here.halo),
                        coarse_rows, d, solver::prolongator_weight(fine.radius));
    tentative = {}, d = {};  // (freed before A P, the set-up's peak)
    h.coarsening_seconds += phase.seconds();
    phase.start();
    std::vector<std::int64_t> p_ghosts;  // (found by the transpose, for P's local columns)
    RankSetup::Rows r_here = device.transpose(p_here, fine.partition, coarse_partition, &p_ghosts);
    // (P's rows come back from B, A P's right factor: one copy of P through the set-up's peak)
    KeptRemoteRows p_ghost_rows = device.fetch_rows(fine.partition, p_here, a_here.halo);
    RankSetup::KeptRows p_in_b;
    // Room in A P's buffers for its rows that R (A P) fetches (R's ghosts), appended in place
    // rather than A P copied (level 0's R (A P) is the set-up's memory peak): each as long as
    // A P's longest row here. None where the ghosts pass a quarter of the rows (B copies; so
    // does a rank whose neighbours' rows come out longer).
    const std::size_t ghosts = r_here.halo.ghost_ids.size();
    const solver::ProductRoom room =
        4 * ghosts <= std::size_t(p_here.matrix.rows()) ? solver::ProductRoom{ghosts, 0, true} : solver::ProductRoom{};
    RankSetup::KeptRows ap =
        device.multiply_kept(a_here, std::move(p_here), std::move(p_ghost_rows), coarse_rows, "A P", &p_in_b, room);
    if (at == 0 &&
        finest_a_leaves(comm, env, finest_leaves_above, {&a_here.matrix, &ap.matrix, &r_here.matrix, &p_in_b.matrix})) {
      fine.a_here->matrix = a_here.matrix.shape_only();  // (its shape stays for the layouts)
      h.finest_reuploaded = true;
    }
    fine.p_here = device.localised(std::move(p_in_b), coarse_partition, std::move(p_ghosts));  // for the solve
    device.convert(fine.p_here->matrix, levels);
    KeptRemoteRows ap_ghosts = device.fetch_rows(fine.partition, ap, r_here.halo);
    DistributedLevel coarse;
    coarse.partition = coarse_partition;
    coarse.chunk_begin = coarse_chunks(g, k);
    const solver::ColumnList list =
        at == 0 ? level0_list(env, finest_leaves_above, std::size_t(r_here.matrix.rows()),
                            {&fine.a_here->matrix, &ap.matrix, &r_here.matrix, &fine.p_here->matrix})
                : solver::ColumnList::where_it_fits;
    coarse.a_here = device.localised(
        device.multiply_kept(r_here, std::move(ap), std::move(ap_ghosts), coarse_rows, "R (A P)", nullptr, {}, list),
        coarse_partition);
    h.galerkin_seconds += phase.seconds();
    device.convert(r_here.matrix, levels);
    fine.r_here = std::move(r_here);
    h.levels.push_back(std::move(coarse));
    block = k;
  }
  if (h.finest_reuploaded) {
    phase.start();
    h.levels.front().a_here = device.upload(a, partition);  // (the same columns and halo as before)
    h.lanczos_seconds += phase.seconds();
  }
  DistributedLevel& last = h.levels.back();
  h.block = unsigned(block);
  h.vectors = unsigned(k);
  if (std::size_t(last.partition.rows()) <= std::max(options.gather_rows, solver::amg_coarse_factor_limit)) {
    phase.start();
    if (h.levels.size() > 1) {  // (small; the finest level's stays for the caller: distributed_amg.hpp's `finest`)
      last.a = device.download(*last.a_here);
      last.a_here.reset();
    }
    h.whole = gather_whole(comm, last);
    // Its candidates where they are not one constant a component (given, or R factors from above).
    if (h.levels.size() > 1 || given)
      h.whole_candidates = gather_candidates(
          comm, last, device.downloaded(candidates, std::size_t(last.partition.size(rank)) * std::size_t(k)), k);
    h.gathered = true;
    h.gather_seconds += phase.seconds();
  } else {
    phase.start();
    last.radius = device.radius(*last.a_here, device.diagonal(*last.a_here), last.chunk_begin, lanczos_steps, levels);
    h.lanczos_seconds += phase.seconds();
  }
  h.build_seconds = env.programs().build_seconds() - built_before;
  return h;
}

}  // namespace clcg::distributed
