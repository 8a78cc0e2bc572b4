#pragma once
// The halo of a rank's rows: the ghost columns (other ranks' rows its rows touch), whom it
// receives them from and which of its own rows it sends to whom, built once from the column
// indices. A local vector holds the rank's rows, then its ghosts in global order.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"

namespace clcg::distributed {

struct Halo {
  std::int64_t ghosts = 0;
  std::vector<std::int64_t> ghost_ids;         // the ghosts' global columns, sorted
  std::vector<int> recv_counts, recv_offsets;  // per rank: its ghosts' span in the ghost block
  std::vector<int> send_counts, send_offsets;  // per rank: its span in send_rows
  std::vector<std::uint32_t> send_rows;        // local rows to pack, grouped by receiving rank
  std::vector<std::uint8_t> boundary;         // per local row: 1 where it touches a ghost (its SpMV waits
                                               // for the exchange), 0 where not (build_halo only)
  std::vector<int> neighbours() const;         // ranks sent to or received from
  std::int64_t send_count() const noexcept { return std::int64_t(send_rows.size()); }
};

// Builds the halo (collective over `comm`: every rank calls it) and gives `rows.col` as local
// column numbers (`local_col`: an owned column c is c - columns.begin(rank), a ghost
// columns.size(rank) + its place); a caller done with the global ones frees them (a 256^3
// level's pattern is 1 GB: copying it for this took 1.4 s). `columns` says which rank owns
// each column: the rows' own partition for a square matrix, the other level's for AMG's P and
// R. Throws std::length_error when a rank's columns plus ghosts exceed 2^31 - 1 (the other
// ranks then throw AnotherRankFailed).
Halo build_halo(MPI_Comm comm, const Partition& columns, const LocalRows& rows,
                solver::BulkVector<std::int32_t>& local_col);

// The halo of `rows` alone (collective), as build_halo makes it but without local columns or
// `boundary` (for rows whose local columns the device makes).
Halo halo_of_rows(MPI_Comm comm, const Partition& columns, const LocalRows& rows);

// The halo of the ghost columns `ghost` (sorted, unique, none of them this rank's) under
// `columns` (collective), for rows whose local columns are already made: `boundary` is left
// empty.
Halo halo_of_ghosts(MPI_Comm comm, const Partition& columns, std::vector<std::int64_t> ghost);

}  // namespace clcg::distributed
