// Pinned buffers (pinned_buffer.hpp): a small one given back is taken again by the next request
// of its size class on the same queue, never one still held, and only once the work queued on
// it before it came back is done; large ones and other queues' are not pooled; a buffer that
// outlives its Env is freed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::cl::PinnedBuffer;
using clcg::test::test_env;

TEST(PinnedPool, ASmallBufferGivenBackIsTakenAgainNeverOneStillHeld) {
  const clcg::cl::Env& env = test_env();
  const unsigned char* dropped = PinnedBuffer(env, 100).data();
  PinnedBuffer again(env, 3000);  // (the same size class: 4 KB)
  EXPECT_EQ(again.data(), dropped);
  EXPECT_EQ(again.size(), 3000u) << "the bytes asked for";
  PinnedBuffer other(env, 3000);
  EXPECT_NE(other.data(), again.data()) << "the first is still held";
  const unsigned char* larger = PinnedBuffer(env, 5000).data();  // 8 KB: another class
  EXPECT_NE(larger, again.data());
  EXPECT_NE(larger, other.data());
  PinnedBuffer copy = other;  // a second handle: held while it lives
  other = PinnedBuffer();
  EXPECT_NE(PinnedBuffer(env, 10).data(), copy.data());
  const unsigned char* held = copy.data();
  copy = PinnedBuffer();
  EXPECT_EQ(PinnedBuffer(env, 4096).data(), held);
  EXPECT_EQ(PinnedBuffer(env, 0).size(), 0u);
  EXPECT_EQ(PinnedBuffer().data(), nullptr);
}

TEST(PinnedPool, TheWorkQueuedOnABufferIsDoneBeforeItIsTakenAgain) {
  const clcg::cl::Env& env = test_env();
  std::vector<std::int32_t> values(20000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::int32_t(i * 2654435761u);
  const std::size_t bytes = values.size() * sizeof(std::int32_t);
  ::cl::Buffer device(env.context(), CL_MEM_READ_WRITE, bytes);
  env.queue().enqueueWriteBuffer(device, CL_TRUE, 0, bytes, values.data());
  const unsigned char* where = nullptr;
  {
    PinnedBuffer landing(env, bytes);
    where = landing.data();
    env.queue().enqueueReadBuffer(device, CL_FALSE, 0, bytes, landing.data());  // given back in flight
  }
  PinnedBuffer again(env, bytes);
  ASSERT_EQ(again.data(), where);
  EXPECT_EQ(std::memcmp(again.data(), values.data(), bytes), 0) << "the read landed before it came back";
}

TEST(PinnedPool, LargeBuffersAndOtherQueuesAreNotPooled) {
  const clcg::cl::Env& env = test_env();
  const clcg::cl::Env other = env.with_queue(env.make_queue());
  const unsigned char* dropped = PinnedBuffer(env, 2000).data();
  PinnedBuffer elsewhere(other, 2000);
  EXPECT_NE(elsewhere.data(), dropped) << "work queued on the first queue could still use it";
  PinnedBuffer large(env, clcg::cl::small_pinned_bytes + 1);
  EXPECT_EQ(large.size(), clcg::cl::small_pinned_bytes + 1);
  std::memset(large.data(), 7, large.size());  // mapped whole
  EXPECT_EQ(PinnedBuffer(env, 2000).data(), dropped);
}

TEST(PinnedPool, ABufferOutlivingItsEnvIsFreed) {
  PinnedBuffer kept;
  {
    const clcg::cl::Env own = test_env().with_queue(test_env().make_queue());
    kept = PinnedBuffer(own, 64);
    std::memset(kept.data(), 1, 64);
  }
  EXPECT_EQ(kept.data()[63], 1) << "still mapped while held";
  kept = PinnedBuffer();  // (its pool is gone: freed, not given back)
}

}  // namespace
