#pragma once
// The distributed AMG set-up's work on each rank's device (kernels/distributed_setup.cl, with
// aggregation.cl's and sparse_product.cl's kernels): every step of the host reference's
// smoothed aggregation (multigrid/coarsening.hpp) over the ranks. The hosts build the halos and
// move what other ranks need through MPI.
//
// - Aggregation (aggregate()): strength, the independent set's rounds (each round's keys
//   exchanged twice), the seeds' numbering and the two joins, keyed on global rows.
// - Prolongators: the tentative one (P_tent filled with the candidates, transposed over the
//   ranks, each aggregate factored on its seed's rank, Q sent back), then the smoothing.
// - Products C = A B for this rank's rows of A: B's rows are those this rank owns (from the
//   host, or a product kept on the device), then those fetched from their owners
//   (remote_rows.hpp) in the order of A's halo's ghosts. C comes back with global columns, or
//   stays on the device (KeptRows) for the next product, a transpose, or the solve.
// - Transposes R = P^T: the one-device transpose of this rank's entries and those other ranks
//   sent.
// - Lanczos: the steps of the host reference's estimate, A's ghosts exchanged by a DeviceHalo,
//   each dot summed chunk by chunk on the device (a work-group a chunk, in one fixed order) and
//   the chunks' sums in one fixed order on the host.
//
// With products not fused into sums (the kernel files), the levels have the bits of the host
// reference on the whole matrices where the device does as asked (PoCL); on any device they
// have the same bits on any partition, since every value is summed in an order that does not
// depend on it.
//
//   RankSetup device(comm, env);
//   const RankSetup::Rows a_here = device.upload(a, partition);
//   double rho = device.radius(a_here, device.diagonal(a_here), chunk_begin, 10, solver::ElementType::f32);
//   RankSetup::KeptRows ap =
//       device.multiply_kept(a_here, p_here, device.fetch_rows(rows_of_p, p_here, a_here.halo), coarse_rows, "A P");
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/io/bulk_vector.hpp"
#include "clcg/solver/multigrid/row_kernels.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::distributed {

// Rows of a product kept on the devices that this rank's next product needs from their owners
// (RankSetup::fetch_rows): their ids and offsets here. Their entries stay on the owners' devices
// until that product streams them into its B (device_stream.hpp); this rank's answers to the
// others wait on its device the same way. Every rank's fetch is used by one product, the ranks'
// products together.
struct KeptRemoteRows {
  std::vector<std::int64_t> ids;
  solver::BulkVector<std::int64_t> row_ptr{0};
  std::vector<std::int64_t> entries_from;  // the entries of the rows from each rank
  ::cl::Buffer answer_col, answer_values;  // the rows asked of this rank, in the order asked
  std::vector<std::int64_t> entries_to;    // the entries of them for each rank (in rank order)
};

class RankSetup {
 public:
  // Values in double: the device needs fp64 (std::runtime_error naming the device otherwise).
  // Every call is collective: where one rank's device fails (its memory), that rank throws its
  // error and every other AnotherRankFailed, so none waits in MPI alone. `chunk_bytes`: each of
  // the two pinned halves products move through (small values exercise many in tests; 8 MB: a
  // chunk moves in ~0.4 ms, and pinning 64 MB halves cost the set-up 50 ms on an H200's host).
  // B and C take 64-bit row offsets past `wide_from` nonzeros: 2^31 - 1, or less in tests.
  static constexpr std::size_t default_chunk_bytes = std::size_t(8) << 20;
  RankSetup(MPI_Comm comm, const cl::Env& env, std::size_t chunk_bytes = default_chunk_bytes,
            std::uint64_t wide_from = solver::max_csr_index);

  // A's rows on the device with local columns: this rank's `owned` columns (its rows of B)
  // first, then the ghosts, in the order of their halo.
  struct Rows {
    solver::DeviceCsrMatrix matrix;
    Halo halo;
    std::int64_t global_rows = 0, row_begin = 0;
    std::int64_t owned = 0;         // the columns this rank owns (its rows of B)
    std::int64_t column_begin = 0;  // the global number of the first of them
  };
  // Collective: `a`'s rows (global columns, which `columns` spreads over the ranks) uploaded,
  // their ghosts found on the device, the halo built on the hosts. std::length_error where a
  // row names a column 2^31 or more from this rank's first.
  Rows upload(const LocalRows& a, const Partition& columns);
  // The rows back on the host with global columns (for tests).
  LocalRows download(const Rows& rows);

  // A product left on this rank's device (global columns as 32-bit indices; its exact longest
  // row as the products give it): the owned rows of a later product's B, copied on the device,
  // and the rows other ranks fetch (fetch_rows below). No host copy of it is made, not even of
  // its row offsets.
  struct KeptRows {
    solver::DeviceCsrMatrix matrix;
    std::int64_t global_rows = 0, row_begin = 0;
    solver::ProductRoom room;  // left in its buffers after its rows (multiply_kept's `room`)
  };
  // C = A B: `owned` this rank's rows of B, `remote` the ghosts' rows (checked against the
  // halo), `columns` B's (global) column count.
  KeptRows multiply_kept(const Rows& a, const LocalRows& owned, const RemoteRows& remote, std::int64_t columns,
                         const std::string& label);
  // The same with B's owned rows a kept product (copied on the device, and kept).
  KeptRows multiply_kept(const Rows& a, const KeptRows& owned, KeptRemoteRows&& remote, std::int64_t columns,
                         const std::string& label);
  // The same, the kept product used up: B takes its buffers where its room holds the remote
  // rows (appended in place), else copies it and frees it. Where `owned_back` is given it gets
  // those rows back as B holds them (B's first rows, in B's buffers), so that one copy of them
  // is on the device through the product (level 0's A P and R (A P) are the set-up's peak).
  // `room`: left in C's buffers for the rows a later product appends (KeptRows::room); `list`:
  // the count's (SparseProducts::multiply).
  KeptRows multiply_kept(const Rows& a, KeptRows&& owned, KeptRemoteRows&& remote, std::int64_t columns,
                         const std::string& label, KeptRows* owned_back = nullptr, solver::ProductRoom room = {},
                         solver::ColumnList list = solver::ColumnList::where_it_fits);
  // The rows `wanted` of a kept product whose rows `partition` spreads over the ranks, from
  // their owners' devices: their lengths now, their entries when a product takes them
  // (KeptRemoteRows). Collective.
  KeptRemoteRows fetch_rows(const Partition& partition, const KeptRows& rows, const std::vector<std::int64_t>& wanted);
  // The rows of `halo`'s ghosts, asked when the halo was made (no request travels: each owner
  // answers its send list).
  KeptRemoteRows fetch_rows(const Partition& partition, const KeptRows& rows, const Halo& halo);
  LocalRows download(const KeptRows& rows);  // back on the host (global columns)
  // The fetched rows themselves, streamed into new buffers and read back (global columns; for
  // tests). Collective.
  RemoteRows download(KeptRemoteRows&& rows);

  // aggregate() of the host reference over the ranks on a level's graph `g` (uploaded as
  // above), after its strong_connections (`theta`): the independent set's rounds keyed on
  // global rows, the seeds numbered in global row order (this rank's after those of the ranks
  // before it), then the two joins, the ghosts' values exchanged between the kernels. Every
  // rank runs the same rounds. Collective.
  // `bounds`: local nodes (ascending, at most the rank's count), before each of which the
  // seeds here are counted (seeds_before).
  struct Aggregates {
    ::cl::Buffer of_node;                     // each of this rank's nodes' global aggregate (int), -1: none
    solver::BulkVector<std::int32_t> of_node_held;  // of_node on the host instead (hold_on_host)
    bool held = false;
    std::vector<std::int64_t> seeds_before;  // the aggregates seeded here at nodes before each bound
    Partition coarse;                         // which rank holds which aggregate (its seed's)
  };
  Aggregates aggregate(const Rows& g, double theta, const std::vector<std::int64_t>& bounds);
  // Aggregates kept between set-ups wait on the host (of_node of `nodes` ints: a GB a rank at
  // 1024^3 on four GPUs, through the set-up's memory peak), and come back for the next.
  // Collective.
  void hold_on_host(Aggregates& g, std::size_t nodes);
  void back_on_device(Aggregates& g);

  // Candidates (rows x k doubles) to and from the device.
  ::cl::Buffer uploaded(std::span<const double> values);
  std::vector<double> downloaded(const ::cl::Buffer& values, std::size_t count);
  // tentative_prolongator() of the host reference over the ranks, kept: this rank's rows of
  // P_tent, whose rows `rows` spreads. `of_node`: the global aggregate of each of this rank's
  // nodes (`block` rows each; -1: none; Aggregates::of_node); `candidates`: B on this rank's
  // rows (rows x k, row-major, on the device), or none for one constant a component (k = block,
  // each rank's first row a multiple of it); `columns`: the coarse rows (each aggregate's k on
  // its seed's rank).
  // P_tent is filled with B, transposed over the ranks (transpose below: aggregate g's column
  // j is T's row g k + j, its members' rows in global order), each aggregate's block factored
  // by the rank of its seed (aggregation.cl's tentative_qr, the reference's factor_aggregate)
  // and Q sent back. Of the constants, the factors follow from the aggregates' sizes alone
  // (constant_tentative: the same bits). `coarse_candidates` gets this rank's aggregates' R
  // (k x k each, on the device: the next level's candidates).
  // Collective.
  KeptRows tentative(const ::cl::Buffer& of_node, int block, const ::cl::Buffer& candidates, int k,
                     const Partition& rows, const Partition& columns, ::cl::Buffer& coarse_candidates);
  // A square level's diagonal on this rank's rows, on the device (each row's diagonal entries
  // summed, as the host reference's diagonal()).
  ::cl::Buffer diagonal(const Rows& a);
  // rho(D^-1 A) of a square level by `steps` of Lanczos on the pencil (A, D) from a pseudo-random
  // start keyed on the global rows; `diagonal`: D (diagonal()); `chunk_begin`: this rank's dot
  // chunks (local row of each start, then the end). 0 where the start has norm 0. Computed in
  // `type`: in float (the levels' precision, as the one-device estimate) A's values and D are
  // converted for it and every pass moves half the bytes; the same bits on any partition either way.
  double radius(const Rows& a, const ::cl::Buffer& diagonal, const std::vector<std::int64_t>& chunk_begin,
                unsigned steps, solver::ElementType type);
  // P = P_tent - omega D^-1 A P_tent (smoothed_prolongator() of the host reference), kept:
  // `tentative` this rank's rows of P_tent, `remote` its ghost rows, `diagonal` A's on this
  // rank's rows (diagonal()).
  KeptRows smoothed(const Rows& a, const KeptRows& tentative, KeptRemoteRows&& remote, std::int64_t columns,
                    const ::cl::Buffer& diagonal, double omega);

  // The rows of M^T that `columns` (M's column partition) gives this rank, on its device with
  // local columns (M's rows: this rank's, then the ghosts), each sorted by column: the bits of
  // clcg::solver::transpose on the whole matrix. `m`: this rank's rows of M, kept on the device,
  // which `rows_of_m` spreads over the ranks. Collective. The entries in other ranks' columns
  // are copied out on the device and go to their owners (send_to_column_owners), whose devices
  // place them with their own. `m_ghosts`, where given, gets those other ranks' columns,
  // sorted and distinct: the ghosts localised() gives M under the same `columns`.
  Rows transpose(const KeptRows& m, const Partition& rows_of_m, const Partition& columns,
                 std::vector<std::int64_t>* m_ghosts = nullptr);
  // The kept rows with local columns under `columns` (this rank's first, then the ghosts: the
  // other ranks' columns they name, found on the device unless `ghosts` gives them, as
  // transpose() does), as upload() makes them; the kept product is used up. Collective.
  Rows localised(KeptRows&& m, const Partition& columns, std::optional<std::vector<std::int64_t>> ghosts = {});
  // `m` with its values in `type` (its double values freed where it held their only handle).
  // Collective.
  void convert(solver::DeviceCsrMatrix& m, solver::ElementType type);

 private:
  // `count` elements of From from the device into `to`, converted to To, through the pinned
  // halves in turn: the host's threads copy one out while the next arrives. (A read straight
  // into new host pages faulted them in on one thread: 2.4 GB/s on the H100s' host.)
  template <class From, class To>
  void read(const ::cl::Buffer& from, std::size_t count, To* to);
  // to[0, count) = value_of(i) as To, made by the host's threads a pinned half at a time while
  // the other half goes to the device (B's columns in 32 bits with no host copy of B).
  template <class To, class F>
  void write(const ::cl::Buffer& to, std::size_t at, std::size_t count, F&& value_of);  // from element `at`
  // Rows whose entries are still to be made (LocalRows::make_entries): made by the host's threads
  // a run of rows at a time into a pinned half (values, then columns as their distances from
  // `first`) while the other half goes to the device. Returns false where a column lies 2^31 or
  // more from `first`.
  bool write_made_entries(const LocalRows& a, const ::cl::Buffer& col, const ::cl::Buffer& values, std::int64_t first);
  // A stencil's rows (LocalRows::stencil) made on the device from their offsets there: no host
  // pass and no upload of the entries (at 1024^3 on four GPUs ~1.9 s of host work a rank).
  // Returns false as write_made_entries does.
  bool make_stencil_entries(const LocalRows& a, const ::cl::Buffer& row_ptr, const ::cl::Buffer& col,
                            const ::cl::Buffer& values, std::int64_t first);
  // step() on this rank's device, its failure shared with every rank (see above).
  template <class F>
  auto shared(F&& step) const;
  // B of C = A B on this rank's device alone (shared() by the caller): B's `owned_rows` rows
  // and their `mine` entries put in B's first places by fill_owned(b_row, wide offsets, b_col,
  // b_val, mine) with their offsets, then the offsets of the remote rows (`remote_ptr`: the
  // halo's ghosts, `remote_ids`); their entries are the caller's to put after B's own. `in_place`: B's
  // buffers are this kept product's (its rows in place, fill_owned not called).
  template <class Fill>
  solver::DeviceCsrMatrix b_rows(const Rows& a, std::size_t owned_rows, std::size_t mine, Fill&& fill_owned,
                                 const std::vector<std::int64_t>& remote_ids, const solver::BulkVector<std::int64_t>& remote_ptr,
                                 std::int64_t columns, const KeptRows* in_place = nullptr);
  struct Product {
    solver::DeviceCsrMatrix c, b;
  };
  // C = A B with B's owned rows a kept product's, copied on the device (from_device), or where
  // it is `used_up` and its room holds the remote rows, in its own buffers; the remote rows
  // streamed into B from their owners. `room`: C's (multiply_kept). Collective.
  Product product(const Rows& a, const KeptRows& owned, KeptRows* used_up, KeptRemoteRows&& remote,
                  std::int64_t columns, const std::string& label, solver::ProductRoom room = {},
                  solver::ColumnList list = solver::ColumnList::where_it_fits);
  // The remote rows' entries streamed into b_col and b_val from entry `at` on (every rank's
  // answers to the others streamed alike, then freed). Collective.
  void receive(KeptRemoteRows& remote, const ::cl::Buffer& b_col, const ::cl::Buffer& b_val, std::size_t at);
  // The fetch's lengths and this rank's answers on its device, given the rows others asked of it.
  KeptRemoteRows fetched(const KeptRows& rows, const std::vector<std::int64_t>& wanted,
                         const std::vector<std::int64_t>& asked, const std::vector<int>& asked_counts);
  auto from_host(const LocalRows& owned);  // a fill_owned from the host's rows
  auto from_device(const KeptRows& owned, KeptRows* used_up);
  KeptRows kept(const Rows& a, solver::DeviceCsrMatrix c);
  ::cl::Buffer long_offsets(const solver::DeviceCsrMatrix& m);  // its row offsets in 64 bits
  ::cl::Buffer narrow_offsets(const solver::DeviceCsrMatrix& m);  // in 32 bits (its entries fit them)
  // The entries of `m` (row offsets `m_row`) outside the columns [first, last), in row order;
  // `columns_only`: their columns alone read back (rows and values left empty).
  OutgoingEntries outside(const solver::DeviceCsrMatrix& m, const ::cl::Buffer& m_row, std::int64_t first,
                          std::int64_t last, bool columns_only = false);
  // The columns of entries outside a rank's (outside()), sorted and distinct: the ghosts of their
  // rows, given how many columns there are.
  static std::vector<std::int64_t> ghost_columns(const OutgoingEntries& out, std::int64_t columns);
  // `col` (nnz 32-bit columns) local in place: [first, last) from 0, then the ghosts (sorted,
  // holding every other column) by their place.
  KeptRows constant_tentative(const ::cl::Buffer& of_node, int k, const Partition& rows, const Partition& columns,
                              ::cl::Buffer& coarse_candidates);
  // t's entries j[e] of its local rows row[e] set to values[e] (rows of this rank: Q's values).
  void set_entries(KeptRows& t, const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& j,
                   const double* values);
  void make_local(const ::cl::Buffer& col, std::size_t nnz, std::int64_t first, std::int64_t last,
                  const std::vector<std::int64_t>& ghost);
  void read_offsets(const solver::DeviceCsrMatrix& c, solver::BulkVector<std::int64_t>& row_ptr);
  // Where the rows `rows` (local numbers) of `m` start, and their lengths, from its offsets on
  // the device.
  std::vector<std::int64_t> row_starts(const solver::DeviceCsrMatrix& m, const std::vector<std::int64_t>& rows,
                                       std::vector<std::int64_t>& lengths);
  // `narrow`, or where `m` has 64-bit offsets its variant built with -DB_OFFSET=long (`wide`,
  // built the first time).
  ::cl::Kernel& for_offsets(const solver::DeviceCsrMatrix& m, ::cl::Kernel& narrow, std::optional<::cl::Kernel>& wide,
                            const char* name);
  LocalRows read_rows(const solver::DeviceCsrMatrix& c, std::int64_t global_rows, std::int64_t row_begin);  // to the host
  // The rows `asked` of `rows` gathered on the device into out's answer buffers; returns their lengths.
  std::vector<std::int64_t> answer(const KeptRows& rows, const std::vector<std::int64_t>& asked, KeptRemoteRows& out);

  MPI_Comm comm_;
  const cl::Env& env_;
  std::uint64_t wide_from_;
  std::optional<solver::SparseProducts> products_;
  std::optional<solver::RowKernels> kernels_;
  ::cl::Kernel seeds_before_;
  struct LanczosKernels {  // radius()'s, in one precision
    LanczosKernels(const cl::Env& env, solver::ElementType type);
    solver::RowKernels run;
    ::cl::Kernel chunk_dots, chunk_norms, start, step, divided;
  };
  LanczosKernels& lanczos_kernels(solver::ElementType type);  // built the first time
  std::optional<LanczosKernels> lanczos_f64_, lanczos_f32_;
  ::cl::Kernel row_diagonal_, coupling_max_, strength_mask_, strong_count_, strong_fill_, mis_begin_, mis_keys_;
  ::cl::Kernel mis_spread_, mis_settle_, mark_sent_, ghost_keys_;
  ::cl::Kernel seed_flags_, seed_numbers_, join_step_, narrowed_ids_, stencil_entries_;
  ::cl::Kernel ghosts_last_, smooth_rows_;
  ::cl::Kernel row_spans_, asked_lengths_, gather_rows_;
  // (built where a matrix first has 64-bit offsets)
  std::optional<::cl::Kernel> smooth_rows_wide_, row_spans_wide_, asked_lengths_wide_, gather_rows_wide_;
  ::cl::Kernel count_outside_, entries_outside_, local_columns_;
  ::cl::Kernel tentative_count_, tentative_fill_, tentative_qr_, scatter_own_, scatter_values_;
  ::cl::Kernel constant_columns_, own_sizes_, add_sizes_, sizes_at_, constant_values_, constant_r_;
  cl::PinnedBuffer pinned_;  // two halves of chunk_bytes, for reads and writes; the streams' slots
};

}  // namespace clcg::distributed
