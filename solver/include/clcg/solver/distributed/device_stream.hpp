#pragma once
// Bytes of one rank's device buffers into another rank's, through pinned host slots in chunks:
// a chunk's read from the device, its MPI message and its write on the other device overlap
// with the other chunks' (the distributed set-up's fetched rows: at 1024^3 on four GPUs over a
// GB a rank, which read whole, then sent, then written, took each step's time in turn and
// three host copies more).
//
//   std::vector<DeviceSpan> out = {{1, answer_values, 0, bytes_to_1}};
//   std::vector<DeviceSpan> in = {{1, b_values, mine_bytes, bytes_from_1}};
//   stream_between_devices(comm, env, staging, out, in);   // rank 1 names the matching spans
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"

namespace clcg::distributed {

// `bytes` of `buffer` from byte `at`, sent to or received from `rank`. A rank's spans to or from
// one peer go in the order listed, and match the peer's in number, order and bytes.
struct DeviceSpan {
  int rank = 0;
  ::cl::Buffer buffer;
  std::size_t at = 0, bytes = 0;
};

// Collective over the ranks the spans name (each sends what its peers receive). `staging`: the
// pinned slots, split into `slots` (half for sends, half for receives; each chunk at most a
// slot), of one size on every rank (both sides of a span cut it into the same chunks). A device
// error on a rank is thrown on every rank (the others' AnotherRankFailed) after the messages are
// done, so none waits for a message that does not come.
void stream_between_devices(MPI_Comm comm, const cl::Env& env, const cl::PinnedBuffer& staging,
                            const std::vector<DeviceSpan>& sends, const std::vector<DeviceSpan>& receives,
                            std::size_t slots = 16);

}  // namespace clcg::distributed
