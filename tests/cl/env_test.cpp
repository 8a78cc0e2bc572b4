#include <gtest/gtest.h>

#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::test::test_env;

TEST(Env, DeviceFactsAreSane) {
  const clcg::cl::DeviceInfo& info = test_env().info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_FALSE(info.platform_name.empty());
  EXPECT_GE(info.max_work_group_size, 1u);
  EXPECT_GE(info.compute_units, 1u);
  EXPECT_GE(info.preferred_work_group_multiple, 1u);
  EXPECT_GT(info.local_memory_bytes, 0u);
  EXPECT_GE(info.global_memory_bytes, info.max_allocation_bytes);
  EXPECT_GT(info.max_allocation_bytes, 0u);
}

TEST(Env, WrapsTheCallersObjectsAndRunsAKernel) {
  // A caller with its own context and queue: clcg uses them as they are.
  const auto& base = test_env();
  cl::Context context(base.device());
  cl::CommandQueue queue(context, base.device());
  clcg::cl::Env env(context, base.device(), queue);
  EXPECT_EQ(env.context()(), context());
  EXPECT_EQ(env.queue()(), queue());

  const char* text = "__kernel void iota(__global int* x) { x[get_global_id(0)] = (int)get_global_id(0); }";
  cl::Program program = env.programs().get_from_text(context, base.device(), "iota.cl", text, "");
  cl::Kernel kernel(program, "iota");
  std::vector<int> host(37, -1);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, host.size() * sizeof(int));
  kernel.setArg(0, buffer);
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(host.size()));
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, host.size() * sizeof(int), host.data());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(host[i], i);
}

TEST(Env, WithQueueSharesTheProgramCache) {
  const auto& env = test_env();
  clcg::cl::Env other = env.with_queue(env.make_queue());
  EXPECT_NE(other.queue()(), env.queue()());
  EXPECT_EQ(&other.programs(), &env.programs());
  const std::size_t before = env.programs().builds();
  env.program("common.cl", "-DCLCG_ENV_TEST=1");
  other.program("common.cl", "-DCLCG_ENV_TEST=1");
  EXPECT_EQ(env.programs().builds(), before + 1);
}

TEST(Env, MemoryLimitFromTheEnvironmentCapsTheFacts) {
  ::setenv("CLCG_DEVICE_MEMORY_LIMIT", "1048576", 1);
  const clcg::cl::DeviceInfo info = clcg::cl::query_device_info(test_env().device());
  ::setenv("CLCG_DEVICE_MEMORY_LIMIT", "lots", 1);
  EXPECT_THROW(clcg::cl::query_device_info(test_env().device()), std::invalid_argument);
  ::unsetenv("CLCG_DEVICE_MEMORY_LIMIT");
  EXPECT_EQ(info.global_memory_bytes, 1048576u);
  EXPECT_LE(info.max_allocation_bytes, 1048576u);
}

}  // namespace
