#include "clcg/solver/distributed/node_exchange.hpp"

#include <algorithm>
#include <cstring>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {
namespace {

std::int64_t exchange_from = std::int64_t(1) << 20;

// Whether every rank of a communicator shares this host's memory: asked once, kept as an
// attribute of the communicator.
int one_host_key = MPI_KEYVAL_INVALID;
int drop_flag(MPI_Comm, int, void* flag, void*) {
  delete static_cast<int*>(flag);
  return MPI_SUCCESS;
}
bool on_one_host(MPI_Comm comm) {
  if (one_host_key == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_flag, &one_host_key, nullptr);
  void* flag = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, one_host_key, &flag, &found);
  if (!found) {
    MPI_Comm host;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int ranks = 0, here = 0;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_size(host, &here);
    MPI_Comm_free(&host);
    int all = here == ranks ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    flag = new int(all);
    MPI_Comm_set_attr(comm, one_host_key, flag);
  }
  return *static_cast<int*>(flag) != 0;
}

// memcpy on the host's threads (a range of 1 MiB at least each).
void copy(void* to, const void* from, std::size_t bytes) {
  solver::parallel_ranges(bytes, solver::threads_for(bytes, std::size_t(1) << 20),
                          [&](std::size_t begin, std::size_t end, unsigned) {
                            std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, end - begin);
                          });
}

std::vector<std::int64_t> starts(const std::vector<int>& counts) {
  std::vector<std::int64_t> at(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) at[r + 1] = at[r] + counts[r];
  return at;
}

}  // namespace

std::int64_t shared_exchange_from() { return exchange_from; }
void set_shared_exchange_from(std::int64_t bytes) { exchange_from = bytes; }

void exchange(MPI_Comm comm, const void* sent, const std::vector<int>& send_counts, void* received,
              const std::vector<int>& recv_counts, std::size_t bytes, MPI_Datatype type) {
  const std::vector<std::int64_t> send_at = starts(send_counts), recv_at = starts(recv_counts);
  std::int64_t mine = (send_at.back() + recv_at.back()) * std::int64_t(bytes), most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, comm);
  if (most < exchange_from || !on_one_host(comm)) {
    std::vector<int> send_offsets(send_counts.size()), recv_offsets(recv_counts.size());
    for (std::size_t r = 0; r < send_counts.size(); ++r) send_offsets[r] = int(send_at[r]), recv_offsets[r] = int(recv_at[r]);
    MPI_Alltoallv(sent, send_counts.data(), send_offsets.data(), type, received, recv_counts.data(),
                  recv_offsets.data(), type, comm);
    return;
  }
  // Each rank's parts in its own segment of the window, where the receivers read them: each
  // learns where its part starts in every sender's.
  std::vector<std::int64_t> their_at(send_counts.size());
  MPI_Alltoall(send_at.data(), 1, MPI_INT64_T, their_at.data(), 1, MPI_INT64_T, comm);
  const std::size_t out_bytes = std::size_t(send_at.back()) * bytes;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  void* segment = nullptr;
  MPI_Win window;
  MPI_Win_allocate_shared(MPI_Aint(std::max<std::size_t>(1, out_bytes)), 1, info, comm, &segment, &window);
  MPI_Info_free(&info);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window);
  copy(segment, sent, out_bytes);
  MPI_Win_sync(window);
  MPI_Barrier(comm);  // every part in place
  MPI_Win_sync(window);
  for (std::size_t r = 0; r < recv_counts.size(); ++r) {
    if (recv_counts[r] == 0) continue;
    MPI_Aint size = 0;
    int unit = 0;
    void* theirs = nullptr;
    MPI_Win_shared_query(window, int(r), &size, &unit, &theirs);
    copy(static_cast<char*>(received) + std::size_t(recv_at[r]) * bytes,
         static_cast<const char*>(theirs) + std::size_t(their_at[r]) * bytes, std::size_t(recv_counts[r]) * bytes);
  }
  MPI_Barrier(comm);  // every part read before the window goes
  MPI_Win_unlock_all(window);
  MPI_Win_free(&window);
}

}  // namespace clcg::distributed
