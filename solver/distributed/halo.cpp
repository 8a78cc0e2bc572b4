#include "clcg/solver/distributed/halo.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {

std::vector<int> Halo::neighbours() const {
  std::vector<int> out;
  for (std::size_t r = 0; r < recv_counts.size(); ++r)
    if (recv_counts[r] > 0 || send_counts[r] > 0) out.push_back(int(r));
  return out;
}

Halo halo_of_ghosts(MPI_Comm comm, const Partition& columns, std::vector<std::int64_t> ghost) {
  const int ranks = columns.ranks();
  const std::int64_t begin = columns.begin(comm_rank(comm));
  Halo halo;
  halo.ghosts = std::int64_t(ghost.size());
  halo.recv_counts.assign(std::size_t(ranks), 0);
  for (std::int64_t c : ghost) ++halo.recv_counts[std::size_t(columns.owner(c))];
  halo.recv_offsets.assign(std::size_t(ranks), 0);
  std::partial_sum(halo.recv_counts.begin(), halo.recv_counts.end() - 1, halo.recv_offsets.begin() + 1);

  // Tell each owner which of its rows we need: it sends them every exchange.
  halo.send_counts.assign(std::size_t(ranks), 0);
  MPI_Alltoall(halo.recv_counts.data(), 1, MPI_INT, halo.send_counts.data(), 1, MPI_INT, comm);
  halo.send_offsets.assign(std::size_t(ranks), 0);
  std::partial_sum(halo.send_counts.begin(), halo.send_counts.end() - 1, halo.send_offsets.begin() + 1);
  const std::size_t sends = std::size_t(std::accumulate(halo.send_counts.begin(), halo.send_counts.end(), std::int64_t(0)));
  std::vector<std::int64_t> wanted(sends);
  MPI_Alltoallv(ghost.data(), halo.recv_counts.data(), halo.recv_offsets.data(), MPI_INT64_T, wanted.data(),
                halo.send_counts.data(), halo.send_offsets.data(), MPI_INT64_T, comm);
  halo.send_rows.resize(sends);
  for (std::size_t i = 0; i < sends; ++i) halo.send_rows[i] = std::uint32_t(wanted[i] - begin);
  halo.ghost_ids = std::move(ghost);
  return halo;
}

Halo halo_of_rows(MPI_Comm comm, const Partition& columns, const LocalRows& rows) {
  const int rank = comm_rank(comm);
  const std::int64_t owned = columns.size(rank);
  // The ghost columns, sorted: grouped by owner, since owners hold contiguous rows.
  std::vector<std::int64_t> ghost;
  throw_if_any_rank_failed(comm, capture([&] {
    ghost = foreign_columns(rows, columns, rank);
    constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
    if (owned + std::int64_t(ghost.size()) > limit)
      throw std::length_error("rank columns " + std::to_string(owned) + " plus ghosts " +
                              std::to_string(ghost.size()) + " exceed 32-bit local column numbers; use more ranks");
  }));
  return halo_of_ghosts(comm, columns, std::move(ghost));
}

Halo build_halo(MPI_Comm comm, const Partition& columns, const LocalRows& rows,
                solver::BulkVector<std::int32_t>& local_col) {
  const int rank = comm_rank(comm);
  const std::int64_t begin = columns.begin(rank), end = begin + columns.size(rank), owned = end - begin;
  Halo halo = halo_of_rows(comm, columns, rows);
  const std::vector<std::int64_t>& ghosts = halo.ghost_ids;

  // Local columns, and which rows touch a ghost, row by row on the host's threads.
  local_col.resize(rows.col.size());  // every entry set below
  halo.boundary.assign(std::size_t(rows.rows()), 0);
  const std::size_t n = std::size_t(rows.rows());
  const unsigned threads = solver::threads_for(n, std::size_t(1) << 16);
  solver::parallel_ranges(n, threads, [&](std::size_t first, std::size_t last, unsigned) {
    for (std::size_t i = first; i < last; ++i) {
      bool touches_ghost = false;
      for (std::int64_t j = rows.row_ptr[i]; j < rows.row_ptr[i + 1]; ++j) {
        const std::int64_t c = rows.col[std::size_t(j)];
        if (c >= begin && c < end) {
          local_col[std::size_t(j)] = std::int32_t(c - begin);
        } else {
          touches_ghost = true;
          const auto at = std::lower_bound(ghosts.begin(), ghosts.end(), c);
          local_col[std::size_t(j)] = std::int32_t(owned + (at - ghosts.begin()));
        }
      }
      halo.boundary[i] = touches_ghost ? 1 : 0;
    }
  });
  return halo;
}

}  // namespace clcg::distributed
