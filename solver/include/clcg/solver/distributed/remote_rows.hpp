#pragma once
// Sparse rows moving between ranks, for the distributed AMG set-up (distributed/amg_hierarchy.hpp):
// the rows of another rank a product needs (rank_setup.hpp forms the product on the device)
// and the entries of a transpose that other ranks own (RankSetup::transpose places them).
#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/io/bulk_vector.hpp"

namespace clcg::distributed {

// Exclusive prefix sums of per-rank counts: where each rank's part starts.
std::vector<int> offsets_of(const std::vector<int>& counts);

// For threads that fill a buffer grouped by destination rank, each taking a range of the
// entries in order: their counts (sent[t][r], thread t's entries for rank r) become each
// thread's first slot for each rank, so that within a rank the entries keep the serial order.
// Returns the counts by rank.
std::vector<int> slots_by_thread(std::vector<std::vector<int>>& sent);

// MPI_Alltoallv of `sent` (grouped by destination rank, send_counts[r] for rank r; elements:
// double, 64-bit or 32-bit integers) into a new vector of the same kind, grouped by source rank
// (recv_counts, if given, gets how many came from each). Collective.
template <class Vector>
Vector all_to_all(MPI_Comm comm, const Vector& sent, const std::vector<int>& send_counts,
                  std::vector<int>* recv_counts_out = nullptr) {
  using T = typename Vector::value_type;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>);
  const MPI_Datatype type = std::is_same_v<T, double>         ? MPI_DOUBLE
                            : std::is_same_v<T, std::int64_t> ? MPI_INT64_T
                                                              : MPI_INT32_T;
  std::vector<int> recv_counts(send_counts.size());
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  Vector received(std::size_t(std::accumulate(recv_counts.begin(), recv_counts.end(), std::int64_t(0))));
  // (its new pages faulted in by the host's threads: MPI would fault them one by one, at a third
  // of its rate into touched memory)
  solver::touch_pages(received.data(), received.size() * sizeof(T));
  MPI_Alltoallv(sent.data(), send_counts.data(), offsets_of(send_counts).data(), type, received.data(),
                recv_counts.data(), offsets_of(recv_counts).data(), type, comm);
  if (recv_counts_out) *recv_counts_out = std::move(recv_counts);
  return received;
}

// Rows of a distributed matrix fetched from their owners: `ids` sorted, the rows in that order,
// with global columns as the owners hold them (LocalRows; a product kept on the devices fetches
// its rows device to device: RankSetup::fetch_rows).
struct RemoteRows {
  std::vector<std::int64_t> ids;
  solver::BulkVector<std::int64_t> row_ptr{0};
  solver::BulkVector<std::int64_t> col;
  solver::BulkVector<double> values;
};

// Collective: this rank asks the owners of the rows `wanted` (sorted, unique, none its own) of
// the matrix whose rows `partition` spreads over the ranks for them; returns the rows the others
// ask of this rank (global, grouped by the asking rank in rank order, each group in the order
// asked), and in `asked_counts` how many each rank asks.
std::vector<std::int64_t> ask_owners(MPI_Comm comm, const Partition& partition, const std::vector<std::int64_t>& wanted,
                                     std::vector<int>& asked_counts);
// Collective: the rows `wanted` from their owners, answered from each one's `rows` (its rows of
// the matrix, global columns).
RemoteRows fetch_rows(MPI_Comm comm, const Partition& partition, const LocalRows& rows,
                      const std::vector<std::int64_t>& wanted);

// The global columns of `rows` that `partition` gives another rank, sorted and unique.
std::vector<std::int64_t> foreign_columns(const LocalRows& rows, const Partition& partition, int rank);

// Entries of this rank's rows in columns other ranks own, in row order (local rows, global
// columns).
struct OutgoingEntries {
  solver::BulkVector<std::int32_t> rows;
  solver::BulkVector<std::int64_t> cols;
  solver::BulkVector<double> values;
};
// The same as their columns' owners receive them: (column, global row) pairs and values, sorted
// by row (each sender's in row order, the senders in rank order).
struct ForeignEntries {
  solver::BulkVector<std::int64_t> pairs;  // column, row, column, row, ...
  solver::BulkVector<double> values;
};
// Collective: sends `out` (of the rows from `row_begin`) to the owners of their columns under
// `columns` (the transpose's rows they own); returns what this rank receives.
ForeignEntries send_to_column_owners(MPI_Comm comm, const OutgoingEntries& out, std::int64_t row_begin,
                                     const Partition& columns);

}  // namespace clcg::distributed
