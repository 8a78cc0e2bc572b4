#include "clcg/solver/distributed/device_stream.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <stdexcept>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"

namespace clcg::distributed {
namespace {

// A chunk of a span: its message's tag is the span's place among those of its peer (so that
// a peer's chunks of one span arrive in order, MPI's order for one source and tag).
struct Chunk {
  const DeviceSpan* span;
  std::size_t at, bytes;
  int tag;
};

std::deque<Chunk> chunks_of(const std::vector<DeviceSpan>& spans, std::size_t slot_bytes) {
  std::deque<Chunk> out;
  std::vector<int> seen;  // spans so far by peer
  for (const DeviceSpan& s : spans) {
    if (s.rank < 0) throw std::logic_error("stream_between_devices: a span names rank " + std::to_string(s.rank));
    if (seen.size() <= std::size_t(s.rank)) seen.resize(std::size_t(s.rank) + 1, 0);
    const int tag = seen[std::size_t(s.rank)]++;
    for (std::size_t first = 0; first < s.bytes; first += slot_bytes)
      out.push_back({&s, first, std::min(slot_bytes, s.bytes - first), tag});
  }
  return out;
}

bool done(const ::cl::Event& e) {
  const cl_int status = e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
  if (status < 0) throw ::cl::Error(status, "a copy between the device and the host's slots");
  return status == CL_COMPLETE;
}

// A pinned slot and what it is doing: a device read then a send, or a receive then a device write.
struct Slot {
  unsigned char* data = nullptr;
  enum class State { free, on_device, in_mpi } state = State::free;
  Chunk chunk{};
  ::cl::Event event;
  MPI_Request request = MPI_REQUEST_NULL;
};

}  // namespace

void stream_between_devices(MPI_Comm comm, const cl::Env& env, const cl::PinnedBuffer& staging,
                            const std::vector<DeviceSpan>& sends, const std::vector<DeviceSpan>& receives,
                            std::size_t slots) {
  slots = std::max<std::size_t>(2, slots / 2 * 2);
  const std::size_t slot_bytes = staging.size() / slots;
  if (slot_bytes == 0) throw std::logic_error("stream_between_devices: fewer pinned bytes than slots");
  std::deque<Chunk> to_send = chunks_of(sends, slot_bytes), to_receive = chunks_of(receives, slot_bytes);
  std::vector<Slot> out(slots / 2), in(slots / 2);
  for (std::size_t s = 0; s < slots / 2; ++s)
    out[s].data = staging.data() + s * slot_bytes, in[s].data = staging.data() + (slots / 2 + s) * slot_bytes;
  // A device error stops this rank's device copies, not its messages: the peers get every
  // message they wait for (a failed read's slot as it is) and the error is shared at the end.
  std::exception_ptr failed;
  const auto on_device = [&](auto&& copy) {
    if (failed) return;
    failed = capture([&] { cl::checked("streaming rows between the ranks' devices", copy); });
  };
  const auto device_done = [&](Slot& s) {
    if (failed) return true;
    bool out_done = false;
    on_device([&] { out_done = done(s.event); });
    return out_done || bool(failed);
  };
  const auto busy = [](const std::vector<Slot>& v) {
    return std::any_of(v.begin(), v.end(), [](const Slot& s) { return s.state != Slot::State::free; });
  };
  std::deque<Slot*> reading;  // the send slots on the device, in the order they were filled
  while (!to_send.empty() || !to_receive.empty() || busy(out) || busy(in)) {
    bool enqueued = false;
    for (Slot& s : in) {
      if (s.state == Slot::State::free && !to_receive.empty()) {
        s.chunk = to_receive.front(), to_receive.pop_front();
        MPI_Irecv(s.data, int(s.chunk.bytes), MPI_BYTE, s.chunk.span->rank, s.chunk.tag, comm, &s.request);
        s.state = Slot::State::in_mpi;
      } else if (s.state == Slot::State::in_mpi) {
        int arrived = 0;
        MPI_Test(&s.request, &arrived, MPI_STATUS_IGNORE);
        if (!arrived) continue;
        on_device([&] {
          env.queue().enqueueWriteBuffer(s.chunk.span->buffer, CL_FALSE, s.chunk.span->at + s.chunk.at, s.chunk.bytes,
                                         s.data, nullptr, &s.event);
        });
        s.state = Slot::State::on_device, enqueued = true;
      } else if (s.state == Slot::State::on_device && device_done(s)) {
        s.state = Slot::State::free;
      }
    }
    for (Slot& s : out) {
      if (s.state == Slot::State::free && !to_send.empty()) {
        s.chunk = to_send.front(), to_send.pop_front();
        on_device([&] {
          env.queue().enqueueReadBuffer(s.chunk.span->buffer, CL_FALSE, s.chunk.span->at + s.chunk.at, s.chunk.bytes,
                                        s.data, nullptr, &s.event);
        });
        s.state = Slot::State::on_device, enqueued = true;
        reading.push_back(&s);
      } else if (s.state == Slot::State::in_mpi) {
        int gone = 0;
        MPI_Test(&s.request, &gone, MPI_STATUS_IGNORE);
        if (gone) s.state = Slot::State::free;
      }
    }
    // Sent in the order read (a peer's chunks of a span share a tag: MPI keeps their order only
    // as they are posted).
    while (!reading.empty() && device_done(*reading.front())) {
      Slot& s = *reading.front();
      reading.pop_front();
      MPI_Isend(s.data, int(s.chunk.bytes), MPI_BYTE, s.chunk.span->rank, s.chunk.tag, comm, &s.request);
      s.state = Slot::State::in_mpi;
    }
    if (enqueued) on_device([&] { env.queue().flush(); });
  }
  throw_if_any_rank_failed(comm, failed);
}

}  // namespace clcg::distributed
