#include "clcg/solver/distributed/rank_products.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {
namespace {

constexpr std::size_t grain = std::size_t(1) << 16;

// f(i) for i < n on the host's threads.
template <class F>
void each(std::size_t n, F&& f) {
  solver::parallel_ranges(n, solver::threads_for(n, grain), [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t i = begin; i < end; ++i) f(i);
  });
}

void check_fits(std::int64_t count, const char* what) {
  if (count > std::numeric_limits<std::int32_t>::max())
    throw std::length_error(std::string("the AMG set-up's product has ") + what + " (" + std::to_string(count) +
                            ") past 32-bit indices on one rank; use more ranks");
}

void write(const cl::Env& env, const ::cl::Buffer& to, std::size_t at, std::size_t bytes, const void* from) {
  if (bytes == 0) return;
  cl::checked("writing a product's rows to the device",
              [&] { env.queue().enqueueWriteBuffer(to, CL_TRUE, at, bytes, from); });
}

}  // namespace

template <class From, class To>
void RankProducts::read(const ::cl::Buffer& from, std::size_t count, To* to) {
  const std::size_t half = pinned_.size() / 2, per = half / sizeof(From);
  const std::size_t chunks = (count + per - 1) / per;
  ::cl::Event read[2];
  const auto enqueue = [&](std::size_t c) {
    const std::size_t first = c * per, n = std::min(per, count - first);
    cl::checked("reading a product back", [&] {
      env_.queue().enqueueReadBuffer(from, CL_FALSE, first * sizeof(From), n * sizeof(From),
                                     pinned_.data() + (c % 2) * half, nullptr, &read[c % 2]);
    });
  };
  if (chunks > 0) enqueue(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) enqueue(c + 1);  // into the other half, while this one is copied out
    cl::checked("reading a product back", [&] { read[c % 2].wait(); });
    const From* in = reinterpret_cast<const From*>(pinned_.data() + (c % 2) * half);
    const std::size_t first = c * per;
    each(std::min(per, count - first), [&](std::size_t i) { to[first + i] = To(in[i]); });
  }
}

template <class F>
auto RankProducts::shared(F&& step) const {
  std::optional<decltype(step())> out;
  throw_if_any_rank_failed(comm_, capture([&] {
    try {
      out.emplace(step());
    } catch (const cl::Error& e) {
      solver::rethrow_allocation_failure(e, env_.info(), "the AMG set-up's products on this rank",
                                         "more ranks hold less each; --precond chebyshev or jacobi need no hierarchy");
    }
  }));
  return std::move(*out);
}

RankProducts::RankProducts(MPI_Comm comm, const cl::Env& env) : comm_(comm), env_(env) {
  shared([&] {
    if (!env.info().fp64)
      throw std::runtime_error("the distributed AMG set-up forms its products in double on the device; " +
                               env.info().name + " has no fp64");
    products_.emplace(env, solver::ElementType::f64);
    pinned_ = cl::PinnedBuffer(env, 2 * read_chunk_bytes);
    return 0;
  });
}

RankProducts::Rows RankProducts::upload(const LocalRows& a, const Partition& b_rows, int rank,
                                        std::vector<std::int64_t> fetched) const {
  return shared([&] { return upload_here(a, b_rows, rank, std::move(fetched)); });
}

LocalRows RankProducts::multiply(const Rows& a, const LocalRows& owned, const RemoteRows& remote, std::int64_t columns,
                                 const std::string& label) {
  return shared([&] { return multiply_here(a, owned, remote, columns, label); });
}

RankProducts::Rows RankProducts::upload_here(const LocalRows& a, const Partition& b_rows, int rank,
                                             std::vector<std::int64_t> fetched) const {
  Rows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  out.owned = b_rows.size(rank);
  out.fetched = std::move(fetched);
  const std::int64_t first = b_rows.begin(rank), owned = out.owned;
  check_fits(a.rows(), "rows");
  check_fits(a.nnz(), "nonzeros in A's rows");
  check_fits(owned + std::int64_t(out.fetched.size()), "rows of B");
  solver::BulkVector<std::int32_t> row_ptr(a.row_ptr.size()), col(a.col.size());  // every entry set below
  each(row_ptr.size(), [&](std::size_t i) { row_ptr[i] = std::int32_t(a.row_ptr[i]); });
  const std::vector<std::int64_t>& ids = out.fetched;
  each(col.size(), [&](std::size_t k) {
    const std::int64_t c = a.col[k];
    if (c >= first && c < first + owned) {
      col[k] = std::int32_t(c - first);
      return;
    }
    const auto at = std::lower_bound(ids.begin(), ids.end(), c);
    if (at == ids.end() || *at != c)
      throw std::logic_error("RankProducts: column " + std::to_string(c) + " of A is neither owned nor fetched");
    col[k] = std::int32_t(owned + (at - ids.begin()));
  });
  const solver::CsrView view(std::int32_t(a.rows()), std::int32_t(owned + std::int64_t(ids.size())), row_ptr, col,
                             a.values);
  out.matrix = solver::DeviceCsrMatrix(env_, view, solver::ElementType::f64);
  return out;
}

LocalRows RankProducts::multiply_here(const Rows& a, const LocalRows& owned, const RemoteRows& remote,
                                      std::int64_t columns, const std::string& label) {
  if (owned.rows() != a.owned || remote.ids != a.fetched)
    throw std::logic_error("RankProducts: B's rows are not those A was uploaded for");
  check_fits(columns, "columns");
  // B: this rank's rows, then the fetched ones; 64-bit offsets where its entries pass 32-bit ones.
  const std::size_t rows = std::size_t(owned.rows()) + remote.ids.size();
  const std::size_t mine = std::size_t(owned.nnz()), nnz = mine + std::size_t(remote.row_ptr.back());
  const bool wide = nnz > solver::max_csr_index;
  const auto offset = [&](std::size_t i) {
    return i <= std::size_t(owned.rows()) ? owned.row_ptr[i]
                                          : std::int64_t(mine) + remote.row_ptr[i - std::size_t(owned.rows())];
  };
  const auto col_at = [&](std::size_t k) { return std::int32_t(k < mine ? owned.col[k] : remote.col[k - mine]); };
  const std::size_t offset_bytes = wide ? sizeof(std::int64_t) : sizeof(std::int32_t);
  ::cl::Buffer b_row = env_.buffer(CL_MEM_READ_ONLY, (rows + 1) * offset_bytes, "allocating a product's rows of B");
  ::cl::Buffer b_col = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 4, "allocating B's columns");
  ::cl::Buffer b_val = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 8, "allocating B's values");
  {
    solver::BulkVector<std::int32_t> narrow(wide ? 0 : rows + 1), cols(nnz);  // every entry set below
    solver::BulkVector<std::int64_t> wide_row(wide ? rows + 1 : 0);
    each(rows + 1, [&](std::size_t i) {
      if (wide)
        wide_row[i] = offset(i);
      else
        narrow[i] = std::int32_t(offset(i));
    });
    each(nnz, [&](std::size_t k) { cols[k] = col_at(k); });
    write(env_, b_row, 0, (rows + 1) * offset_bytes, wide ? static_cast<const void*>(wide_row.data()) : narrow.data());
    write(env_, b_col, 0, nnz * 4, cols.data());
  }
  write(env_, b_val, 0, mine * 8, owned.values.data());
  write(env_, b_val, mine * 8, (nnz - mine) * 8, remote.values.data());
  const solver::DeviceCsrMatrix b(b_row, b_col, b_val, std::int32_t(rows), std::int32_t(columns), std::int64_t(nnz),
                                  solver::ElementType::f64, 0,
                                  wide ? solver::RowOffsets::wide : solver::RowOffsets::narrow);
  const solver::DeviceCsrMatrix c = products_->multiply(a.matrix, b, label, solver::RowOffsets::wide);
  // C back with global columns and 64-bit offsets.
  LocalRows out;
  out.global_rows = a.global_rows;
  out.row_begin = a.row_begin;
  const std::size_t c_rows = std::size_t(c.rows()), c_nnz = std::size_t(c.nnz());
  out.row_ptr.resize(c_rows + 1);
  if (c.offsets() == solver::RowOffsets::wide)
    read<std::int64_t>(c.row_offsets(), c_rows + 1, out.row_ptr.data());
  else
    read<std::int32_t>(c.row_offsets(), c_rows + 1, out.row_ptr.data());
  out.col.resize(c_nnz);
  read<std::int32_t>(c.col_idx(), c_nnz, out.col.data());
  out.values.resize(c_nnz);
  read<double>(c.values(), c_nnz, out.values.data());
  return out;
}

}  // namespace clcg::distributed
