// RankSetup's sparse products (rank_setup.hpp): C = A B with B's owned rows from the host or kept on
// the device, P's smoothing, and kept rows fetched by other ranks.
#include "rank_setup_members.hpp"

#include "clcg/solver/distributed/remote_rows.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const LocalRows& owned, const RemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] {
    return kept(a, product(a, std::size_t(owned.rows()), std::size_t(owned.nnz()), from_host(owned), remote, columns, label).c);
  });
}

RankSetup::Product RankSetup::product(const Rows& a, const KeptRows& owned, KeptRows* used_up,
                                      const KeptRemoteRows& remote, std::int64_t columns, const std::string& label,
                                      solver::ProductRoom room, solver::ColumnList list) {
  const std::size_t owned_rows = std::size_t(owned.matrix.rows()), mine = std::size_t(owned.matrix.nnz());
  const std::size_t fetched = std::size_t(remote.row_ptr.back());
  const bool fits = used_up && owned.room.rows >= remote.ids.size() && owned.room.entries >= fetched &&
                    (owned.matrix.offsets() == solver::RowOffsets::wide || mine + fetched <= wide_from_);
  Product p = product(a, owned_rows, mine, from_device(owned, used_up), remote, columns, label,
                      fits ? &owned : nullptr, room, list);
  if (fits) used_up->matrix = {};  // (B holds its buffers)
  return p;
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, const KeptRows& owned, const KeptRemoteRows& remote,
                                             std::int64_t columns, const std::string& label) {
  return shared([&] { return kept(a, product(a, owned, nullptr, remote, columns, label).c); });
}

RankSetup::KeptRows RankSetup::multiply_kept(const Rows& a, KeptRows&& owned, const KeptRemoteRows& remote,
                                             std::int64_t columns, const std::string& label, KeptRows* owned_back,
                                             solver::ProductRoom room, solver::ColumnList list) {
  return shared([&] {
    const solver::DeviceCsrMatrix shape = owned.matrix.shape_only();
    const std::int64_t global_rows = owned.global_rows, row_begin = owned.row_begin;
    const Product p = product(a, owned, &owned, remote, columns, label, room, list);
    if (owned_back)
      *owned_back = {solver::DeviceCsrMatrix(p.b.row_offsets(), p.b.col_idx(), p.b.values(), shape.rows(), shape.cols(),
                                             shape.nnz(), solver::ElementType::f64, shape.max_row_length(),
                                             p.b.offsets()),
                     global_rows, row_begin, {}};
    KeptRows c = kept(a, p.c);
    c.room = {room.rows, room.entries_for(p.c.max_row_length())};
    return c;
  });
}

RankSetup::KeptRows RankSetup::smoothed(const Rows& a, const KeptRows& tentative, const KeptRemoteRows& remote,
                                        std::int64_t columns, const ::cl::Buffer& diagonal, double omega) {
  return shared([&] {
    const Product ap = product(a, tentative, nullptr, remote, columns, "A P_tent");
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
  return distributed::fetch_rows<std::int32_t>(comm_, partition, wanted, answering(rows));
}

KeptRemoteRows RankSetup::fetch_rows(const Partition& partition, const KeptRows& rows, const Halo& halo) {
  return distributed::fetch_halo_rows<std::int32_t>(comm_, partition, halo, answering(rows));
}

std::function<KeptAnswer(const std::vector<std::int64_t>&)> RankSetup::answering(const KeptRows& rows) {
  return [this, &rows](const std::vector<std::int64_t>& asked) { return shared([&] { return answer(rows, asked); }); };
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

KeptAnswer RankSetup::answer(const KeptRows& rows, const std::vector<std::int64_t>& asked) {
  // The asked rows' lengths scanned on the device, their 32-bit offsets read back (one read
  // before the entries: each round trip cost about a millisecond on the 2 x H200 host).
  KeptAnswer out;
  const std::size_t count = asked.size();
  out.lengths.resize(count);
  if (count == 0) return out;
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
  for (std::size_t q = 0; q < count; ++q) out.lengths[q] = std::int64_t(std::uint32_t(offsets[q + 1] - offsets[q]));
  out.col.resize(entries);
  out.values.resize(entries);
  if (entries == 0) return out;
  ::cl::Buffer col = env_.buffer(CL_MEM_WRITE_ONLY, entries * sizeof(std::int32_t), "allocating the rows asked for");
  ::cl::Buffer values = doubles(env_, entries, "allocating the rows asked for");
  kernels_->run(for_offsets(m, gather_rows_, gather_rows_wide_, "gather_rows"), "gather_rows", count, local,
                m.row_offsets(), products_->widened(at, count), m.col_idx(), m.values(), col, values);
  read<std::int32_t>(col, entries, out.col.data());
  read<double>(values, entries, out.values.data());
  return out;
}
}  // namespace clcg::distributed
