// cl::StagedDownload: what reaches the host is the device data bit for bit (or each float
// widened to double), for sizes around the chunk size, 0 and 1 elements, offsets, many chunks
// (a chunk of a few bytes), chunks big enough to be drained on several threads, and reads that
// wait for the kernels enqueued before them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "clcg/cl/staged_download.hpp"
#include "support/device_fixture.hpp"
#include "support/random_bytes.hpp"

namespace {

using clcg::test::random_bytes;
using clcg::test::test_env;

cl::Buffer device_copy(const std::vector<unsigned char>& host) {
  cl::Buffer buffer(test_env().context(), CL_MEM_READ_WRITE, std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) test_env().queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, host.size(), host.data());
  return buffer;
}

TEST(StagedDownload, BytesArriveUnchangedForSizesAroundTheChunk) {
  const std::size_t chunk = 64;
  for (const std::size_t bytes : {0u, 1u, 7u, 8u, 63u, 64u, 65u, 128u, 129u, 1000u, 4099u}) {
    SCOPED_TRACE(bytes);
    clcg::cl::StagedDownload staging(test_env(), chunk);
    const std::vector<unsigned char> device = random_bytes(bytes, unsigned(bytes) + 7);
    const cl::Buffer buffer = device_copy(device);
    std::vector<unsigned char> host(bytes + 16, 0xAB);
    staging.read(buffer, host.data(), bytes);
    std::vector<unsigned char> expected = device;
    expected.resize(bytes + 16, 0xAB);  // nothing written past the end
    EXPECT_EQ(host, expected);
  }
}

TEST(StagedDownload, ReadsFromAnOffsetAndReusesItsStaging) {
  clcg::cl::StagedDownload staging(test_env(), 16);
  const std::vector<unsigned char> device = random_bytes(100, 1);
  const cl::Buffer buffer = device_copy(device);
  std::vector<unsigned char> first(37), second(50);
  staging.read(buffer, first.data(), first.size(), 3);
  staging.read(buffer, second.data(), second.size(), 45);
  EXPECT_EQ(first, std::vector<unsigned char>(device.begin() + 3, device.begin() + 40));
  EXPECT_EQ(second, std::vector<unsigned char>(device.begin() + 45, device.begin() + 95));
}

TEST(StagedDownload, ALargerReadAfterASmallOneGrowsTheStaging) {
  clcg::cl::StagedDownload staging(test_env(), 1 << 12);
  const std::vector<unsigned char> small = random_bytes(24, 3), large = random_bytes(3 * (1 << 12) + 5, 4);
  const cl::Buffer a = device_copy(small), b = device_copy(large);
  std::vector<unsigned char> small_back(small.size()), large_back(large.size());
  staging.read(a, small_back.data(), small_back.size());
  staging.read(b, large_back.data(), large_back.size());
  EXPECT_EQ(small_back, small);
  EXPECT_EQ(large_back, large);
}

TEST(StagedDownload, ChunksDrainedOnSeveralThreadsArriveUnchanged) {
  // 4 MB chunks: past the copy grain, so a chunk is copied out by several threads where the host has them.
  clcg::cl::StagedDownload staging(test_env(), std::size_t(4) << 20);
  const std::vector<unsigned char> device = random_bytes((std::size_t(9) << 20) + 3, 5);
  const cl::Buffer buffer = device_copy(device);
  std::vector<unsigned char> host(device.size());
  staging.read(buffer, host.data(), host.size());
  EXPECT_TRUE(host == device);
}

TEST(StagedDownload, WidenedFloatsArriveAsTheirDoubles) {
  std::mt19937 rng(6);
  std::normal_distribution<float> normal(0.0f, 1e3f);
  for (const std::size_t count : {0u, 1u, 15u, 16u, 17u, 1001u}) {
    SCOPED_TRACE(count);
    std::vector<float> device(count);
    for (float& v : device) v = normal(rng) / 3.0f;
    std::vector<unsigned char> raw(count * sizeof(float));
    if (count) std::memcpy(raw.data(), device.data(), raw.size());
    const cl::Buffer buffer = device_copy(raw);
    clcg::cl::StagedDownload staging(test_env(), 64);  // 16 floats a chunk
    std::vector<double> host(count + 3, -1.0);
    staging.read_widened(buffer, host.data(), count);
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(host[i], static_cast<double>(device[i])) << "element " << i;
    for (std::size_t i = count; i < host.size(); ++i) ASSERT_EQ(host[i], -1.0) << "element " << i;
  }
}

TEST(StagedDownload, WaitsForTheWorkEnqueuedBeforeIt) {
  // A fill enqueued (not waited for) before the read: the read sees its result.
  const std::size_t bytes = 3 * 64 + 8;
  const cl::Buffer buffer = device_copy(random_bytes(bytes, 8));
  const cl_uchar pattern = 0x5C;
  test_env().queue().enqueueFillBuffer(buffer, pattern, 0, bytes);
  clcg::cl::StagedDownload staging(test_env(), 64);
  std::vector<unsigned char> host(bytes);
  staging.read(buffer, host.data(), bytes);
  EXPECT_EQ(host, std::vector<unsigned char>(bytes, pattern));
}

}  // namespace
