// stream_between_devices under mpirun (1 to 4 ranks, in the hierarchy test's executable): every
// rank's bytes land where their peers asked for them, in chunks of a few bytes (slots far
// smaller than the spans, spans of no bytes and of sizes that are no multiple of a slot), and a
// device error on one rank ends the stream on every rank instead of leaving them waiting.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/device_stream.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "support/device_fixture.hpp"

namespace {

namespace dist = clcg::distributed;

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int r = 1;
  MPI_Comm_size(comm, &r);
  return r;
}

// The bytes rank `from` sends rank `to`: a length that differs for every pair (0 for some), each
// byte naming the pair and its place.
std::size_t pair_bytes(int from, int to) { return from == to ? 0 : std::size_t((from * 7 + to * 13) % 5) * 11; }
std::uint8_t pair_byte(int from, int to, std::size_t k) { return std::uint8_t(from * 31 + to * 17 + k * 3 + 1); }

TEST(DeviceStream, EveryPeersBytesLandWhereAsked) {
  const clcg::cl::Env& env = clcg::test::test_env();
  const int rank = rank_of(MPI_COMM_WORLD), ranks = size_of(MPI_COMM_WORLD);
  for (const std::size_t staging_bytes : {std::size_t(32), std::size_t(1) << 16}) {  // 2-byte slots, then one chunk a span
    SCOPED_TRACE("staging " + std::to_string(staging_bytes));
    const clcg::cl::PinnedBuffer staging(env, staging_bytes);
    // This rank's outgoing bytes after 3 bytes of offset, grouped by peer; the incoming go to a
    // buffer 5 bytes in, grouped by peer, each in two spans (an odd first one, then the rest).
    std::vector<std::uint8_t> out(3), want(5);
    std::vector<dist::DeviceSpan> sends, receives;
    ::cl::Buffer from(env.context(), CL_MEM_READ_WRITE, 1024), to(env.context(), CL_MEM_READ_WRITE, 1024);
    for (int peer = 0; peer < ranks; ++peer) {
      const std::size_t n = pair_bytes(rank, peer), m = pair_bytes(peer, rank);
      for (std::size_t k = 0; k < n; ++k) out.push_back(pair_byte(rank, peer, k));
      const std::size_t first = m / 3;
      if (n > 0) {
        sends.push_back({peer, from, out.size() - n, n / 3});
        sends.push_back({peer, from, out.size() - n + n / 3, n - n / 3});
      }
      if (m > 0) {
        receives.push_back({peer, to, want.size(), first});
        receives.push_back({peer, to, want.size() + first, m - first});
      }
      for (std::size_t k = 0; k < m; ++k) want.push_back(pair_byte(peer, rank, k));
    }
    ASSERT_LE(want.size(), 1024U);
    env.queue().enqueueWriteBuffer(from, CL_TRUE, 0, out.size(), out.data());
    const std::vector<std::uint8_t> untouched(1024, 0xEE);
    env.queue().enqueueWriteBuffer(to, CL_TRUE, 0, untouched.size(), untouched.data());
    dist::stream_between_devices(MPI_COMM_WORLD, env, staging, sends, receives);
    env.queue().finish();
    std::vector<std::uint8_t> got(1024);
    env.queue().enqueueReadBuffer(to, CL_TRUE, 0, got.size(), got.data());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::uint8_t expected = k >= 5 && k < want.size() ? want[k] : 0xEE;  // nothing written outside
      ASSERT_EQ(int(got[k]), int(expected)) << "byte " << k << " on rank " << rank;
    }
  }
}

TEST(DeviceStream, ADeviceErrorOnOneRankEndsEveryRanksStream) {
  const clcg::cl::Env& env = clcg::test::test_env();
  const int rank = rank_of(MPI_COMM_WORLD), ranks = size_of(MPI_COMM_WORLD);
  if (ranks < 2) GTEST_SKIP() << "a stream between ranks needs two of them (this run has one)";
  const clcg::cl::PinnedBuffer staging(env, 64);
  ::cl::Buffer from(env.context(), CL_MEM_READ_WRITE, 256), to(env.context(), CL_MEM_READ_WRITE, 256);
  // Rank 1 sends 40 bytes to rank 0, the last 8 of them read from past its buffer's end: its
  // device refuses that read; rank 0 still gets every message and both leave with an error.
  std::vector<dist::DeviceSpan> sends, receives;
  if (rank == 1) sends = {{0, from, 0, 32}, {0, from, 252, 8}};
  if (rank == 0) receives = {{1, to, 0, 32}, {1, to, 32, 8}};
  bool mine = false, other = false;
  try {
    dist::stream_between_devices(MPI_COMM_WORLD, env, staging, sends, receives);
  } catch (const dist::AnotherRankFailed&) {
    other = true;
  } catch (const std::exception& e) {
    mine = true;
    EXPECT_NE(std::string(e.what()).find("streaming rows"), std::string::npos) << e.what();
  }
  EXPECT_EQ(mine, rank == 1) << "rank " << rank;
  EXPECT_EQ(other, rank != 1) << "rank " << rank;
}

}  // namespace
