#include "rank_setup_members.hpp"

#include <atomic>
#include <vector>

#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/sorted_ids.hpp"
#include "clcg/solver/sparse/conversion.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

LocalRows RankSetup::read_rows(const solver::DeviceCsrMatrix& c, std::int64_t global_rows, std::int64_t row_begin) {
  // C back with its 32-bit columns widened and 64-bit offsets.
  LocalRows out;
  out.global_rows = global_rows;
  out.row_begin = row_begin;
  read_offsets(c, out.row_ptr);
  const std::size_t c_nnz = std::size_t(c.nnz());
  out.col.resize(c_nnz);
  read<std::int32_t>(c.col_idx(), c_nnz, out.col.data());
  out.values.resize(c_nnz);
  read<double>(c.values(), c_nnz, out.values.data());
  return out;
}

RankSetup::RankSetup(MPI_Comm comm, const cl::Env& env, std::size_t chunk_bytes, std::uint64_t wide_from)
    : comm_(comm), env_(env), wide_from_(wide_from) {
  shared([&] {
    if (!env.info().fp64)
      throw std::runtime_error("the distributed AMG set-up computes in double on the device; " + env.info().name +
                               " has no fp64");
    products_.emplace(env, solver::ElementType::f64, wide_from);
    kernels_.emplace(env, solver::ElementType::f64);
    const std::string options = solver::real_build_options(solver::ElementType::f64);
    const auto kernel = [&](const char* name) { return env.kernel("distributed_setup.cl", name, options); };
    row_diagonal_ = kernel("row_diagonal");
    coupling_max_ = kernel("coupling_max_team");
    strength_mask_ = kernel("strength_mask");
    strong_count_ = kernel("strong_count");
    strong_fill_ = kernel("strong_fill");
    mis_begin_ = kernel("mis_begin");
    mis_keys_ = kernel("mis_keys");
    ghost_keys_ = kernel("ghost_keys");
    mis_spread_ = kernel("mis_spread");
    mis_settle_ = kernel("mis_settle");
    mark_sent_ = kernel("mark_sent");
    gather_rows_ = kernel("gather_rows");
    ghosts_last_ = kernel("ghosts_last");
    smooth_rows_ = kernel("smooth_rows");
    row_spans_ = kernel("row_spans");
    asked_lengths_ = kernel("asked_lengths");
    count_outside_ = kernel("count_outside");
    entries_outside_ = kernel("entries_outside");
    local_columns_ = kernel("local_columns");
    tentative_count_ = kernel("tentative_count");
    tentative_fill_ = kernel("tentative_fill");
    tentative_qr_ = kernel("tentative_qr");
    scatter_own_ = kernel("scatter_own");
    scatter_values_ = kernel("scatter_values");
    constant_columns_ = kernel("constant_columns");
    own_sizes_ = kernel("own_sizes");
    add_sizes_ = kernel("add_sizes");
    sizes_at_ = kernel("sizes_at");
    constant_values_ = kernel("constant_values");
    constant_r_ = kernel("constant_r");
    seed_flags_ = kernel("seed_flags");
    seed_numbers_ = kernel("seed_numbers");
    seeds_before_ = kernel("seeds_before");
    join_step_ = kernel("join_step");
    narrowed_ids_ = kernel("narrowed_ids");
    stencil_entries_ = kernel("stencil_entries");
    pinned_ = cl::PinnedBuffer(env, 2 * std::max<std::size_t>(8, chunk_bytes / 8 * 8));
    return 0;
  });
}

RankSetup::Rows RankSetup::upload(const LocalRows& a, const Partition& columns) {
  const int rank = comm_rank(comm_);
  Rows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  out.owned = columns.size(rank);
  out.column_begin = columns.begin(rank);
  std::vector<std::int64_t> ghost;
  out.matrix = shared([&] {
    const std::size_t n = std::size_t(a.rows()), nnz = std::size_t(a.nnz());
    check_fits(a.rows(), "rows");
    check_fits(a.nnz(), "nonzeros in A's rows");
    check_fits(out.owned, "columns");
    // One pass of the host's threads through the pinned halves: 32-bit offsets, each column as
    // its distance from this rank's first (the owned ones from 0), the values. The device finds
    // the ghosts and numbers them (no host scan of the columns for the halo).
    ::cl::Buffer row_ptr = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a level's rows");
    ::cl::Buffer col = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, nnz) * sizeof(cl_int), "allocating a level's columns");
    ::cl::Buffer values = doubles(env_, nnz, "allocating a level's values");
    std::atomic<std::int64_t> longest{0};  // (found in the offsets' pass: another host pass over them cost as much)
    write<std::int32_t>(row_ptr, 0, n + 1, [&](std::size_t i) {
      const std::int64_t length = i > 0 ? a.row_ptr[i] - a.row_ptr[i - 1] : 0;
      for (std::int64_t seen = longest.load(std::memory_order_relaxed);
           length > seen && !longest.compare_exchange_weak(seen, length, std::memory_order_relaxed);) {
      }
      return std::int32_t(a.row_ptr[i]);
    });
    const std::int64_t first = out.column_begin;
    std::atomic<bool> far{false};
    if (a.stencil) {
      far = !make_stencil_entries(a, row_ptr, col, values, first);
    } else if (a.entries_pending()) {
      far = !write_made_entries(a, col, values, first);
    } else {
      write<std::int32_t>(col, 0, nnz, [&](std::size_t k) {
        const std::int64_t d = a.col[k] - first;
        if (d != std::int32_t(d)) far.store(true, std::memory_order_relaxed);
        return std::int32_t(d);
      });
      write<double>(values, 0, nnz, [&](std::size_t k) { return a.values[k]; });
    }
    if (far)
      throw std::length_error("rows " + std::to_string(a.row_begin) + ".." + std::to_string(a.row_begin + a.rows()) +
                              " name columns 2^31 or more from this rank's first (" + std::to_string(first) +
                              "); the AMG set-up numbers a rank's columns in 32 bits; use another row order");
    const solver::DeviceCsrMatrix distances(row_ptr, col, values, std::int32_t(n), 0, std::int64_t(nnz),
                                            solver::ElementType::f64, std::int32_t(longest.load()));
    // (distances, below 0 too; in row order a slab's are sorted already: sorted_distinct's one pass)
    const OutgoingEntries outer = outside(distances, long_offsets(distances), 0, out.owned, true);
    ghost = sorted_distinct(std::vector<std::int64_t>(outer.cols.begin(), outer.cols.end()));
    check_fits(out.owned + std::int64_t(ghost.size()), "columns and ghosts");
    make_local(col, nnz, 0, out.owned, ghost);
    for (std::int64_t& g : ghost) g += first;  // (sorted as the distances were)
    return solver::DeviceCsrMatrix(row_ptr, col, values, std::int32_t(n), std::int32_t(out.owned + std::int64_t(ghost.size())),
                                   std::int64_t(nnz), solver::ElementType::f64, std::int32_t(longest.load()));
  });
  out.halo = halo_of_ghosts(comm_, columns, std::move(ghost));
  return out;
}

bool RankSetup::write_made_entries(const LocalRows& a, const ::cl::Buffer& col, const ::cl::Buffer& values,
                                   std::int64_t first) {
  constexpr std::size_t entry = sizeof(double) + sizeof(std::int32_t);
  constexpr std::size_t block = 4096;  // rows a thread makes at once
  const std::size_t half = pinned_.size() / 2 / 8 * 8, per = half / entry;
  const std::size_t n = std::size_t(a.rows());
  const auto offset = [&](std::size_t row) { return std::size_t(a.row_ptr[row]); };
  std::atomic<bool> far{false};
  ::cl::Event sent[2][2];
  for (std::size_t row = 0, c = 0; row < n; ++c) {
    // rows [row, end): as many as the half holds (at least one; a longer row than that throws)
    const auto past = std::upper_bound(a.row_ptr.begin() + std::ptrdiff_t(row) + 1, a.row_ptr.end(),
                                       a.row_ptr[row] + std::int64_t(per));
    const std::size_t end = std::size_t(past - a.row_ptr.begin()) - 1;
    if (end == row)
      throw std::length_error("row " + std::to_string(a.row_begin + std::int64_t(row)) + " has more entries than the "
                              "set-up's pinned memory holds (" + std::to_string(per) + ")");
    for (::cl::Event& e : sent[c % 2])
      if (e()) cl::checked("writing A's rows", [&] { e.wait(); });  // the half is free again
    unsigned char* const base = pinned_.data() + (c % 2) * half;
    double* const out_values = reinterpret_cast<double*>(base);
    std::int32_t* const out_col = reinterpret_cast<std::int32_t*>(base + per * sizeof(double));
    const std::size_t at = offset(row), count = offset(end) - at, blocks = (end - row + block - 1) / block;
    solver::parallel_for(blocks, 1, [&](std::size_t b) {
      const std::size_t r0 = row + b * block, r1 = std::min(end, r0 + block), from = offset(r0) - at;
      if (!a.make_entries(r0, r1, first, out_col + from, out_values + from)) far.store(true, std::memory_order_relaxed);
    });
    if (count > 0) cl::checked("writing A's rows", [&] {
      env_.queue().enqueueWriteBuffer(values, CL_FALSE, at * sizeof(double), count * sizeof(double), out_values,
                                      nullptr, &sent[c % 2][0]);
      env_.queue().enqueueWriteBuffer(col, CL_FALSE, at * sizeof(std::int32_t), count * sizeof(std::int32_t), out_col,
                                      nullptr, &sent[c % 2][1]);
    });
    row = end;
  }
  for (auto& pair : sent)
    for (::cl::Event& e : pair)
      if (e()) cl::checked("writing A's rows", [&] { e.wait(); });
  return !far;
}

bool RankSetup::make_stencil_entries(const LocalRows& a, const ::cl::Buffer& row_ptr, const ::cl::Buffer& col,
                                     const ::cl::Buffer& values, std::int64_t first) {
  const LocalRows::Stencil& s = *a.stencil;
  const std::int64_t plane = s.nx * s.ny, reach = s.three_d ? plane : s.nx;  // the farthest column from a row
  // Every column within [row_begin - reach, row_end + reach): as distances from `first`, 32 bits?
  const std::int64_t low = a.row_begin - reach - first, high = a.row_begin + a.rows() + reach - first;
  if (low != std::int32_t(low) || high != std::int32_t(high)) return false;
  if (a.rows() > 0)
    kernels_->run(stencil_entries_, "stencil_entries", std::size_t(a.rows()), cl_long(a.row_begin), cl_long(s.nx),
                  cl_long(s.ny), cl_long(s.nz), cl_int(s.three_d), solver::Real{s.diagonal}, cl_long(first), row_ptr,
                  col, values);
  return true;
}

void RankSetup::make_local(const ::cl::Buffer& col, std::size_t nnz, std::int64_t first, std::int64_t last,
                           const std::vector<std::int64_t>& ghost) {
  if (nnz == 0) return;
  ::cl::Buffer ghosts = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, ghost.size()) * sizeof(cl_int),
                                    "allocating a level's ghosts");
  write<std::int32_t>(ghosts, 0, ghost.size(), [&](std::size_t g) { return std::int32_t(ghost[g]); });
  kernels_->run(local_columns_, "local_columns", nnz, cl_int(first), cl_int(last), ghosts, cl_int(ghost.size()), col);
}

// A kept product from C.
RankSetup::KeptRows RankSetup::kept(const Rows& a, solver::DeviceCsrMatrix c) {
  KeptRows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  out.matrix = std::move(c);
  return out;
}

void RankSetup::read_offsets(const solver::DeviceCsrMatrix& c, solver::BulkVector<std::int64_t>& row_ptr) {
  row_ptr.resize(std::size_t(c.rows()) + 1);
  if (c.offsets() == solver::RowOffsets::wide)
    read<std::int64_t>(c.row_offsets(), row_ptr.size(), row_ptr.data());
  else
    read<std::int32_t>(c.row_offsets(), row_ptr.size(), row_ptr.data());
}

LocalRows RankSetup::download(const Rows& rows) {
  LocalRows out = shared([&] { return read_rows(rows.matrix, rows.global_rows, rows.row_begin); });
  for (std::int64_t& c : out.col)  // local columns to global ones
    c = c < rows.owned ? rows.column_begin + c : rows.halo.ghost_ids[std::size_t(c - rows.owned)];
  return out;
}

void RankSetup::convert(solver::DeviceCsrMatrix& m, solver::ElementType type) {
  m = shared([&] { return solver::with_value_type(env_, m, type); });
}

::cl::Buffer RankSetup::narrow_offsets(const solver::DeviceCsrMatrix& m) {
  if (m.offsets() != solver::RowOffsets::wide) return m.row_offsets();
  const std::size_t n = std::size_t(m.rows());
  ::cl::Buffer narrow = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a level's rows");
  kernels_->run(narrowed_ids_, "narrowed_ids", n + 1, m.row_offsets(), narrow);
  return narrow;
}

::cl::Buffer RankSetup::long_offsets(const solver::DeviceCsrMatrix& m) {
  return m.offsets() == solver::RowOffsets::wide ? m.row_offsets() : products_->widened(m.row_offsets(), std::size_t(m.rows()));
}

}  // namespace clcg::distributed
