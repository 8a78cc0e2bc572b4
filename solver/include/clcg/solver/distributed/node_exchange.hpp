#pragma once
// All-to-all exchanges of the distributed set-up (row fetches, transposes' entries) between
// ranks that share one host's memory: through a shared-memory window that the host's threads
// copy in and out. MPI's own copies moved 3-4 GB/s a rank between four ranks of a 4-GPU host
// (call 78, Open MPI 4.1 shared memory with or without CMA), a few times less than the host's
// threads copy.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clcg::distributed {

// MPI_Alltoallv of elements of `bytes` bytes each (`type`, their MPI datatype): send_counts
// and recv_counts per rank, as MPI's, the parts grouped by rank in rank order. Where every
// rank of `comm` is on one host and some rank sends or receives at least
// shared_exchange_from() bytes, through shared memory; else MPI_Alltoallv. Collective.
void exchange(MPI_Comm comm, const void* sent, const std::vector<int>& send_counts, void* received,
              const std::vector<int>& recv_counts, std::size_t bytes, MPI_Datatype type);

// The smallest exchange (the most bytes a rank sends and receives) that goes through shared
// memory: 1 MiB. Tests set 0 to take that path with small matrices; every rank sets the same.
std::int64_t shared_exchange_from();
void set_shared_exchange_from(std::int64_t bytes);

}  // namespace clcg::distributed
