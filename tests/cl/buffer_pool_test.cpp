// The buffer pool (buffer_pool.hpp): within a Scope a buffer nothing else holds is taken again
// for the same size and flags, never one still held; nothing is pooled outside a Scope or
// across queues; closing the Scope keeps the buffers still in use and their contents.
#include <gtest/gtest.h>

#include <vector>

#include "clcg/cl/buffer_pool.hpp"
#include "clcg/cl/env.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::test::test_env;

TEST(BufferPool, OutsideAScopeNothingIsHeld) {
  cl::Buffer made = test_env().buffer(CL_MEM_READ_WRITE, 1000, "a test buffer");
  EXPECT_EQ(made.getInfo<CL_MEM_REFERENCE_COUNT>(), 1u) << "no pool holds it";
  EXPECT_EQ(made.getInfo<CL_MEM_SIZE>(), 1000u);
}

TEST(BufferPool, AScopeTakesBackWhatNothingElseHolds) {
  const clcg::cl::Env& env = test_env();
  const clcg::cl::BufferPool::Scope pooled(env);
  cl_mem dropped = nullptr;
  {
    cl::Buffer a = env.buffer(CL_MEM_READ_WRITE, 4096, "a test buffer");
    dropped = a();
  }
  cl::Buffer held = env.buffer(CL_MEM_READ_WRITE, 4096, "a test buffer");
  EXPECT_EQ(held(), dropped) << "the dropped buffer is taken again";
  cl::Buffer other = env.buffer(CL_MEM_READ_WRITE, 4096, "a test buffer");
  EXPECT_NE(other(), held()) << "never one that is still held";
  cl::Buffer copy = other;  // a second handle: still held after `other` goes
  other = cl::Buffer();
  EXPECT_NE(env.buffer(CL_MEM_READ_WRITE, 4096, "a test buffer")(), copy());
  const cl_mem free_now = held();  // the pool still holds it: no new buffer can have its handle
  held = cl::Buffer();
  EXPECT_NE(env.buffer(CL_MEM_READ_WRITE, 4095, "a test buffer")(), free_now) << "another size";
  EXPECT_NE(env.buffer(CL_MEM_READ_ONLY, 4096, "a test buffer")(), free_now) << "other flags";
  EXPECT_EQ(env.buffer(CL_MEM_READ_WRITE, 4096, "a test buffer")(), free_now) << "the first of its size made";
}

TEST(BufferPool, EachQueueHasItsOwn) {
  const clcg::cl::Env& env = test_env();
  const clcg::cl::Env other = env.with_queue(env.make_queue());
  const clcg::cl::BufferPool::Scope pooled(env), pooled_other(other);
  cl_mem dropped = env.buffer(CL_MEM_READ_WRITE, 2048, "a test buffer")();
  EXPECT_NE(other.buffer(CL_MEM_READ_WRITE, 2048, "a test buffer")(), dropped)
      << "work queued on the first queue could still use it";
  EXPECT_EQ(env.buffer(CL_MEM_READ_WRITE, 2048, "a test buffer")(), dropped);
}

TEST(BufferPool, ClosingTheScopeKeepsWhatIsInUse) {
  const clcg::cl::Env& env = test_env();
  std::vector<int> written(300);
  for (std::size_t i = 0; i < written.size(); ++i) written[i] = int(i * 7);
  cl::Buffer kept;
  {
    const clcg::cl::BufferPool::Scope pooled(env);
    kept = env.buffer(CL_MEM_READ_WRITE, written.size() * sizeof(int), "a test buffer");
    env.queue().enqueueWriteBuffer(kept, CL_TRUE, 0, written.size() * sizeof(int), written.data());
    EXPECT_EQ(kept.getInfo<CL_MEM_REFERENCE_COUNT>(), 2u) << "the pool's handle and this one";
  }
  EXPECT_EQ(kept.getInfo<CL_MEM_REFERENCE_COUNT>(), 1u) << "the pool let go";
  std::vector<int> read(written.size(), -1);
  env.queue().enqueueReadBuffer(kept, CL_TRUE, 0, read.size() * sizeof(int), read.data());
  EXPECT_EQ(read, written);
  const clcg::cl::BufferPool::Scope again(env);
  EXPECT_NE(env.buffer(CL_MEM_READ_WRITE, written.size() * sizeof(int), "a test buffer")(), kept());
}

}  // namespace
