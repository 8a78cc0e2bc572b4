#pragma once
// RankSetup's (rank_setup.hpp) helpers and member templates, for the files that implement it:
// rank_setup.cpp (construction, uploads and downloads), rank_products.cpp, rank_transpose.cpp,
// rank_aggregation.cpp and rank_lanczos.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/sparse/device_memory.hpp"

namespace clcg::distributed {
namespace rank_setup_detail {

constexpr std::size_t grain = std::size_t(1) << 16;

// f(i) for i < n on the host's threads.
template <class F>
void each(std::size_t n, F&& f) {
  solver::parallel_for(n, grain, f);
}

inline void check_fits(std::int64_t count, const char* what) {
  if (count > std::numeric_limits<std::int32_t>::max())
    throw std::length_error(std::string("the AMG set-up's product has ") + what + " (" + std::to_string(count) +
                            ") past 32-bit indices on one rank; use more ranks");
}

inline void write_bytes(const cl::Env& env, const ::cl::Buffer& to, std::size_t at, std::size_t bytes, const void* from) {
  if (bytes == 0) return;
  cl::checked("writing the AMG set-up's rows to the device",
              [&] { env.queue().enqueueWriteBuffer(to, CL_TRUE, at, bytes, from); });
}

inline ::cl::Buffer doubles(const cl::Env& env, std::size_t n, const char* what) {
  return env.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(double), what);
}

}  // namespace rank_setup_detail

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
    rank_setup_detail::each(std::min(per, count - first), [&](std::size_t i) { to[first + i] = To(in[i]); });
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
    rank_setup_detail::each(n, [&](std::size_t i) { out[i] = To(value_of(first + i)); });
    cl::checked("writing a product's B", [&] {
      env_.queue().enqueueWriteBuffer(to, CL_FALSE, (at + first) * sizeof(To), n * sizeof(To), out, nullptr, &sent[c % 2]);
    });
  }
  for (::cl::Event& e : sent)
    if (e()) cl::checked("writing a product's B", [&] { e.wait(); });
}

template <class Fill>
solver::DeviceCsrMatrix RankSetup::b_rows(const Rows& a, std::size_t owned_rows, std::size_t mine, Fill&& fill_owned,
                                          const std::vector<std::int64_t>& remote_ids, const solver::BulkVector<std::int64_t>& remote_ptr,
                                          std::int64_t columns, const KeptRows* in_place) {
  if (std::int64_t(owned_rows) != a.owned || remote_ids != a.halo.ghost_ids)
    throw std::logic_error("RankSetup: B's rows are not those of A's columns");
  rank_setup_detail::check_fits(columns, "columns");
  // B: this rank's rows, then the fetched ones; 64-bit offsets where its entries pass 32-bit ones.
  const std::size_t remote_rows = remote_ids.size(), rows = owned_rows + remote_rows;
  const std::size_t nnz = mine + std::size_t(remote_ptr.back());
  const auto fetched_offset = [&](std::size_t g) { return std::int64_t(mine) + remote_ptr[g + 1]; };
  ::cl::Buffer b_row, b_col, b_val;
  bool wide = nnz > wide_from_;
  if (in_place) {  // the kept product's buffers, its offsets' width (chosen with its room counted)
    const solver::DeviceCsrMatrix& m = in_place->matrix;
    b_row = m.row_offsets(), b_col = m.col_idx(), b_val = m.values();
    wide = m.offsets() == solver::RowOffsets::wide;
  } else {
    const std::size_t offset_bytes = wide ? sizeof(std::int64_t) : sizeof(std::int32_t);
    b_row = env_.buffer(CL_MEM_READ_ONLY, (rows + 1) * offset_bytes, "allocating a product's rows of B");
    b_col = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 4, "allocating B's columns");
    b_val = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, nnz) * 8, "allocating B's values");
    fill_owned(b_row, wide, b_col, b_val, mine);
  }
  if (wide)
    write<std::int64_t>(b_row, owned_rows + 1, remote_rows, fetched_offset);
  else
    write<std::int32_t>(b_row, owned_rows + 1, remote_rows, fetched_offset);
  return solver::DeviceCsrMatrix(b_row, b_col, b_val, std::int32_t(rows), std::int32_t(columns), std::int64_t(nnz),
                                 solver::ElementType::f64, 0, wide ? solver::RowOffsets::wide : solver::RowOffsets::narrow);
}

// Fills B's owned rows (their offsets, then their `mine` entries) from this rank's rows on the
// host (columns in 32 bits).
inline auto RankSetup::from_host(const LocalRows& owned) {
  return [this, &owned](const ::cl::Buffer& b_row, bool wide, const ::cl::Buffer& b_col, const ::cl::Buffer& b_val,
                        std::size_t mine) {
    const auto offset = [&](std::size_t i) { return owned.row_ptr[i]; };
    if (wide)
      write<std::int64_t>(b_row, 0, owned.row_ptr.size(), offset);
    else
      write<std::int32_t>(b_row, 0, owned.row_ptr.size(), offset);
    write<std::int32_t>(b_col, 0, mine, [&](std::size_t k) { return std::int32_t(owned.col[k]); });
    write<double>(b_val, 0, mine, [&](std::size_t k) { return owned.values[k]; });
  };
}

// Fills B's owned rows from a kept product, copied on the device (its offsets widened where B's
// are 64-bit and its own are not); `used_up`: a product whose device copy is then freed (B holds
// its rows), or none.
inline auto RankSetup::from_device(const KeptRows& owned, KeptRows* used_up) {
  return [this, &owned, used_up](const ::cl::Buffer& b_row, bool wide, const ::cl::Buffer& b_col,
                                 const ::cl::Buffer& b_val, std::size_t mine) {
    const solver::DeviceCsrMatrix& m = owned.matrix;
    const std::size_t offsets = std::size_t(m.rows()) + 1;
    const bool m_wide = m.offsets() == solver::RowOffsets::wide;
    if (m_wide && !wide) throw std::logic_error("RankSetup: a kept product's 64-bit offsets for B's 32-bit ones");
    const ::cl::Buffer from = wide && !m_wide ? products_->widened(m.row_offsets(), offsets - 1) : m.row_offsets();
    cl::checked("copying a kept product into B", [&] {
      env_.queue().enqueueCopyBuffer(from, b_row, 0, 0, offsets * (wide ? sizeof(std::int64_t) : sizeof(std::int32_t)));
      if (mine > 0) {
        env_.queue().enqueueCopyBuffer(m.col_idx(), b_col, 0, 0, mine * sizeof(std::int32_t));
        env_.queue().enqueueCopyBuffer(m.values(), b_val, 0, 0, mine * sizeof(double));
      }
    });
    if (used_up) used_up->matrix = {};
  };
}

}  // namespace clcg::distributed
