#include "clcg/solver/distributed/node_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/io/bulk_vector.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {
namespace {

std::int64_t exchange_from = std::int64_t(1) << 20;
std::vector<NodeExchange*> living;  // the newest last

NodeExchange* newest_for(MPI_Comm comm) {
  for (auto it = living.rbegin(); it != living.rend(); ++it)
    if ((*it)->comm() == comm) return *it;
  return nullptr;
}

struct Part {
  char* to;
  const char* from;
  std::size_t bytes;
};

// The parts copied on the host's threads, their bytes split evenly (1 MiB a thread at least).
void copy_parts(const std::vector<Part>& parts) {
  std::size_t total = 0;
  for (const Part& p : parts) total += p.bytes;
  solver::parallel_ranges(total, solver::threads_for(total, std::size_t(1) << 20),
                          [&](std::size_t begin, std::size_t end, unsigned) {
                            std::size_t at = 0;  // the part's first byte in [0, total)
                            for (const Part& p : parts) {
                              const std::size_t lo = std::max(begin, at), hi = std::min(end, at + p.bytes);
                              if (lo < hi) std::memcpy(p.to + (lo - at), p.from + (lo - at), hi - lo);
                              at += p.bytes;
                            }
                          });
}

std::vector<std::int64_t> starts(const std::vector<std::int64_t>& bytes) {
  std::vector<std::int64_t> at(bytes.size() + 1, 0);
  std::partial_sum(bytes.begin(), bytes.end(), at.begin() + 1);
  return at;
}

}  // namespace

NodeExchange::NodeExchange(MPI_Comm comm) : comm_(comm) {
  int ranks = 1, here = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm host;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  MPI_Comm_size(host, &here);
  MPI_Comm_free(&host);
  int all = ranks > 1 && here == ranks ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  one_host_ = all != 0;
  living.push_back(this);
}

NodeExchange::~NodeExchange() {
  living.erase(std::find(living.begin(), living.end(), this));
  release();
}

bool NodeExchange::takes(std::int64_t most) const { return one_host_ && most >= exchange_from; }

void NodeExchange::release() {
  if (window_ == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  window_ = MPI_WIN_NULL;
  capacity_ = 0;
  segments_.clear();
}

void NodeExchange::grow(std::int64_t bytes) {
  constexpr std::int64_t huge_page = std::int64_t(2) << 20;
  const std::int64_t wanted = std::max(bytes, 2 * capacity_);  // (fewer new windows, whose pages fault in)
  release();
  capacity_ = (wanted + huge_page - 1) / huge_page * huge_page;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each rank's segment in its own pages
  char* mine = nullptr;
  MPI_Win_allocate_shared(MPI_Aint(capacity_), 1, info, comm_, &mine, &window_);
  MPI_Info_free(&info);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  segments_.assign(std::size_t(ranks), nullptr);
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    MPI_Win_shared_query(window_, r, &size, &unit, &segments_[std::size_t(r)]);
  }
}

void NodeExchange::exchange(const void* sent, const std::vector<std::int64_t>& sends, void* received,
                            const std::vector<std::int64_t>& receives) {
  const std::vector<std::int64_t> send_at = starts(sends), recv_at = starts(receives);
  std::int64_t most = send_at.back();
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, comm_);
  if (most == 0) return;  // (no rank sends: no window yet, maybe)
  if (most > capacity_) grow(most);
  // Where this rank's part starts in each sender's segment.
  std::vector<std::int64_t> their_at(sends.size());
  MPI_Alltoall(send_at.data(), 1, MPI_INT64_T, their_at.data(), 1, MPI_INT64_T, comm_);
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (send_at.back() > 0)
    copy_parts({{segments_[std::size_t(rank)], static_cast<const char*>(sent), std::size_t(send_at.back())}});
  MPI_Win_sync(window_);
  MPI_Barrier(comm_);  // every part in place
  MPI_Win_sync(window_);
  std::vector<Part> parts;
  for (std::size_t r = 0; r < receives.size(); ++r)
    if (receives[r] > 0)
      parts.push_back({static_cast<char*>(received) + recv_at[r], segments_[r] + their_at[r], std::size_t(receives[r])});
  copy_parts(parts);
  MPI_Barrier(comm_);  // every part read before the next exchange writes the segments
}

void exchange(MPI_Comm comm, const void* sent, const std::vector<int>& send_counts, void* received,
              const std::vector<int>& recv_counts, std::size_t bytes, MPI_Datatype type) {
  const std::int64_t receives = std::accumulate(recv_counts.begin(), recv_counts.end(), std::int64_t(0));
  if (NodeExchange* node = newest_for(comm)) {
    const std::int64_t sends = std::accumulate(send_counts.begin(), send_counts.end(), std::int64_t(0));
    std::int64_t most = (sends + receives) * std::int64_t(bytes);
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, comm);
    if (most == 0) return;  // (no rank moves anything)
    if (node->takes(most)) {
      const auto in_bytes = [&](const std::vector<int>& counts) {
        std::vector<std::int64_t> out(counts.size());
        for (std::size_t r = 0; r < counts.size(); ++r) out[r] = std::int64_t(counts[r]) * std::int64_t(bytes);
        return out;
      };
      node->exchange(sent, in_bytes(send_counts), received, in_bytes(recv_counts));
      return;
    }
  }
  // (the receive's new pages faulted in by the host's threads: MPI would fault them one by one,
  // at a third of its rate into touched memory)
  solver::touch_pages(received, std::size_t(receives) * bytes);
  MPI_Alltoallv(sent, send_counts.data(), offsets_of(send_counts).data(), type, received, recv_counts.data(),
                offsets_of(recv_counts).data(), type, comm);
}

std::int64_t shared_exchange_from() { return exchange_from; }
void set_shared_exchange_from(std::int64_t bytes) { exchange_from = bytes; }

}  // namespace clcg::distributed
