#pragma once
// The distributed AMG set-up's all-to-all exchanges (row fetches, transposes' entries) between
// ranks that share one host's memory: through one shared-memory window that stays while a
// NodeExchange lives, the host's threads copying each part in and its receivers copying it out.
// MPI's own copies move 3-4 GB/s a rank between the ranks of a 4-GPU host (call 78, Open MPI 4.1
// shared memory, CMA or not); a window kept between exchanges moved 8.6 GB/s with 8 threads a
// rank (call 83), while one made an exchange lost that to the first touch of its pages (call 81).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clcg::distributed {

// While one lives for a communicator, exchange() on it goes through its window where every rank
// of it is on this host and some rank moves at least shared_exchange_from() bytes. The window
// grows to the largest part a rank sends (on every rank alike) and keeps its pages. Made and
// destroyed collectively (RankSetup holds one for the set-up); nested ones take over from the
// one before while they live.
class NodeExchange {
 public:
  explicit NodeExchange(MPI_Comm comm);
  ~NodeExchange();
  NodeExchange(const NodeExchange&) = delete;
  NodeExchange& operator=(const NodeExchange&) = delete;

  // Collective (on the comm): sends[r] bytes from `sent` to each rank r, grouped by rank; the
  // parts for this rank, received[r] bytes from each, into `received` grouped by rank.
  void exchange(const void* sent, const std::vector<std::int64_t>& sends, void* received,
                const std::vector<std::int64_t>& receives);
  // Whether exchanges of `most` bytes (the most any rank sends and receives) go through the window.
  bool takes(std::int64_t most) const;
  MPI_Comm comm() const { return comm_; }

 private:
  void grow(std::int64_t bytes);  // collective: every rank the same bytes
  void release();

  MPI_Comm comm_;
  bool one_host_ = false;
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t capacity_ = 0;  // each rank's segment
  std::vector<char*> segments_;
};

// MPI_Alltoallv of elements of `bytes` bytes (`type`, their MPI datatype): send_counts and
// recv_counts per rank, the parts grouped by rank in rank order; through the newest NodeExchange
// of `comm` where it takes the exchange, else MPI_Alltoallv into `received`'s pages first touched
// on the host's threads. Collective.
void exchange(MPI_Comm comm, const void* sent, const std::vector<int>& send_counts, void* received,
              const std::vector<int>& recv_counts, std::size_t bytes, MPI_Datatype type);

// The smallest exchange (the most bytes a rank sends and receives) that goes through a window:
// 1 MiB (below it MPI's latency wins). Tests set 0 so that small matrices take the window; every
// rank sets the same.
std::int64_t shared_exchange_from();
void set_shared_exchange_from(std::int64_t bytes);

}  // namespace clcg::distributed
