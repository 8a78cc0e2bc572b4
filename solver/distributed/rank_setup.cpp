#include "clcg/solver/distributed/rank_setup.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/fixed_order_sum.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/precond/spectrum.hpp"
#include "clcg/solver/sparse/device_memory.hpp"

namespace clcg::distributed {
namespace {

constexpr std::size_t grain = std::size_t(1) << 16;
constexpr std::size_t dot_lanes = 256;         // kernels/distributed_setup.cl's DOT_LANES: a chunk's work-group
constexpr std::size_t max_dot_groups = 4096;   // (a dot has at most that many chunks: partition.hpp's dot_chunk)

// f(i) for i < n on the host's threads.
template <class F>
void each(std::size_t n, F&& f) {
  solver::parallel_for(n, grain, f);
}

void check_fits(std::int64_t count, const char* what) {
  if (count > std::numeric_limits<std::int32_t>::max())
    throw std::length_error(std::string("the AMG set-up's product has ") + what + " (" + std::to_string(count) +
                            ") past 32-bit indices on one rank; use more ranks");
}

void write_bytes(const cl::Env& env, const ::cl::Buffer& to, std::size_t at, std::size_t bytes, const void* from) {
  if (bytes == 0) return;
  cl::checked("writing the AMG set-up's rows to the device",
              [&] { env.queue().enqueueWriteBuffer(to, CL_TRUE, at, bytes, from); });
}

::cl::Buffer doubles(const cl::Env& env, std::size_t n, const char* what) {
  return env.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(double), what);
}

}  // namespace

// Fills B's first `mine` entries from this rank's rows on the host (columns in 32 bits).
auto RankSetup::from_host(const LocalRows& owned) {
  return [this, &owned](const ::cl::Buffer& b_col, const ::cl::Buffer& b_val, std::size_t mine) {
    write<std::int32_t>(b_col, 0, mine, [&](std::size_t k) { return std::int32_t(owned.col[k]); });
    write<double>(b_val, 0, mine, [&](std::size_t k) { return owned.values[k]; });
  };
}

LocalRows RankSetup::read_rows(const Rows& a, const solver::DeviceCsrMatrix& c) {
  // C back with global columns and 64-bit offsets.
  LocalRows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  read_offsets(c, out.row_ptr);
  const std::size_t c_nnz = std::size_t(c.nnz());
  out.col.resize(c_nnz);
  read<std::int32_t>(c.col_idx(), c_nnz, out.col.data());
  out.values.resize(c_nnz);
  read<double>(c.values(), c_nnz, out.values.data());
  return out;
}

template <class F>
auto RankSetup::shared(F&& step) const {
  std::optional<decltype(step())> out;
  throw_if_any_rank_failed(comm_, capture([&] {
    try {
      out.emplace(step());
    } catch (const cl::Error& e) {
      solver::rethrow_allocation_failure(e, env_.info(), "the AMG set-up on this rank",
                                         "more ranks hold less each; --precond chebyshev or jacobi need no hierarchy");
    }
  }));
  return std::move(*out);
}

template <class From, class To>
void RankSetup::read(const ::cl::Buffer& from, std::size_t count, To* to) {
  const std::size_t half = pinned_.size() / 2, per = half / sizeof(From);
  const std::size_t chunks = (count + per - 1) / per;
  ::cl::Event arrived[2];
  const auto enqueue = [&](std::size_t c) {
    const std::size_t first = c * per, n = std::min(per, count - first);
    cl::checked("reading a product back", [&] {
      env_.queue().enqueueReadBuffer(from, CL_FALSE, first * sizeof(From), n * sizeof(From),
                                     pinned_.data() + (c % 2) * half, nullptr, &arrived[c % 2]);
    });
  };
  if (chunks > 0) enqueue(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) enqueue(c + 1);  // into the other half, while this one is copied out
    cl::checked("reading a product back", [&] { arrived[c % 2].wait(); });
    const From* in = reinterpret_cast<const From*>(pinned_.data() + (c % 2) * half);
    const std::size_t first = c * per;
    each(std::min(per, count - first), [&](std::size_t i) { to[first + i] = To(in[i]); });
  }
}

template <class To, class F>
void RankSetup::write(const ::cl::Buffer& to, std::size_t at, std::size_t count, F&& value_of) {
  const std::size_t half = pinned_.size() / 2, per = half / sizeof(To);
  const std::size_t chunks = (count + per - 1) / per;
  ::cl::Event sent[2];
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * per, n = std::min(per, count - first);
    if (sent[c % 2]()) cl::checked("writing a product's B", [&] { sent[c % 2].wait(); });  // the half is free again
    To* out = reinterpret_cast<To*>(pinned_.data() + (c % 2) * half);
    each(n, [&](std::size_t i) { out[i] = To(value_of(first + i)); });
    cl::checked("writing a product's B", [&] {
      env_.queue().enqueueWriteBuffer(to, CL_FALSE, (at + first) * sizeof(To), n * sizeof(To), out, nullptr, &sent[c % 2]);
    });
  }
  for (::cl::Event& e : sent)
    if (e()) cl::checked("writing a product's B", [&] { e.wait(); });
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
    rows_times_ = kernel("rows_times");
    chunk_dots_ = kernel("chunk_dots");
    scaled_ = kernel("scaled");
    lanczos_next_ = kernel("lanczos_next");
    divided_ = kernel("divided");
    row_diagonal_ = kernel("row_diagonal");
    coupling_max_ = kernel("coupling_max");
    strength_mask_ = kernel("strength_mask");
    mis_begin_ = kernel("mis_begin");
    mis_keys_ = kernel("mis_keys");
    mis_spread_ = kernel("mis_spread");
    mis_settle_ = kernel("mis_settle");
    gather_rows_ = kernel("gather_rows");
    ghosts_last_ = kernel("ghosts_last");
    smooth_rows_ = kernel("smooth_rows");
    count_in_range_ = kernel("count_in_range");
    entries_in_range_ = kernel("entries_in_range");
    entries_outside_ = kernel("entries_outside");
    local_columns_ = kernel("local_columns");
    tentative_count_ = kernel("tentative_count");
    tentative_fill_ = kernel("tentative_fill");
    tentative_qr_ = kernel("tentative_qr");
    scatter_own_ = kernel("scatter_own");
    scatter_values_ = kernel("scatter_values");
    seed_flags_ = kernel("seed_flags");
    seed_numbers_ = kernel("seed_numbers");
    join_step_ = kernel("join_step");
    narrowed_ids_ = kernel("narrowed_ids");
    smooth_rows_wide_ = env.kernel("distributed_setup.cl", "smooth_rows", options + " -DB_OFFSET=long");
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
  out.halo = halo_of_rows(comm_, columns, a);
  out.matrix = shared([&] {
    const std::size_t n = std::size_t(a.rows()), nnz = std::size_t(a.nnz());
    check_fits(a.rows(), "rows");
    check_fits(a.nnz(), "nonzeros in A's rows");
    // Through the pinned halves, the host's threads making the 32-bit offsets and local columns
    // (this rank's first, then the ghosts by their place) as they fill them.
    ::cl::Buffer row_ptr = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a level's rows");
    ::cl::Buffer col = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, nnz) * sizeof(cl_int), "allocating a level's columns");
    ::cl::Buffer values = doubles(env_, nnz, "allocating a level's values");
    write<std::int32_t>(row_ptr, 0, n + 1, [&](std::size_t i) { return std::int32_t(a.row_ptr[i]); });
    const std::int64_t first = out.column_begin, last = first + out.owned;
    const std::vector<std::int64_t>& ghosts = out.halo.ghost_ids;
    write<std::int32_t>(col, 0, nnz, [&](std::size_t k) {
      const std::int64_t c = a.col[k];
      return std::int32_t(c >= first && c < last ? c - first
                                                 : out.owned + (std::lower_bound(ghosts.begin(), ghosts.end(), c) - ghosts.begin()));
    });
    write<double>(values, 0, nnz, [&](std::size_t k) { return a.values[k]; });
    const unsigned threads = solver::threads_for(n, grain);
    std::vector<std::int64_t> longest_of(threads, 0);
    solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
      for (std::size_t i = begin; i < end; ++i) longest_of[t] = std::max(longest_of[t], a.row_ptr[i + 1] - a.row_ptr[i]);
    });
    return solver::DeviceCsrMatrix(row_ptr, col, values, std::int32_t(n), std::int32_t(out.owned + out.halo.ghosts),
                                   std::int64_t(nnz), solver::ElementType::f64,
                                   std::int32_t(*std::max_element(longest_of.begin(), longest_of.end())));
  });
  return out;
}

template <class Fill>
RankSetup::Product RankSetup::product(const Rows& a, const solver::BulkVector<std::int64_t>& owned_ptr,
                                           Fill&& fill_owned, const RemoteRows& remote, std::int64_t columns,
                                           const std::string& label) {
  const std::size_t owned_rows = owned_ptr.size() - 1;
  if (std::int64_t(owned_rows) != a.owned || remote.ids != a.halo.ghost_ids)
    throw std::logic_error("RankSetup: B's rows are not those of A's columns");
  check_fits(columns, "columns");
  // B: this rank's rows, then the fetched ones; 64-bit offsets where its entries pass 32-bit ones.
  const std::size_t rows = owned_rows + remote.ids.size();
  const std::size_t mine = std::size_t(owned_ptr[owned_rows]), nnz = mine + std::size_t(remote.row_ptr.back());
  const bool wide = nnz > wide_from_;
  const auto offset = [&](std::size_t i) {
    return i <= owned_rows ? owned_ptr[i] : std::int64_t(mine) + remote.row_ptr[i - owned_rows];
  };
  const std::size_t offset_bytes = wide ? sizeof(std::int64_t) : sizeof(std::int32_t);
  ::cl::Buffer b_row = env_.buffer(CL_MEM_READ_ONLY, (rows + 1) * offset_bytes, "allocating a product's rows of B");
  ::cl::Buffer b_col = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 4, "allocating B's columns");
  ::cl::Buffer b_val = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 8, "allocating B's values");
  if (wide)
    write<std::int64_t>(b_row, 0, rows + 1, offset);
  else
    write<std::int32_t>(b_row, 0, rows + 1, offset);
  fill_owned(b_col, b_val, mine);
  const std::size_t fetched = nnz - mine;
  write<std::int32_t>(b_col, mine, fetched, [&](std::size_t k) { return std::int32_t(remote.col[k]); });
  write<double>(b_val, mine, fetched, [&](std::size_t k) { return remote.values[k]; });
  Product out;
  out.b = solver::DeviceCsrMatrix(b_row, b_col, b_val, std::int32_t(rows), std::int32_t(columns), std::int64_t(nnz),
                                  solver::ElementType::f64, 0,
                                  wide ? solver::RowOffsets::wide : solver::RowOffsets::narrow);
  out.c = products_->multiply(a.matrix, out.b, label, solver::RowOffsets::wide);
  return out;
}

// A kept product from C, its offsets read back.
RankSetup::KeptRows RankSetup::kept(const Rows& a, solver::DeviceCsrMatrix c) {
  KeptRows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  out.matrix = std::move(c);
  read_offsets(out.matrix, out.row_ptr);
  return out;
}

// Fills B's first `mine` entries from a kept product (copied on the device); `release`: its
// device copy then freed (B holds the rows).
auto RankSetup::from_device(KeptRows& owned, bool release) {
  return [this, &owned, release](const ::cl::Buffer& b_col, const ::cl::Buffer& b_val, std::size_t mine) {
    if (mine > 0)
      cl::checked("copying a kept product into B", [&] {
        env_.queue().enqueueCopyBuffer(owned.matrix.col_idx(), b_col, 0, 0, mine * sizeof(std::int32_t));
        env_.queue().enqueueCopyBuffer(owned.matrix.values(), b_val, 0, 0, mine * sizeof(double));
      });
    if (release) owned.matrix = {};
  };
}

void RankSetup::read_offsets(const solver::DeviceCsrMatrix& c, solver::BulkVector<std::int64_t>& row_ptr) {
  row_ptr.resize(std::size_t(c.rows()) + 1);
  if (c.offsets() == solver::RowOffsets::wide)
    read<std::int64_t>(c.row_offsets(), row_ptr.size(), row_ptr.data());
  else
    read<std::int32_t>(c.row_offsets(), row_ptr.size(), row_ptr.data());
}

LocalRows RankSetup::multiply(const Rows& a, const LocalRows& owned, const RemoteRows& remote, std::int64_t columns,
                              const std::string& label) {
  return shared([&] { return read_rows(a, product(a, owned.row_ptr, from_host(owned), remote, columns, label).c); });
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const LocalRows& owned, const RemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] { return kept(a, product(a, owned.row_ptr, from_host(owned), remote, columns, label).c); });
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const KeptRows& owned, const RemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] {
    KeptRows& source = const_cast<KeptRows&>(owned);  // (not released: only read)
    return kept(a, product(a, owned.row_ptr, from_device(source, false), remote, columns, label).c);
  });
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, KeptRows&& owned, const RemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] { return kept(a, product(a, owned.row_ptr, from_device(owned, true), remote, columns, label).c); });
}

RankSetup::KeptRows RankSetup::tentative(const ::cl::Buffer& of_node, int block,
                                         std::span<const double> candidates, int k, const Partition& rows,
                                         const Partition& columns, std::vector<double>& coarse_candidates) {
  const int rank = comm_rank(comm_);
  const std::size_t n = std::size_t(rows.size(rank)), kk = std::size_t(k);
  // P_tent on this rank's rows, filled with B.
  KeptRows t = shared([&] {
    check_fits(columns.rows(), "coarse rows");
    ::cl::Buffer b = doubles(env_, n * kk, "allocating the candidates");
    write_bytes(env_, b, 0, n * kk * sizeof(double), candidates.data());
    ::cl::Buffer counts = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the tentative rows");
    if (n > 0) kernels_->run(tentative_count_, "tentative_count", n, cl_uint(block), cl_uint(k), of_node, counts);
    solver::DeviceCsrMatrix filled = products_->allocate(counts, std::int32_t(n), std::int32_t(columns.rows()));
    if (n > 0)
      kernels_->run(tentative_fill_, "tentative_fill", n, cl_uint(block), cl_uint(k), of_node, b, filled.row_ptr(),
                    filled.col_idx(), filled.values());
    KeptRows out;
    out.global_rows = rows.rows();
    out.row_begin = rows.begin(rank);
    out.matrix = std::move(filled);
    read_offsets(out.matrix, out.row_ptr);
    return out;
  });
  // Each aggregate's block on its seed's rank, factored there.
  const Rows by_aggregate = transpose(t, rows, columns);
  const std::size_t aggregates = std::size_t(columns.size(rank)) / kk;
  const OutgoingEntries ghosts = shared([&] {
    coarse_candidates.assign(aggregates * kk * kk, 0.0);
    const solver::DeviceCsrMatrix& q = by_aggregate.matrix;
    if (aggregates > 0) {
      ::cl::Buffer coarse = doubles(env_, aggregates * kk * kk, "allocating the next level's candidates");
      kernels_->run(tentative_qr_, "tentative_qr", aggregates, cl_uint(k),
                    solver::Real{solver::dependent_candidate(solver::ElementType::f64)}, q.row_ptr(), q.values(), coarse);
      read<double>(coarse, aggregates * kk * kk, coarse_candidates.data());
      kernels_->run(scatter_own_, "scatter_own", std::size_t(q.rows()), cl_uint(k), cl_int(n), q.row_ptr(), q.col_idx(),
                    q.values(), t.matrix.row_ptr(), t.matrix.values());
    }
    return outside(q, long_offsets(q), 0, std::int64_t(n));  // Q's entries in other ranks' rows
  });
  // Q's entries in other ranks' rows go back to them: (row, entry j of it) and the value.
  const int ranks = rows.ranks();
  std::vector<int> counts(std::size_t(ranks), 0);
  const auto ghost_row = [&](std::size_t e) { return by_aggregate.halo.ghost_ids[std::size_t(ghosts.cols[e]) - n]; };
  for (std::size_t e = 0; e < ghosts.values.size(); ++e) ++counts[std::size_t(rows.owner(ghost_row(e)))];
  std::vector<int> at = offsets_of(counts);
  solver::BulkVector<std::int64_t> where(ghosts.values.size());
  solver::BulkVector<double> values(ghosts.values.size());
  for (std::size_t e = 0; e < ghosts.values.size(); ++e) {
    const std::size_t slot = std::size_t(at[std::size_t(rows.owner(ghost_row(e)))]++);
    where[slot] = ghost_row(e) * std::int64_t(k) + ghosts.rows[e] % k;
    values[slot] = ghosts.values[e];
  }
  const solver::BulkVector<std::int64_t> got_where = all_to_all(comm_, where, counts);
  const solver::BulkVector<double> got_values = all_to_all(comm_, values, counts);
  shared([&] {
    const std::size_t got = got_values.size();
    if (got == 0) return 0;
    std::vector<std::int64_t> entry(got);  // each value's place in P_tent's values
    for (std::size_t e = 0; e < got; ++e) {
      const std::int64_t row = got_where[e] / k - t.row_begin;
      entry[e] = t.row_ptr[std::size_t(row)] + got_where[e] % k;
    }
    ::cl::Buffer place = env_.buffer(CL_MEM_READ_ONLY, got * sizeof(std::int64_t), "allocating Q's entries");
    write_bytes(env_, place, 0, got * sizeof(std::int64_t), entry.data());
    ::cl::Buffer value = doubles(env_, got, "allocating Q's entries");
    write_bytes(env_, value, 0, got * sizeof(double), got_values.data());
    kernels_->run(scatter_values_, "scatter_values", got, place, value, t.matrix.values());
    return 0;
  });
  return t;
}

RankSetup::KeptRows RankSetup::smoothed(const Rows& a, const KeptRows& tentative, const RemoteRows& remote,
                                        std::int64_t columns, const ::cl::Buffer& diagonal, double omega) {
  return shared([&] {
    KeptRows& source = const_cast<KeptRows&>(tentative);  // (not released: only read)
    const Product ap = product(a, tentative.row_ptr, from_device(source, false), remote, columns, "A P_tent");
    const std::size_t n = std::size_t(ap.c.rows());
    ::cl::Kernel& smooth = ap.b.offsets() == solver::RowOffsets::wide ? smooth_rows_wide_ : smooth_rows_;
    if (n > 0) {
      const ::cl::Buffer c_row = long_offsets(ap.c);
      kernels_->run(smooth, "smooth_rows", n, c_row, ap.c.col_idx(), ap.c.values(), ap.b.row_offsets(), ap.b.col_idx(),
                    ap.b.values(), diagonal, solver::Real{omega});
    }
    return kept(a, ap.c);
  });
}

LocalRows RankSetup::download(const KeptRows& rows) {
  LocalRows out = shared([&] {
    LocalRows host;
    host.row_ptr = solver::copied(rows.row_ptr);
    const std::size_t nnz = std::size_t(rows.matrix.nnz());
    host.col.resize(nnz);
    read<std::int32_t>(rows.matrix.col_idx(), nnz, host.col.data());
    host.values.resize(nnz);
    read<double>(rows.matrix.values(), nnz, host.values.data());
    return host;
  });
  out.global_rows = rows.global_rows;
  out.row_begin = rows.row_begin;
  return out;
}

RemoteRows RankSetup::fetch_rows(const Partition& partition, const KeptRows& rows,
                                 const std::vector<std::int64_t>& wanted) {
  return distributed::fetch_rows(comm_, partition, wanted, [&](const std::vector<std::int64_t>& asked) {
    return shared([&] { return answer(rows, asked); });
  });
}

AnsweredRows RankSetup::answer(const KeptRows& rows, const std::vector<std::int64_t>& asked) {
  AnsweredRows out;
  const std::size_t count = asked.size();
  out.lengths.resize(count);
  std::vector<std::int64_t> first(count), at(count + 1, 0);  // each row's first entry in the product, and in the answer
  for (std::size_t q = 0; q < count; ++q) {
    const std::int64_t i = asked[q] - rows.row_begin;
    if (i < 0 || i >= std::int64_t(rows.row_ptr.size()) - 1)
      throw std::logic_error("fetch_rows: row " + std::to_string(asked[q]) + " asked of a rank that lacks it");
    first[q] = rows.row_ptr[std::size_t(i)];
    out.lengths[q] = rows.row_ptr[std::size_t(i) + 1] - first[q];
    at[q + 1] = at[q] + out.lengths[q];
  }
  const std::size_t entries = std::size_t(at[count]);
  out.col.resize(entries);
  out.values.resize(entries);
  if (entries == 0) return out;
  const auto longs = [&](const std::vector<std::int64_t>& v) {
    ::cl::Buffer b = env_.buffer(CL_MEM_READ_ONLY, v.size() * sizeof(std::int64_t), "allocating the rows asked for");
    write_bytes(env_, b, 0, v.size() * sizeof(std::int64_t), v.data());
    return b;
  };
  const ::cl::Buffer first_b = longs(first), at_b = longs(at);
  ::cl::Buffer col = env_.buffer(CL_MEM_WRITE_ONLY, entries * sizeof(std::int32_t), "allocating the rows asked for");
  ::cl::Buffer values = doubles(env_, entries, "allocating the rows asked for");
  kernels_->run(gather_rows_, "gather_rows", count, first_b, at_b, rows.matrix.col_idx(), rows.matrix.values(), col,
                values);
  read<std::int32_t>(col, entries, out.col.data());
  read<double>(values, entries, out.values.data());
  return out;
}

LocalRows RankSetup::download(const Rows& rows) {
  LocalRows out = shared([&] {
    LocalRows host;
    read_offsets(rows.matrix, host.row_ptr);
    const std::size_t nnz = std::size_t(rows.matrix.nnz());
    host.col.resize(nnz);
    read<std::int32_t>(rows.matrix.col_idx(), nnz, host.col.data());
    host.values.resize(nnz);
    read<double>(rows.matrix.values(), nnz, host.values.data());
    return host;
  });
  out.global_rows = rows.global_rows;
  out.row_begin = rows.row_begin;
  for (std::int64_t& c : out.col)
    c = c < rows.owned ? rows.column_begin + c : rows.halo.ghost_ids[std::size_t(c - rows.owned)];
  return out;
}

OutgoingEntries RankSetup::outside(const solver::DeviceCsrMatrix& m, const ::cl::Buffer& m_row, std::int64_t first,
                                   std::int64_t last) {
  // Counted a row, then copied out in row order on the device.
  const std::size_t n = std::size_t(m.rows());
  OutgoingEntries found;
  ::cl::Buffer at = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a count of entries");
  if (n > 0) kernels_->run(count_in_range_, "count_in_range", n, m_row, m.col_idx(), cl_int(first), cl_int(last),
                           cl_int(0), cl_uint(0), at);
  const std::size_t entries = std::size_t(products_->exclusive_scan(at, n).total);
  found.rows.resize(entries);
  found.cols.resize(entries);
  found.values.resize(entries);
  if (entries == 0) return found;
  ::cl::Buffer rows = env_.buffer(CL_MEM_READ_WRITE, entries * sizeof(cl_int), "allocating entries of other ranks");
  ::cl::Buffer cols = env_.buffer(CL_MEM_READ_WRITE, entries * sizeof(cl_int), "allocating entries of other ranks");
  ::cl::Buffer values = doubles(env_, entries, "allocating entries of other ranks");
  kernels_->run(entries_outside_, "entries_outside", n, m_row, m.col_idx(), m.values(), cl_int(first), cl_int(last),
                at, rows, cols, values);
  read<std::int32_t>(rows, entries, found.rows.data());
  read<std::int32_t>(cols, entries, found.cols.data());
  read<double>(values, entries, found.values.data());
  return found;
}

RankSetup::Rows RankSetup::localised(KeptRows&& m, const Partition& columns) {
  const int rank = comm_rank(comm_);
  const std::int64_t first = columns.begin(rank), last = first + columns.size(rank);
  const std::size_t n = m.row_ptr.size() - 1;
  // The ghosts: the other ranks' columns the rows name, sorted.
  std::vector<std::int64_t> ghost;
  shared([&] {
    const OutgoingEntries out = outside(m.matrix, long_offsets(m.matrix), first, last);
    ghost.assign(out.cols.begin(), out.cols.end());
    return 0;
  });
  std::sort(ghost.begin(), ghost.end());
  ghost.erase(std::unique(ghost.begin(), ghost.end()), ghost.end());
  Rows out;
  out.global_rows = m.global_rows;
  out.row_begin = m.row_begin;
  out.owned = last - first;
  out.column_begin = first;
  out.matrix = shared([&] {
    check_fits(out.owned + std::int64_t(ghost.size()), "columns and ghosts");
    check_fits(m.matrix.nnz(), "nonzeros in a kept product's rows");
    const unsigned threads = solver::threads_for(n, grain);
    std::vector<std::int64_t> longest_of(threads, 0);
    solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
      for (std::size_t i = begin; i < end; ++i) longest_of[t] = std::max(longest_of[t], m.row_ptr[i + 1] - m.row_ptr[i]);
    });
    const std::int64_t longest = *std::max_element(longest_of.begin(), longest_of.end());
    // 32-bit offsets (the SpMV's) and local columns, in place.
    ::cl::Buffer row_ptr = m.matrix.row_offsets();
    if (m.matrix.offsets() == solver::RowOffsets::wide) {
      row_ptr = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a level's rows");
      write<std::int32_t>(row_ptr, 0, n + 1, [&](std::size_t i) { return std::int32_t(m.row_ptr[i]); });
    }
    if (m.matrix.nnz() > 0) {
      ::cl::Buffer ghosts = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, ghost.size()) * sizeof(cl_int),
                                        "allocating a level's ghosts");
      write<std::int32_t>(ghosts, 0, ghost.size(), [&](std::size_t g) { return std::int32_t(ghost[g]); });
      kernels_->run(local_columns_, "local_columns", std::size_t(m.matrix.nnz()), cl_int(first), cl_int(last), ghosts,
                    cl_int(ghost.size()), m.matrix.col_idx());
    }
    return solver::DeviceCsrMatrix(row_ptr, m.matrix.col_idx(), m.matrix.values(), std::int32_t(n),
                                   std::int32_t(out.owned + std::int64_t(ghost.size())), m.matrix.nnz(),
                                   solver::ElementType::f64, std::int32_t(longest));
  });
  m = {};
  out.halo = halo_of_ghosts(comm_, columns, std::move(ghost));
  return out;
}

::cl::Buffer RankSetup::long_offsets(const solver::DeviceCsrMatrix& m) {
  return m.offsets() == solver::RowOffsets::wide ? m.row_offsets() : products_->widened(m.row_offsets(), std::size_t(m.rows()));
}

RankSetup::Rows RankSetup::transpose(const KeptRows& m, const Partition& rows_of_m, const Partition& columns) {
  const int rank = comm_rank(comm_);
  const std::int64_t first = columns.begin(rank), last = first + columns.size(rank);
  const std::size_t n = m.row_ptr.size() - 1;
  const ::cl::Buffer m_row = shared([&] { return long_offsets(m.matrix); });
  const OutgoingEntries out = shared([&] { return outside(m.matrix, m_row, first, last); });
  const ForeignEntries got = send_to_column_owners(comm_, out, m.row_begin, columns);
  // The ghosts: the rows of the entries received, which arrive sorted by row. M's rows here in
  // global order: the ghosts below this rank's rows, its rows, the ghosts above.
  const std::size_t received = got.values.size();
  const auto row_of = [&](std::size_t e) { return got.pairs[2 * e + 1]; };
  std::vector<std::int64_t> ghost, ghost_start;  // each ghost's first entry received
  for (std::size_t e = 0; e < received; ++e)
    if (e == 0 || row_of(e) != row_of(e - 1)) ghost.push_back(row_of(e)), ghost_start.push_back(std::int64_t(e));
  ghost_start.push_back(std::int64_t(received));
  const std::size_t below = std::size_t(std::lower_bound(ghost.begin(), ghost.end(), m.row_begin) - ghost.begin());
  const std::size_t above = ghost.size() - below, rows = n + ghost.size();
  const std::size_t entries_below = std::size_t(ghost_start[below]);
  Rows t;
  t.global_rows = columns.rows();
  t.row_begin = first;
  t.owned = std::int64_t(n);
  t.column_begin = m.row_begin;
  t.matrix = shared([&] {
    check_fits(std::int64_t(rows), "rows and ghosts");
    // M on the device: its rows in that order, with this rank's columns only (numbered from
    // `first`): the ghosts' from the entries received, this rank's from the kept rows.
    ::cl::Buffer row_ptr = env_.buffer(CL_MEM_READ_WRITE, (rows + 1) * sizeof(cl_int), "allocating a transpose's rows");
    const auto ghost_count = [&](std::size_t g) { return std::int32_t(ghost_start[g + 1] - ghost_start[g]); };
    write<std::int32_t>(row_ptr, 0, below, ghost_count);
    write<std::int32_t>(row_ptr, below + n, above, [&](std::size_t g) { return ghost_count(below + g); });
    if (n > 0) kernels_->run(count_in_range_, "count_in_range", n, m_row, m.matrix.col_idx(), cl_int(first),
                             cl_int(last), cl_int(1), cl_uint(below), row_ptr);
    const solver::ScanTotals totals = products_->exclusive_scan(row_ptr, rows);
    check_fits(totals.total, "nonzeros in a transpose's rows");
    const std::size_t nnz = std::size_t(totals.total);
    ::cl::Buffer col = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, nnz) * sizeof(cl_int), "allocating a transpose's rows");
    ::cl::Buffer values = doubles(env_, nnz, "allocating a transpose's rows");
    if (n > 0) kernels_->run(entries_in_range_, "entries_in_range", n, m_row, m.matrix.col_idx(), m.matrix.values(),
                             cl_int(first), cl_int(last), cl_uint(below), row_ptr, col, values);
    const auto ghost_col = [&](std::size_t e) { return std::int32_t(got.pairs[2 * e] - first); };
    write<std::int32_t>(col, 0, entries_below, ghost_col);
    write<double>(values, 0, entries_below, [&](std::size_t e) { return got.values[e]; });
    const std::size_t above_at = nnz - (received - entries_below);
    write<std::int32_t>(col, above_at, received - entries_below, [&](std::size_t e) { return ghost_col(entries_below + e); });
    write<double>(values, above_at, received - entries_below, [&](std::size_t e) { return got.values[entries_below + e]; });
    const solver::DeviceCsrMatrix on_device(row_ptr, col, values, std::int32_t(rows), std::int32_t(last - first),
                                            std::int64_t(nnz), solver::ElementType::f64, totals.largest);
    // Its transpose: each row's columns M's rows in global order, then local as the halo numbers them.
    solver::DeviceCsrMatrix transposed = products_->transpose(on_device);
    if (transposed.nnz() > 0)
      kernels_->run(ghosts_last_, "ghosts_last", std::size_t(transposed.nnz()), cl_int(below), cl_int(n),
                    transposed.col_idx());
    return transposed;
  });
  t.halo = halo_of_ghosts(comm_, rows_of_m, std::move(ghost));
  return t;
}

RankSetup::Aggregates RankSetup::aggregate(const Rows& g, double theta) {
  const std::size_t n = std::size_t(g.matrix.rows()), cols = n + std::size_t(g.halo.ghosts);
  const std::size_t nnz = std::size_t(g.matrix.nnz());
  const cl_uint first = cl_uint(g.row_begin);
  struct Buffers {
    ::cl::Buffer diag, most, strong, state, key, spread, undecided, ghost;
  };
  Buffers b = shared([&] {
    Buffers m;
    m.diag = doubles(env_, cols, "allocating the strength's diagonal");
    m.most = doubles(env_, cols, "allocating the strength's row maxima");
    m.strong = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, nnz), "allocating the strong connections");
    m.state = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(cl_uint), "allocating the independent set");
    m.key = doubles(env_, cols, "allocating the independent set's keys");  // (ulongs: the halo moves 8-byte words)
    m.spread = doubles(env_, cols, "allocating the independent set's keys");
    m.undecided = env_.buffer(CL_MEM_READ_WRITE, sizeof(cl_int), "allocating the independent set's count");
    const std::size_t ghosts = g.halo.ghost_ids.size();
    m.ghost = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, ghosts) * sizeof(cl_uint), "allocating the ghosts' rows");
    write<std::uint32_t>(m.ghost, 0, ghosts, [&](std::size_t j) { return std::uint32_t(g.halo.ghost_ids[j]); });
    return m;
  });
  DeviceHalo halo = shared([&] { return DeviceHalo(comm_, env_, g.halo, std::int64_t(n), solver::ElementType::f64); });
  const auto run = [&](::cl::Kernel& kernel, const char* name, const auto&... args) {
    if (n > 0) kernels_->run(kernel, name, n, args...);
  };
  const solver::DeviceCsrMatrix& a = g.matrix;
  // Strength: the ghosts' diagonals and row maxima from their owners.
  run(row_diagonal_, "row_diagonal", a.row_ptr(), a.col_idx(), a.values(), cl_int(0), b.diag);
  halo.exchange(b.diag);
  run(coupling_max_, "coupling_max", a.row_ptr(), a.col_idx(), a.values(), b.diag, b.most);
  halo.exchange(b.most);
  run(strength_mask_, "strength_mask", cl_uint(1), a.row_ptr(), a.col_idx(), a.values(), b.diag, b.most,
      solver::Real{theta * theta}, b.strong);
  // The rounds, until no rank has an undecided row.
  run(mis_begin_, "mis_begin", a.row_ptr(), b.strong, b.state);
  for (unsigned round = 1;; ++round) {
    run(mis_keys_, "mis_keys", first, b.state, b.key);
    halo.exchange(b.key);
    run(mis_spread_, "mis_spread", a.row_ptr(), a.col_idx(), b.strong, b.key, b.spread);
    halo.exchange(b.spread);
    run(mis_spread_, "mis_spread", a.row_ptr(), a.col_idx(), b.strong, b.spread, b.key);
    kernels_->clear_ints(b.undecided, 1);
    run(mis_settle_, "mis_settle", first, b.key, cl_int(round == solver::max_mis_rounds), b.state, b.undecided);
    cl_int left = 0;
    cl::checked("reading the independent set's progress",
                [&] { env_.queue().enqueueReadBuffer(b.undecided, CL_TRUE, 0, sizeof(cl_int), &left); });
    int mine = left > 0, any_left = 0;
    MPI_Allreduce(&mine, &any_left, 1, MPI_INT, MPI_LOR, comm_);
    if (!any_left) break;
  }
  // The seeds, numbered in global row order: this rank's after those of the ranks before it.
  Aggregates out;
  solver::BulkVector<std::uint32_t> state(n);
  shared([&] {
    read<std::uint32_t>(b.state, n, state.data());
    return 0;
  });
  const unsigned threads = solver::threads_for(n, grain);
  std::vector<std::int64_t> before(threads + 1, 0);  // the seeds before each thread's range
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t i = begin; i < end; ++i) before[t + 1] += state[i] == solver::mis_in;
  });
  for (unsigned t = 0; t < threads; ++t) before[t + 1] += before[t];
  out.seed_rows.resize(std::size_t(before[threads]));
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    std::size_t s = std::size_t(before[t]);
    for (std::size_t i = begin; i < end; ++i)
      if (state[i] == solver::mis_in) out.seed_rows[s++] = std::int64_t(i);
  });
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  const std::int64_t mine = before[threads];
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_);
  out.coarse.offsets.assign(std::size_t(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) out.coarse.offsets[std::size_t(r) + 1] = out.coarse.offsets[std::size_t(r)] + counts[std::size_t(r)];
  const std::int64_t first_seed = out.coarse.offsets[std::size_t(comm_rank(comm_))];
  // Neighbours join the seed with the largest key, rows two steps away the neighbour's
  // aggregate with the largest key (the key and spread buffers hold the 64-bit aggregates now).
  shared([&] {
    check_fits(out.coarse.rows(), "aggregates");
    ::cl::Buffer at = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the seeds' numbers");
    run(seed_flags_, "seed_flags", b.state, at);
    products_->exclusive_scan(at, n);
    run(seed_numbers_, "seed_numbers", cl_long(first_seed), b.state, at, b.key);
    return 0;
  });
  halo.exchange(b.key);
  run(join_step_, "join_step", first, a.row_ptr(), a.col_idx(), b.strong, b.ghost, b.key, b.spread);
  halo.exchange(b.spread);
  run(join_step_, "join_step", first, a.row_ptr(), a.col_idx(), b.strong, b.ghost, b.spread, b.key);
  out.of_node = shared([&] {
    ::cl::Buffer of_node = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(cl_int), "allocating the aggregates");
    run(narrowed_ids_, "narrowed_ids", b.key, of_node);
    return of_node;
  });
  return out;
}

::cl::Buffer RankSetup::diagonal(const Rows& a) {
  return shared([&] {
    const std::size_t n = std::size_t(a.matrix.rows());
    ::cl::Buffer d = doubles(env_, n, "allocating a level's diagonal");
    if (n > 0)
      kernels_->run(row_diagonal_, "row_diagonal", n, a.matrix.row_ptr(), a.matrix.col_idx(), a.matrix.values(), cl_int(0), d);
    return d;
  });
}

double RankSetup::radius(const Rows& a, const ::cl::Buffer& diagonal,
                            const std::vector<std::int64_t>& chunk_begin, unsigned steps) {
  const std::size_t n = std::size_t(a.matrix.rows()), chunks = chunk_begin.size() - 1;
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  std::vector<int> chunk_counts(static_cast<std::size_t>(ranks));
  const int mine = int(chunks);
  MPI_Allgather(&mine, 1, MPI_INT, chunk_counts.data(), 1, MPI_INT, comm_);
  std::vector<double> partial(chunks), all(std::size_t(offsets_of(chunk_counts).back() + chunk_counts.back()));
  struct Vectors {
    ::cl::Buffer v, v_prev, u, av, dx, d, begin, partial;
  };
  // The vectors, D, the chunks and the start (pseudo-random in [-1, 1) from a hash of the
  // global row: 30 bits of the independent set's key) on the device.
  Vectors b = shared([&] {
    Vectors m;
    m.v = doubles(env_, n + std::size_t(a.halo.ghosts), "allocating the Lanczos vectors");
    m.v_prev = doubles(env_, n + std::size_t(a.halo.ghosts), "allocating the Lanczos vectors");  // (swapped with v)
    m.u = doubles(env_, n, "allocating the Lanczos vectors");
    m.av = doubles(env_, n, "allocating the Lanczos vectors");
    m.dx = doubles(env_, n, "allocating the Lanczos vectors");
    m.d = diagonal;
    m.partial = doubles(env_, chunks, "allocating the Lanczos vectors");
    m.begin = env_.buffer(CL_MEM_READ_ONLY, chunk_begin.size() * sizeof(std::int64_t), "allocating the dot chunks");
    write_bytes(env_, m.begin, 0, chunk_begin.size() * sizeof(std::int64_t), chunk_begin.data());
    solver::BulkVector<double> start(n);
    each(n, [&](std::size_t i) {
      const std::uint32_t h =
          std::uint32_t(solver::mis_key(0, std::uint32_t(a.row_begin + std::int64_t(i)) ^ 0x5bd1e995U) >> 32);
      start[i] = double(h) / 536870912.0 - 1.0;
    });
    write_bytes(env_, m.v, 0, n * sizeof(double), start.data());
    cl::checked("clearing the Lanczos vectors",
                [&] { env_.queue().enqueueFillBuffer(m.v_prev, 0.0, 0, std::max<std::size_t>(1, n) * sizeof(double)); });
    return m;
  });
  DeviceHalo halo = shared([&] { return DeviceHalo(comm_, env_, a.halo, std::int64_t(n), solver::ElementType::f64); });
  const auto run = [&](::cl::Kernel& kernel, const char* name, std::size_t count, const auto&... args) {
    if (count > 0) kernels_->run(kernel, name, count, args...);
  };
  // A dot over the level's chunks: each chunk in row order on the device, the chunks' sums of
  // every rank in one fixed order on the host.
  const auto dot = [&](const ::cl::Buffer& x, const ::cl::Buffer& y) {
    if (chunks > 0)
      kernels_->run_groups(chunk_dots_, "chunk_dots", std::min<std::size_t>(chunks, max_dot_groups), dot_lanes, chunks,
                           b.begin, x, y, b.partial);
    if (chunks > 0)
      cl::checked("reading the Lanczos dots", [&] {
        env_.queue().enqueueReadBuffer(b.partial, CL_TRUE, 0, chunks * sizeof(double), partial.data());
      });
    MPI_Allgatherv(partial.data(), mine, MPI_DOUBLE, all.data(), chunk_counts.data(), offsets_of(chunk_counts).data(),
                   MPI_DOUBLE, comm_);
    return fixed_order_sum(all);
  };
  const auto d_norm = [&](const ::cl::Buffer& x) {
    run(scaled_, "scaled", n, b.d, x, b.dx);
    return std::sqrt(std::max(0.0, dot(x, b.dx)));
  };
  // Lanczos on the pencil (A, D): v D-orthonormal, alpha = v.Av, the next u = D^-1 A v - alpha v - beta v_prev.
  double beta = d_norm(b.v);
  if (!(beta > 0) || !std::isfinite(beta)) return 0.0;
  run(divided_, "divided", n, b.v, solver::Real{beta}, b.v);
  std::vector<double> alphas, betas;
  beta = 0;
  for (unsigned step = 0; step < steps; ++step) {
    halo.exchange(b.v);
    run(rows_times_, "rows_times", n, a.matrix.row_ptr(), a.matrix.col_idx(), a.matrix.values(), b.v, b.av);
    const double alpha = dot(b.v, b.av);
    alphas.push_back(alpha);
    run(lanczos_next_, "lanczos_next", n, b.av, b.d, b.v, b.v_prev, solver::Real{alpha}, solver::Real{beta}, b.u);
    const double next = d_norm(b.u);
    if (step + 1 == steps || !(next > 1e-12 * std::abs(alpha))) break;
    betas.push_back(next);
    beta = next;
    std::swap(b.v_prev, b.v);
    run(divided_, "divided", n, b.u, solver::Real{next}, b.v);
  }
  return solver::largest_tridiagonal_eigenvalue(alphas, betas);
}

}  // namespace clcg::distributed
