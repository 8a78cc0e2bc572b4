// The host half of every reduction: finishing partials, the launch-shape rule, the registry.
#include <gtest/gtest.h>

#include "clcg/cl/launch_policy.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "clcg/reduction/reduce.hpp"

namespace {

using clcg::reduction::finish_partials;
using clcg::reduction::Op;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

TEST(FinishPartials, CompensatedSumRecoversWhatPlainSummationLoses) {
  // Plain left-to-right summation gives 0 here; Neumaier keeps the 2.
  const std::vector<double> values{1e16, 1.0, -1e16, 1.0};
  EXPECT_EQ(finish_partials(Op::sum, values, {}).value, 2.0);
}

TEST(FinishPartials, InfinityAndNaNPassThroughSums) {
  EXPECT_EQ(finish_partials(Op::sum, std::vector<double>{1.0, inf, 2.0}, {}).value, inf);
  EXPECT_TRUE(std::isnan(finish_partials(Op::sum, std::vector<double>{inf, -inf}, {}).value));
  EXPECT_TRUE(std::isnan(finish_partials(Op::dot, std::vector<double>{1.0, nan}, {}).value));
}

TEST(FinishPartials, EmptyGivesTheIdentity) {
  EXPECT_EQ(finish_partials(Op::sum, {}, {}).value, 0.0);
  EXPECT_EQ(finish_partials(Op::min, {}, {}).value, inf);
  EXPECT_EQ(finish_partials(Op::max, {}, {}).value, -inf);
}

TEST(FinishPartials, MinMaxPropagateNaN) {
  EXPECT_TRUE(std::isnan(finish_partials(Op::min, std::vector<double>{3.0, nan, -1.0}, {}).value));
  EXPECT_TRUE(std::isnan(finish_partials(Op::max, std::vector<double>{nan, 3.0}, {}).value));
  EXPECT_EQ(finish_partials(Op::min, std::vector<double>{3.0, -1.0, 2.0}, {}).value, -1.0);
}

TEST(FinishPartials, ArgOpsBreakTiesTowardTheLowerIndexAndPreferNaN) {
  const std::vector<std::uint64_t> indices{40, 7, 12, none};
  auto argmin = finish_partials(Op::argmin, std::vector<double>{1.0, 1.0, 2.0, inf}, indices);
  EXPECT_EQ(argmin.index, 7u);
  auto argmax = finish_partials(Op::argmax, std::vector<double>{5.0, 1.0, 5.0, -inf}, indices);
  EXPECT_EQ(argmax.index, 12u);
  auto with_nan = finish_partials(Op::argmin, std::vector<double>{-9.0, nan, nan, 0.0}, indices);
  EXPECT_EQ(with_nan.index, 7u);
  EXPECT_TRUE(std::isnan(with_nan.value));
}

// Runs of raw partials as a read-back leaves them: each run finished as finish_partials finishes
// it alone, float partials widened exactly (the widening buffer reused, not grown per call).
TEST(FinishPartialRuns, FinishesEachRunAsFinishPartialsDoes) {
  const std::vector<double> runs{1e16, 1.0, -1e16, 1.0, 0.5, -2.25, 3.0, 7.0, 1.0};  // three runs of three
  std::vector<double> widened, results(3);
  clcg::reduction::finish_partial_runs(Op::sum, reinterpret_cast<const unsigned char*>(runs.data()),
                                       clcg::reduction::ElementType::f64, 3, results, widened);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_EQ(results[k], finish_partials(Op::sum, {runs.data() + 3 * k, 3}, {}).value) << "run " << k;
  EXPECT_EQ(results[0], 1.0);  // compensated: 1e16 + 1 - 1e16 kept the 1
  const std::vector<float> floats{1.5f, 2.25f, -0.125f, 3.0f, 1e-8f, 4.0f};  // two runs of three
  std::vector<double> two(2);
  clcg::reduction::finish_partial_runs(Op::max, reinterpret_cast<const unsigned char*>(floats.data()),
                                       clcg::reduction::ElementType::f32, 3, two, widened);
  EXPECT_EQ(two[0], 2.25);
  EXPECT_EQ(two[1], 4.0);
  EXPECT_EQ(widened.size(), floats.size());
  clcg::reduction::finish_partial_runs(Op::sum, nullptr, clcg::reduction::ElementType::f32, 0, {}, widened);
  EXPECT_TRUE(widened.empty()) << "no runs: nothing widened";
}

TEST(LaunchShape, FollowsTheDocumentedRule) {
  clcg::cl::DeviceInfo device;
  device.name = "test device";
  device.max_work_group_size = 1024;
  device.compute_units = 132;
  const auto& grid = clcg::reduction::find_variant("grid_stride");
  const auto& per_item = clcg::reduction::find_variant("sequential");
  clcg::reduction::Options options;
  auto shape = clcg::reduction::choose_launch_shape(device, grid, 100'000'000, options, 1024);
  EXPECT_EQ(shape.work_group_size, 256u);
  EXPECT_EQ(shape.groups, 4u * 132u);  // fills the device, few partials
  // Small n: one group per compute unit while each work-item still gets 64 elements...
  EXPECT_EQ(clcg::reduction::choose_launch_shape(device, grid, 1'000'000, options, 1024).groups, 132u);
  // ... then ceil(n / (64 wg)) groups, up to the cap.
  EXPECT_EQ(clcg::reduction::choose_launch_shape(device, grid, 5'000'000, options, 1024).groups, 306u);
  shape = clcg::reduction::choose_launch_shape(device, grid, 1000, options, 1024);
  EXPECT_EQ(shape.groups, 4u);  // never more groups than elements need
  shape = clcg::reduction::choose_launch_shape(device, per_item, 1000, options, 1024);
  EXPECT_EQ(shape.groups, 4u);
  shape = clcg::reduction::choose_launch_shape(device, grid, 0, options, 1024);
  EXPECT_EQ(shape.groups, 0u);
  shape = clcg::reduction::choose_launch_shape(device, grid, 10'000, options, 128);  // kernel limit
  EXPECT_EQ(shape.work_group_size, 128u);
  options.groups = 5;
  EXPECT_EQ(clcg::reduction::choose_launch_shape(device, grid, 1'000'000, options, 1024).groups, 5u);
}

TEST(LaunchShape, RejectsSizesOverTheLimitOrNotPowersOfTwo) {
  clcg::cl::DeviceInfo device;
  device.max_work_group_size = 1024;
  clcg::reduction::Options options;
  options.work_group_size = 2048;
  EXPECT_THROW(clcg::reduction::choose_launch_shape(device, clcg::reduction::find_variant("grid_stride"), 10, options, 1024),
               std::invalid_argument);
  options.work_group_size = 96;
  try {
    clcg::reduction::choose_launch_shape(device, clcg::reduction::find_variant("sequential"), 10, options, 1024);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a power of two"), std::string::npos) << e.what();
  }
  // The serial variant's loop does not need a power of two.
  EXPECT_EQ(clcg::reduction::choose_launch_shape(device, clcg::reduction::find_variant("serial"), 1000, options, 1024)
                .groups,
            11u);
}

TEST(LaunchShape, BlockedTakesOneWorkItemPerGroupAndAFewLongBlocksPerCore) {
  clcg::cl::DeviceInfo cpu;
  cpu.type = CL_DEVICE_TYPE_CPU;
  cpu.max_work_group_size = 4096;
  cpu.compute_units = 2;
  const auto& blocked = clcg::reduction::find_variant("blocked");
  const clcg::reduction::Options options;
  auto shape = clcg::reduction::choose_launch_shape(cpu, blocked, 1'000'000, options, 4096);
  EXPECT_EQ(shape.work_group_size, 1u);
  EXPECT_EQ(shape.groups, clcg::cl::cpu_blocks_per_unit * 2);
  shape = clcg::reduction::choose_launch_shape(cpu, blocked, 1000, options, 4096);  // shorter than one block
  EXPECT_EQ(shape.groups, 1u);
  shape = clcg::reduction::choose_launch_shape(cpu, blocked, 3 * clcg::cl::cpu_min_block + 5, options, 4096);
  EXPECT_EQ(shape.groups, std::min<std::size_t>(3, clcg::cl::cpu_blocks_per_unit * 2));
  EXPECT_EQ(clcg::reduction::choose_launch_shape(cpu, blocked, 0, options, 4096).groups, 0u);
}

TEST(StreamingShape, GridStrideOnAGpuAndContiguousBlocksOnACpu) {
  clcg::cl::DeviceInfo gpu, cpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.compute_units = 132;
  cpu.type = CL_DEVICE_TYPE_CPU;
  cpu.compute_units = 16;
  EXPECT_FALSE(clcg::cl::contiguous_blocks(gpu));
  EXPECT_TRUE(clcg::cl::contiguous_blocks(cpu));
  EXPECT_EQ(clcg::cl::device_class_options(gpu), "");
  EXPECT_EQ(clcg::cl::device_class_options(cpu), "-D CLCG_CONTIGUOUS");
  auto shape = clcg::cl::streaming_shape(gpu, 10'000'000, 256, 64, 1024);
  EXPECT_EQ(shape.work_group, 256u);
  EXPECT_EQ(shape.groups, 64u * 132);  // capped per compute unit
  shape = clcg::cl::streaming_shape(gpu, 1000, 256, 64, 128);  // the kernel's limit
  EXPECT_EQ(shape.work_group, 128u);
  EXPECT_EQ(shape.groups, 8u);  // no more groups than items need
  shape = clcg::cl::streaming_shape(cpu, 10'000'000, 256, 64, 1024);
  EXPECT_EQ(shape.work_group, 1u);
  EXPECT_EQ(shape.groups, clcg::cl::cpu_blocks_per_unit * 16);
  EXPECT_EQ(clcg::cl::streaming_shape(cpu, 100, 256, 64, 1024).groups, 1u);
  EXPECT_EQ(clcg::cl::streaming_shape(cpu, 0, 256, 64, 1024).groups, 0u);
}

TEST(Registry, HasTheSixContractNamesPlusBlockedAndFlagsAtomicNondeterministic) {
  std::set<std::string_view> names;
  for (const auto& v : clcg::reduction::variants()) names.insert(v.name);
  EXPECT_EQ(names, (std::set<std::string_view>{"serial", "interleaved", "sequential", "grid_stride", "unrolled", "atomic",
                                               "blocked"}));
  EXPECT_FALSE(clcg::reduction::find_variant("atomic").deterministic);
  clcg::cl::DeviceInfo gpu, cpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  cpu.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(clcg::reduction::default_variant(gpu).name, "unrolled");
  EXPECT_EQ(clcg::reduction::default_variant(cpu).name, "blocked");
  EXPECT_TRUE(clcg::reduction::default_variant(gpu).deterministic);
  EXPECT_TRUE(clcg::reduction::default_variant(cpu).deterministic);
  EXPECT_THROW(clcg::reduction::find_variant("fastest"), std::invalid_argument);
  EXPECT_EQ(clcg::reduction::parse_op("argmax"), Op::argmax);
  EXPECT_THROW(clcg::reduction::parse_op("mean"), std::invalid_argument);
}

}  // namespace
