// cl::StagedUpload: what reaches the device is the host data bit for bit (or each double
// rounded to float), for sizes around the chunk size, 0 and 1 elements, offsets, many chunks
// (a chunk of a few bytes) and chunks big enough to be filled on several threads; staged (no
// direct writes) and written straight from the source below direct_bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "clcg/cl/staged_download.hpp"
#include "clcg/cl/staged_upload.hpp"
#include "support/device_fixture.hpp"
#include "support/random_bytes.hpp"

namespace {

using clcg::test::random_bytes;
using clcg::test::test_env;

// A device buffer of `bytes` bytes filled with 0xAB, so untouched bytes are visible.
cl::Buffer poisoned_buffer(std::size_t bytes) {
  const std::vector<unsigned char> poison(std::max<std::size_t>(bytes, 1), 0xAB);
  cl::Buffer buffer(test_env().context(), CL_MEM_READ_WRITE, poison.size());
  test_env().queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, poison.size(), poison.data());
  return buffer;
}

std::vector<unsigned char> read_back(const cl::Buffer& buffer, std::size_t bytes) {
  std::vector<unsigned char> out(bytes);
  if (bytes) test_env().queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, out.data());
  return out;
}

TEST(StagedUpload, ChunkSizeIsAMultipleOfEightAndAtLeastEight) {
  // (one rule for both directions: staging_chunk_bytes)
  EXPECT_EQ(clcg::cl::StagedUpload(test_env(), 0).chunk_bytes(), 8u);
  EXPECT_EQ(clcg::cl::StagedUpload(test_env(), 13).chunk_bytes(), 8u);
  EXPECT_EQ(clcg::cl::StagedUpload(test_env(), 64).chunk_bytes(), 64u);
  EXPECT_EQ(clcg::cl::StagedUpload(test_env()).chunk_bytes(), clcg::cl::default_staging_chunk_bytes);
  EXPECT_EQ(clcg::cl::StagedDownload(test_env(), 13).chunk_bytes(), 8u);
  EXPECT_EQ(clcg::cl::StagedDownload(test_env(), 64).chunk_bytes(), 64u);
}

TEST(StagedUpload, BytesArriveUnchangedForSizesAroundTheChunk) {
  const std::size_t chunk = 64;
  for (const std::size_t bytes : {0u, 1u, 7u, 8u, 63u, 64u, 65u, 128u, 129u, 1000u, 4099u}) {
    SCOPED_TRACE(bytes);
    clcg::cl::StagedUpload staging(test_env(), chunk, 0);
    const std::vector<unsigned char> host = random_bytes(bytes, unsigned(bytes));
    const cl::Buffer buffer = poisoned_buffer(bytes + 16);
    staging.write(buffer, host.data(), bytes);
    staging.finish();
    std::vector<unsigned char> expected = host;
    expected.resize(bytes + 16, 0xAB);  // nothing written past the end
    EXPECT_EQ(read_back(buffer, bytes + 16), expected);
  }
}

TEST(StagedUpload, WritesAtAnOffsetAndTheSourceMayGoAtOnce) {
  clcg::cl::StagedUpload staging(test_env(), 16, 0);
  const cl::Buffer buffer = poisoned_buffer(100);
  const std::vector<unsigned char> first = random_bytes(37, 1), second = random_bytes(50, 2);
  {
    std::vector<unsigned char> temporary = first;  // freed before finish(): staged already
    staging.write(buffer, temporary.data(), temporary.size(), 3);
  }
  staging.write(buffer, second.data(), second.size(), 45);
  staging.finish();
  const std::vector<unsigned char> device = read_back(buffer, 100);
  for (std::size_t i = 0; i < 100; ++i) {
    const unsigned char expected = i >= 3 && i < 40 ? first[i - 3] : i >= 45 && i < 95 ? second[i - 45] : 0xAB;
    ASSERT_EQ(device[i], expected) << "byte " << i;
  }
}

TEST(StagedUpload, ALargerWriteAfterASmallOneGrowsTheStaging) {
  clcg::cl::StagedUpload staging(test_env(), 1 << 12, 0);
  const std::vector<unsigned char> small = random_bytes(24, 3), large = random_bytes(3 * (1 << 12) + 5, 4);
  const cl::Buffer a = poisoned_buffer(small.size()), b = poisoned_buffer(large.size());
  staging.write(a, small.data(), small.size());
  staging.write(b, large.data(), large.size());
  staging.finish();
  EXPECT_EQ(read_back(a, small.size()), small);
  EXPECT_EQ(read_back(b, large.size()), large);
}

TEST(StagedUpload, ChunksFilledOnSeveralThreadsArriveUnchanged) {
  // 4 MB chunks: past the copy grain, so a chunk is filled by several threads where the host has them.
  clcg::cl::StagedUpload staging(test_env(), std::size_t(4) << 20, 0);
  const std::vector<unsigned char> host = random_bytes((std::size_t(9) << 20) + 3, 5);
  const cl::Buffer buffer = poisoned_buffer(host.size());
  staging.write(buffer, host.data(), host.size());
  staging.finish();
  EXPECT_TRUE(read_back(buffer, host.size()) == host);
}

TEST(StagedUpload, NarrowedDoublesArriveAsTheirNearestFloats) {
  std::mt19937 rng(6);
  std::normal_distribution<double> normal(0.0, 1e3);
  for (const std::size_t count : {0u, 1u, 15u, 16u, 17u, 1001u}) {
    SCOPED_TRACE(count);
    std::vector<double> host(count);
    for (double& v : host) v = normal(rng) / 3.0;  // not exactly representable in float
    clcg::cl::StagedUpload staging(test_env(), 64, 0);  // 16 floats a chunk
    const cl::Buffer buffer = poisoned_buffer((count + 4) * sizeof(float));
    staging.write_narrowed(buffer, host.data(), count);
    staging.finish();
    const std::vector<unsigned char> raw = read_back(buffer, (count + 4) * sizeof(float));
    for (std::size_t i = 0; i < count; ++i) {
      float device = 0;
      std::memcpy(&device, raw.data() + i * sizeof(float), sizeof(float));
      ASSERT_EQ(device, static_cast<float>(host[i])) << "element " << i;
    }
    for (std::size_t i = count * sizeof(float); i < raw.size(); ++i) ASSERT_EQ(raw[i], 0xAB) << "byte " << i;
  }
}

TEST(StagedUpload, WritesBelowTheDirectSizeGoStraightUntilPinnedMemoryIsHeld) {
  // 100 bytes direct: the first two writes go straight (bytes, then doubles narrowed at an
  // offset of 0), the 300-byte one is staged in 64-byte chunks, and the small one after it too.
  clcg::cl::StagedUpload staging(test_env(), 64, 100);
  const std::vector<unsigned char> small = random_bytes(99, 7), large = random_bytes(300, 8), after = random_bytes(10, 9);
  const std::vector<double> values = {1.0 / 3, -2.0 / 7, 1e-40, 3e38};
  const cl::Buffer a = poisoned_buffer(120), b = poisoned_buffer(300), c = poisoned_buffer(10), d = poisoned_buffer(20);
  staging.write(a, small.data(), small.size(), 5);
  staging.write_narrowed(d, values.data(), values.size());
  staging.write(b, large.data(), large.size());
  staging.write(c, after.data(), after.size());
  staging.finish();
  std::vector<unsigned char> expected(120, 0xAB);
  std::copy(small.begin(), small.end(), expected.begin() + 5);
  EXPECT_EQ(read_back(a, 120), expected);
  EXPECT_EQ(read_back(b, 300), large);
  EXPECT_EQ(read_back(c, 10), after);
  const std::vector<unsigned char> raw = read_back(d, 20);
  for (std::size_t i = 0; i < values.size(); ++i) {
    float device = 0;
    std::memcpy(&device, raw.data() + i * sizeof(float), sizeof(float));
    EXPECT_EQ(device, static_cast<float>(values[i])) << "element " << i;
  }
  for (std::size_t i = 16; i < 20; ++i) EXPECT_EQ(raw[i], 0xAB) << "byte " << i;
}

}  // namespace
