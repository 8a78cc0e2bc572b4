// RankSetup's transposes over the ranks and kept rows given local columns (rank_setup.hpp).
#include "rank_setup_members.hpp"

#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/distributed/sorted_ids.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

std::vector<std::int64_t> RankSetup::ghost_columns(const OutgoingEntries& out, std::int64_t columns) {
  return sorted_distinct_below(out.cols, columns);
}

OutgoingEntries RankSetup::outside(const solver::DeviceCsrMatrix& m, const ::cl::Buffer& m_row, std::int64_t first,
                                   std::int64_t last, bool columns_only) {
  // Counted a row, then copied out in row order on the device.
  const std::size_t n = std::size_t(m.rows());
  OutgoingEntries found;
  ::cl::Buffer at = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating a count of entries");
  if (n > 0) kernels_->run(count_outside_, "count_outside", n, m_row, m.col_idx(), cl_int(first), cl_int(last), at);
  const std::size_t entries = std::size_t(products_->exclusive_scan(at, n).total);
  found.cols.resize(entries);
  if (!columns_only) found.rows.resize(entries), found.values.resize(entries);
  if (entries == 0) return found;
  ::cl::Buffer rows = env_.buffer(CL_MEM_READ_WRITE, entries * sizeof(cl_int), "allocating entries of other ranks");
  ::cl::Buffer cols = env_.buffer(CL_MEM_READ_WRITE, entries * sizeof(cl_int), "allocating entries of other ranks");
  ::cl::Buffer values = doubles(env_, entries, "allocating entries of other ranks");
  kernels_->run(entries_outside_, "entries_outside", n, m_row, m.col_idx(), m.values(), cl_int(first), cl_int(last),
                at, rows, cols, values);
  read<std::int32_t>(cols, entries, found.cols.data());
  if (columns_only) return found;
  read<std::int32_t>(rows, entries, found.rows.data());
  read<double>(values, entries, found.values.data());
  return found;
}

RankSetup::Rows RankSetup::localised(KeptRows&& m, const Partition& columns,
                                     std::optional<std::vector<std::int64_t>> ghosts) {
  const int rank = comm_rank(comm_);
  const std::int64_t first = columns.begin(rank), last = first + columns.size(rank);
  const std::size_t n = std::size_t(m.matrix.rows());
  // The ghosts: the other ranks' columns the rows name, sorted.
  std::vector<std::int64_t> ghost = ghosts ? std::move(*ghosts) : shared([&] {
    return ghost_columns(outside(m.matrix, long_offsets(m.matrix), first, last, true), columns.rows());
  });
  Rows out;
  out.global_rows = m.global_rows;
  out.row_begin = m.row_begin;
  out.owned = last - first;
  out.column_begin = first;
  out.matrix = shared([&] {
    check_fits(out.owned + std::int64_t(ghost.size()), "columns and ghosts");
    check_fits(m.matrix.nnz(), "nonzeros in a kept product's rows");
    const std::int32_t longest = m.matrix.max_row_length();
    if (longest == 0 && m.matrix.nnz() > 0) throw std::logic_error("RankSetup::localised: a kept matrix's longest row unknown");
    // 32-bit offsets (the SpMV's) and local columns, in place.
    const ::cl::Buffer row_ptr = narrow_offsets(m.matrix);
    make_local(m.matrix.col_idx(), std::size_t(m.matrix.nnz()), first, last, ghost);
    return solver::DeviceCsrMatrix(row_ptr, m.matrix.col_idx(), m.matrix.values(), std::int32_t(n),
                                   std::int32_t(out.owned + std::int64_t(ghost.size())), m.matrix.nnz(),
                                   solver::ElementType::f64, std::int32_t(longest));
  });
  m = {};
  out.halo = halo_of_ghosts(comm_, columns, std::move(ghost));
  return out;
}

RankSetup::Rows RankSetup::transpose(const KeptRows& m, const Partition& rows_of_m, const Partition& columns,
                                     std::vector<std::int64_t>* m_ghosts) {
  const int rank = comm_rank(comm_);
  const std::int64_t first = columns.begin(rank), last = first + columns.size(rank);
  const std::size_t n = std::size_t(m.matrix.rows());
  const ::cl::Buffer m_row = shared([&] { return long_offsets(m.matrix); });
  const OutgoingEntries out = shared([&] { return outside(m.matrix, m_row, first, last); });
  if (m_ghosts) *m_ghosts = ghost_columns(out, columns.rows());
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
  const std::size_t rows = n + ghost.size();
  Rows t;
  t.global_rows = columns.rows();
  t.row_begin = first;
  t.owned = std::int64_t(n);
  t.column_begin = m.row_begin;
  t.matrix = shared([&] {
    check_fits(std::int64_t(rows), "rows and ghosts");
    check_fits(m.matrix.nnz(), "nonzeros in a transposed matrix's rows");
    // M's rows in global order, transposed as one matrix with this rank's columns only
    // (numbered from `first`): the ghosts below this rank's rows and those above as small
    // matrices of the entries received, this rank's rows in place (32-bit offsets).
    const auto received_rows = [&](std::size_t g0, std::size_t g1) {  // the ghosts [g0, g1)
      const std::size_t count = g1 - g0, e0 = std::size_t(ghost_start[g0]);
      const std::size_t entries = std::size_t(ghost_start[g1]) - e0;
      ::cl::Buffer row_ptr = env_.buffer(CL_MEM_READ_WRITE, (count + 1) * sizeof(cl_int), "allocating a transpose's rows");
      ::cl::Buffer col = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, entries) * sizeof(cl_int),
                                     "allocating a transpose's rows");
      ::cl::Buffer values = doubles(env_, entries, "allocating a transpose's rows");
      write<std::int32_t>(row_ptr, 0, count + 1, [&](std::size_t g) { return std::int32_t(ghost_start[g0 + g] - std::int64_t(e0)); });
      write<std::int32_t>(col, 0, entries, [&](std::size_t e) { return std::int32_t(got.pairs[2 * (e0 + e)] - first); });
      write<double>(values, 0, entries, [&](std::size_t e) { return got.values[e0 + e]; });
      return solver::DeviceCsrMatrix(row_ptr, col, values, std::int32_t(count), std::int32_t(last - first),
                                     std::int64_t(entries), solver::ElementType::f64, 0);
    };
    const solver::DeviceCsrMatrix below_rows = received_rows(0, below), above_rows = received_rows(below, ghost.size());
    const solver::DeviceCsrMatrix own(narrow_offsets(m.matrix), m.matrix.col_idx(), m.matrix.values(), std::int32_t(n),
                                      std::int32_t(columns.rows()), m.matrix.nnz(), solver::ElementType::f64,
                                      m.matrix.max_row_length());
    // Its transpose: each row's columns M's rows in global order, then local as the halo numbers them.
    solver::DeviceCsrMatrix transposed = products_->transpose(
        {{&below_rows, 0, 0}, {&own, std::int32_t(first), std::int32_t(below)}, {&above_rows, 0, std::int32_t(below + n)}},
        std::int32_t(last - first), std::int32_t(rows));
    if (transposed.nnz() > 0)
      kernels_->run(ghosts_last_, "ghosts_last", std::size_t(transposed.nnz()), cl_int(below), cl_int(n),
                    transposed.col_idx());
    return transposed;
  });
  t.halo = halo_of_ghosts(comm_, rows_of_m, std::move(ghost));
  return t;
}
}  // namespace clcg::distributed
