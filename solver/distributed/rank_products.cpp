// RankSetup's sparse products (rank_setup.hpp): C = A B with B's owned rows from the host or kept on
// the device, P's smoothing, and kept rows fetched by other ranks.
#include "rank_setup_members.hpp"

#include "clcg/solver/distributed/device_stream.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const LocalRows& owned, const RemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] {
    const std::size_t mine = std::size_t(owned.nnz()), fetched = remote.values.size();
    const solver::DeviceCsrMatrix b =
        b_rows(a, std::size_t(owned.rows()), mine, from_host(owned), remote.ids, remote.row_ptr, columns);
    write<std::int32_t>(b.col_idx(), mine, fetched, [&](std::size_t k) { return std::int32_t(remote.col[k]); });
    write<double>(b.values(), mine, fetched, [&](std::size_t k) { return remote.values[k]; });
    return kept(a, products_->multiply(a.matrix, b, label, solver::RowOffsets::wide));
  });
}

RankSetup::Product RankSetup::product(const Rows& a, const KeptRows& owned, KeptRows* used_up,
                                      KeptRemoteRows&& remote, std::int64_t columns, const std::string& label,
                                      solver::ProductRoom room, solver::ColumnList list) {
  const std::size_t owned_rows = std::size_t(owned.matrix.rows()), mine = std::size_t(owned.matrix.nnz());
  const std::size_t fetched = std::size_t(remote.row_ptr.back());
  const bool fits = used_up && owned.room.rows >= remote.ids.size() && owned.room.entries >= fetched &&
                    (owned.matrix.offsets() == solver::RowOffsets::wide || mine + fetched <= wide_from_);
  Product p;
  p.b = shared([&] {
    return b_rows(a, owned_rows, mine, from_device(owned, used_up), remote.ids, remote.row_ptr, columns,
                  fits ? &owned : nullptr);
  });
  if (fits) used_up->matrix = {};  // (B holds its buffers)
  receive(remote, p.b.col_idx(), p.b.values(), mine);
  p.c = shared([&] { return products_->multiply(a.matrix, p.b, label, solver::RowOffsets::wide, room, list); });
  return p;
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const KeptRows& owned, KeptRemoteRows&& remote,
                                             std::int64_t columns, const std::string& label) {
  return kept(a, product(a, owned, nullptr, std::move(remote), columns, label).c);
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, KeptRows&& owned, KeptRemoteRows&& remote,
                                             std::int64_t columns, const std::string& label, KeptRows* owned_back,
                                             solver::ProductRoom room, solver::ColumnList list) {
  const solver::DeviceCsrMatrix shape = owned.matrix.shape_only();
  const std::int64_t global_rows = owned.global_rows, row_begin = owned.row_begin;
  const Product p = product(a, owned, &owned, std::move(remote), columns, label, room, list);
  if (owned_back)
    *owned_back = {solver::DeviceCsrMatrix(p.b.row_offsets(), p.b.col_idx(), p.b.values(), shape.rows(), shape.cols(),
                                           shape.nnz(), solver::ElementType::f64, shape.max_row_length(), p.b.offsets()),
                   global_rows, row_begin, {}};
  KeptRows c = kept(a, p.c);
  c.room = {room.rows, room.entries_for(p.c.max_row_length())};
  return c;
}

RankSetup::KeptRows RankSetup::smoothed(const Rows& a, const KeptRows& tentative, KeptRemoteRows&& remote,
                                        std::int64_t columns, const ::cl::Buffer& diagonal, double omega) {
  const Product ap = product(a, tentative, nullptr, std::move(remote), columns, "A P_tent");
  return shared([&] {
    const std::size_t n = std::size_t(ap.c.rows());
    ::cl::Kernel& smooth = for_offsets(ap.b, smooth_rows_, smooth_rows_wide_, "smooth_rows");
    if (n > 0) {
      const ::cl::Buffer c_row = long_offsets(ap.c);
      kernels_->run(smooth, "smooth_rows", n, c_row, ap.c.col_idx(), ap.c.values(), ap.b.row_offsets(), ap.b.col_idx(),
                    ap.b.values(), diagonal, solver::Real{omega});
    }
    return kept(a, ap.c);
  });
}

LocalRows RankSetup::download(const KeptRows& rows) {
  return shared([&] { return read_rows(rows.matrix, rows.global_rows, rows.row_begin); });
}

KeptRemoteRows RankSetup::fetch_rows(const Partition& partition, const KeptRows& rows,
                                     const std::vector<std::int64_t>& wanted) {
  std::vector<int> asked_counts;
  const std::vector<std::int64_t> asked = ask_owners(comm_, partition, wanted, asked_counts);
  return fetched(rows, wanted, asked, asked_counts);
}

KeptRemoteRows RankSetup::fetch_rows(const Partition& partition, const KeptRows& rows, const Halo& halo) {
  if (halo.send_counts.size() != std::size_t(partition.ranks()))
    throw std::logic_error("fetch_rows: the halo's send counts are not one a rank of the partition");
  const std::int64_t first = partition.begin(comm_rank(comm_));
  std::vector<std::int64_t> asked(halo.send_rows.size());
  for (std::size_t i = 0; i < asked.size(); ++i) asked[i] = first + std::int64_t(halo.send_rows[i]);
  return fetched(rows, halo.ghost_ids, asked, halo.send_counts);
}

KeptRemoteRows RankSetup::fetched(const KeptRows& rows, const std::vector<std::int64_t>& wanted,
                                  const std::vector<std::int64_t>& asked, const std::vector<int>& asked_counts) {
  KeptRemoteRows out;
  out.ids = wanted;
  const std::vector<std::int64_t> lengths = shared([&] { return answer(rows, asked, out); });
  out.entries_to.assign(asked_counts.size(), 0);
  for (std::size_t r = 0, q = 0; r < asked_counts.size(); ++r)
    for (int k = 0; k < asked_counts[r]; ++k, ++q) out.entries_to[r] += lengths[q];
  std::vector<int> got_counts;
  const std::vector<std::int64_t> got_lengths = all_to_all(comm_, lengths, asked_counts, &got_counts);
  if (got_lengths.size() != wanted.size()) throw std::logic_error("fetch_rows: the owners answered other rows");
  out.row_ptr.resize(got_lengths.size() + 1);
  std::partial_sum(got_lengths.begin(), got_lengths.end(), out.row_ptr.begin() + 1);
  out.entries_from.assign(got_counts.size(), 0);
  for (std::size_t r = 0, g = 0; r < got_counts.size(); ++r)
    for (int k = 0; k < got_counts[r]; ++k, ++g) out.entries_from[r] += got_lengths[g];
  return out;
}

void RankSetup::receive(KeptRemoteRows& remote, const ::cl::Buffer& b_col, const ::cl::Buffer& b_val,
                        std::size_t at) {
  // Each peer's columns, then its values: the same spans in the same order on both sides.
  const auto spans = [](const std::vector<std::int64_t>& entries, std::size_t first, const ::cl::Buffer& col,
                        const ::cl::Buffer& val) {
    std::vector<DeviceSpan> out;
    for (std::size_t r = 0, at = first; r < entries.size(); at += std::size_t(entries[r]), ++r) {
      const std::size_t n = std::size_t(entries[r]);
      if (n == 0) continue;
      out.push_back({int(r), col, at * sizeof(std::int32_t), n * sizeof(std::int32_t)});
      out.push_back({int(r), val, at * sizeof(double), n * sizeof(double)});
    }
    return out;
  };
  stream_between_devices(comm_, env_, pinned_, spans(remote.entries_to, 0, remote.answer_col, remote.answer_values),
                         spans(remote.entries_from, at, b_col, b_val));
  remote.answer_col = {}, remote.answer_values = {};  // (freed before the product: at level 0 it is the set-up's peak)
}

RemoteRows RankSetup::download(KeptRemoteRows&& rows) {
  const std::size_t entries = std::size_t(rows.row_ptr.back());
  const auto [col, values] = shared([&] {
    return std::pair(env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, entries) * sizeof(cl_int), "allocating fetched rows"),
                     doubles(env_, entries, "allocating fetched rows"));
  });
  receive(rows, col, values, 0);
  RemoteRows out;
  out.ids = rows.ids;
  out.row_ptr = solver::copied(rows.row_ptr);
  out.col.resize(entries);
  out.values.resize(entries);
  shared([&] {
    read<std::int32_t>(col, entries, out.col.data());
    read<double>(values, entries, out.values.data());
    return 0;
  });
  return out;
}

::cl::Kernel& RankSetup::for_offsets(const solver::DeviceCsrMatrix& m, ::cl::Kernel& narrow,
                                     std::optional<::cl::Kernel>& wide, const char* name) {
  if (m.offsets() != solver::RowOffsets::wide) return narrow;
  if (!wide)
    wide = env_.kernel("distributed_setup.cl", name, solver::real_build_options(solver::ElementType::f64) + " -DB_OFFSET=long");
  return *wide;
}

std::vector<std::int64_t> RankSetup::row_starts(const solver::DeviceCsrMatrix& m, const std::vector<std::int64_t>& rows,
                                                std::vector<std::int64_t>& lengths) {
  const std::size_t count = rows.size();
  std::vector<std::int64_t> first(count);
  lengths.resize(count);
  if (count == 0) return first;
  ::cl::Buffer asked = env_.buffer(CL_MEM_READ_ONLY, count * sizeof(std::int64_t), "allocating the rows asked for");
  write_bytes(env_, asked, 0, count * sizeof(std::int64_t), rows.data());
  ::cl::Buffer starts = env_.buffer(CL_MEM_WRITE_ONLY, count * sizeof(std::int64_t), "allocating the rows asked for");
  ::cl::Buffer sizes = env_.buffer(CL_MEM_WRITE_ONLY, count * sizeof(std::int64_t), "allocating the rows asked for");
  kernels_->run(for_offsets(m, row_spans_, row_spans_wide_, "row_spans"), "row_spans", count, asked, m.row_offsets(),
                starts, sizes);
  read<std::int64_t>(starts, count, first.data());
  read<std::int64_t>(sizes, count, lengths.data());
  return first;
}

std::vector<std::int64_t> RankSetup::answer(const KeptRows& rows, const std::vector<std::int64_t>& asked,
                                           KeptRemoteRows& out) {
  // The asked rows' lengths scanned on the device, their 32-bit offsets read back (each round
  // trip cost about a millisecond on the 2 x H200 host); their entries gathered and left there.
  const std::size_t count = asked.size();
  std::vector<std::int64_t> lengths(count);
  if (count == 0) return lengths;
  for (std::int64_t id : asked)
    if (id < rows.row_begin || id - rows.row_begin >= rows.matrix.rows())
      throw std::logic_error("fetch_rows: row " + std::to_string(id) + " asked of a rank that lacks it");
  const solver::DeviceCsrMatrix& m = rows.matrix;
  ::cl::Buffer local = env_.buffer(CL_MEM_READ_ONLY, count * sizeof(cl_uint), "allocating the rows asked for");
  write<std::uint32_t>(local, 0, count, [&](std::size_t q) { return std::uint32_t(asked[q] - rows.row_begin); });
  ::cl::Buffer at = env_.buffer(CL_MEM_READ_WRITE, (count + 1) * sizeof(cl_int), "allocating the rows asked for");
  kernels_->run(for_offsets(m, asked_lengths_, asked_lengths_wide_, "asked_lengths"), "asked_lengths", count, local,
                m.row_offsets(), at);
  const std::size_t entries = std::size_t(products_->exclusive_scan(at, count).total);
  std::vector<std::uint32_t> offsets(count + 1);  // (mod 2^32: each length their difference)
  read<std::uint32_t>(at, count + 1, offsets.data());
  for (std::size_t q = 0; q < count; ++q) lengths[q] = std::int64_t(std::uint32_t(offsets[q + 1] - offsets[q]));
  out.answer_col = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, entries) * sizeof(std::int32_t),
                               "allocating the rows asked for");
  out.answer_values = doubles(env_, entries, "allocating the rows asked for");
  if (entries > 0)
    kernels_->run(for_offsets(m, gather_rows_, gather_rows_wide_, "gather_rows"), "gather_rows", count, local,
                  m.row_offsets(), products_->widened(at, count), m.col_idx(), m.values(), out.answer_col,
                  out.answer_values);
  return lengths;
}
}  // namespace clcg::distributed
