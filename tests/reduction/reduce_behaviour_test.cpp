// Reductions on the device: offsets, determinism, ties and NaN, asynchronous use, the fused
// multi-dot, and clear errors for bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/reduction/reduce.hpp"
#include "support/device_fixture.hpp"
#include "support/reduction_reference.hpp"

namespace {

using clcg::reduction::ElementType;
using clcg::reduction::Op;
using clcg::reduction::Options;
using clcg::reduction::Reducer;
using clcg::test::test_env;
namespace test = clcg::test;

Options variant_options(std::string_view name, std::size_t wg = 0) {
  Options options;
  options.variant = name;
  options.work_group_size = wg;
  return options;
}

cl::Buffer upload_doubles(const std::vector<double>& values) {
  return cl::Buffer(test_env().context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size() * sizeof(double),
                    const_cast<double*>(values.data()));
}

TEST(ReduceOffsets, EveryVariantReducesASliceOfTheCallersBuffer) {
  test::DeviceData data(test_env(), ElementType::f64, 20000, 99);
  for (const auto& variant : clcg::reduction::variants()) {
    SCOPED_TRACE(std::string(variant.name));
    for (Op op : {Op::sum, Op::dot, Op::argmax}) {
      Reducer reducer(test_env(), op, ElementType::f64, variant_options(variant.name, 64));
      for (auto [x_offset, y_offset, n] : std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
               {1, 0, 1000}, {7, 3, 12345}, {19999, 5, 1}, {0, 10000, 10000}}) {
        SCOPED_TRACE("op " + std::string(clcg::reduction::op_name(op)) + " offsets " + std::to_string(x_offset) + "," +
                     std::to_string(y_offset) + " n " + std::to_string(n));
        const auto result = op == Op::dot ? reducer.run(data.x, x_offset, data.y, y_offset, n)
                                          : reducer.run(data.x, x_offset, n);
        test::expect_matches_reference(op, ElementType::f64, data, x_offset, y_offset, n, reducer.shape(n),
                                       reducer.variant(), result);
      }
    }
  }
}

TEST(ReduceDeterminism, DeterministicVariantsGiveTheSameBitsEveryRun) {
  for (ElementType type : {ElementType::f32, ElementType::f64}) {
    test::DeviceData data(test_env(), type, 1000003, 7);
    for (const auto& variant : clcg::reduction::variants()) {
      if (!variant.deterministic) continue;
      SCOPED_TRACE(std::string(variant.name) + " " + std::string(clcg::reduction::type_name(type)));
      Reducer first(test_env(), Op::dot, type, variant_options(variant.name));
      Reducer second(test_env(), Op::dot, type, variant_options(variant.name));
      const double a = first.run(data.x, 0, data.y, 0, 1000003).value;
      const double b = second.run(data.x, 0, data.y, 0, 1000003).value;
      const double c = first.run(data.x, 0, data.y, 0, 1000003).value;
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << a << " vs " << b;
      EXPECT_EQ(std::memcmp(&a, &c, sizeof a), 0) << a << " vs " << c;
    }
  }
}

TEST(ReduceArgOps, TiesGoToTheLowestIndexInEveryVariant) {
  // The extreme value appears at 300, 301 and 9000: different groups and work-items.
  std::vector<double> values(10000, 1.0);
  for (std::size_t i : {300, 301, 9000}) values[i] = -5.0;
  values[4000] = values[4001] = 8.0;
  const cl::Buffer x = upload_doubles(values);
  for (const auto& variant : clcg::reduction::variants()) {
    SCOPED_TRACE(std::string(variant.name));
    EXPECT_EQ(Reducer(test_env(), Op::argmin, ElementType::f64, variant_options(variant.name, 32)).run(x, 0, 10000).index,
              300u);
    EXPECT_EQ(Reducer(test_env(), Op::argmax, ElementType::f64, variant_options(variant.name, 32)).run(x, 0, 10000).index,
              4000u);
    // A constant array: every element ties, index 0 wins.
    EXPECT_EQ(Reducer(test_env(), Op::argmax, ElementType::f64, variant_options(variant.name, 32)).run(x, 5000, 3000).index,
              0u);
  }
}

TEST(ReduceArgOps, NaNPolicyIsNumpys) {
  std::vector<double> values(5000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<double>(i));
  values[3333] = std::numeric_limits<double>::quiet_NaN();
  values[4444] = std::numeric_limits<double>::quiet_NaN();
  const cl::Buffer x = upload_doubles(values);
  for (const auto& variant : clcg::reduction::variants()) {
    SCOPED_TRACE(std::string(variant.name));
    for (Op op : {Op::argmin, Op::argmax}) {
      const auto result = Reducer(test_env(), op, ElementType::f64, variant_options(variant.name, 64)).run(x, 0, 5000);
      EXPECT_EQ(result.index, 3333u);  // the first NaN
      EXPECT_TRUE(std::isnan(result.value));
    }
    for (Op op : {Op::min, Op::max, Op::sum})
      EXPECT_TRUE(std::isnan(Reducer(test_env(), op, ElementType::f64, variant_options(variant.name, 64)).run(x, 0, 5000).value));
    // Without the NaNs in range, min is a number again.
    EXPECT_FALSE(std::isnan(Reducer(test_env(), Op::min, ElementType::f64, variant_options(variant.name, 64)).run(x, 0, 3333).value));
  }
}

TEST(ReduceAsync, EnqueuedReductionsOverlapAndMatchBlockingOnes) {
  test::DeviceData data(test_env(), ElementType::f64, 300000, 3);
  Reducer sum(test_env(), Op::sum, ElementType::f64);
  Reducer dot(test_env(), Op::dot, ElementType::f64);
  const auto& queue = test_env().queue();
  auto pending_sum = sum.enqueue(queue, data.x, 0, nullptr, 0, 300000);
  auto pending_dot = dot.enqueue(queue, data.x, 0, &data.y, 0, 300000);
  const double async_dot = pending_dot.wait().value;
  const double async_sum = pending_sum.wait().value;
  EXPECT_EQ(async_sum, sum.run(data.x, 0, 300000).value);
  EXPECT_EQ(async_dot, dot.run(data.x, 0, data.y, 0, 300000).value);
}

TEST(ReduceAsync, DroppingAPendingResultWaitsForItsRead) {
  // The partials' host memory belongs to the PendingResult: dropping it unread must not let
  // the device write into freed memory (AddressSanitizer would see it; so would the heap).
  test::DeviceData data(test_env(), ElementType::f64, 200000, 5);
  Reducer dot(test_env(), Op::dot, ElementType::f64);
  for (int i = 0; i < 50; ++i) dot.enqueue(test_env().queue(), data.x, 0, &data.y, 0, 200000);
  clcg::reduction::PendingResult kept = dot.enqueue(test_env().queue(), data.x, 0, &data.y, 0, 200000);
  kept = dot.enqueue(test_env().queue(), data.x, 0, &data.y, 0, 200000);  // move-assign over a pending one
  EXPECT_EQ(kept.wait().value, dot.run(data.x, 0, data.y, 0, 200000).value);
}

TEST(MultiDot, EqualsSeparateDotsBitForBitWithTheSameShape) {
  for (ElementType type : {ElementType::f32, ElementType::f64}) {
    test::DeviceData a(test_env(), type, 100003, 11);
    test::DeviceData b(test_env(), type, 100003, 21);
    clcg::reduction::MultiDot multi(test_env(), type, {{0, 0}, {0, 1}, {2, 3}, {1, 1}});
    const std::vector<cl::Buffer> vectors{a.x, a.y, b.x, b.y};
    const auto dots = multi.run(vectors, 100003);
    // MultiDot lays its loop out as these single-dot variants do on each class of device.
    Options same_layout = variant_options(clcg::cl::contiguous_blocks(test_env().info()) ? "blocked" : "grid_stride");
    Reducer dot(test_env(), Op::dot, type, same_layout);
    EXPECT_EQ(dots[0], dot.run(a.x, 0, a.x, 0, 100003).value);
    EXPECT_EQ(dots[1], dot.run(a.x, 0, a.y, 0, 100003).value);
    EXPECT_EQ(dots[2], dot.run(b.x, 0, b.y, 0, 100003).value);
    EXPECT_EQ(dots[3], dot.run(a.y, 0, a.y, 0, 100003).value);
  }
}

TEST(ReduceErrors, BadArgumentsGiveClearExceptions) {
  const std::vector<double> values(100, 1.0);
  const cl::Buffer x = upload_doubles(values);
  Reducer sum(test_env(), Op::sum, ElementType::f64);
  try {
    sum.run(x, 50, 51);
    FAIL() << "read past the end";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("holds 100 double elements"), std::string::npos) << e.what();
  }
  // A float reducer on a buffer sized for doubles is fine; a double one on fewer bytes is not.
  EXPECT_THROW(sum.run(x, 0, 101), std::invalid_argument);
  EXPECT_THROW(Reducer(test_env(), Op::sum, ElementType::f64, variant_options("sequential", 3)), std::invalid_argument);
  EXPECT_THROW(Reducer(test_env(), Op::sum, ElementType::f64,
                       variant_options("grid_stride", 2 * test_env().info().max_work_group_size)),
               std::invalid_argument);
  EXPECT_THROW(Reducer(test_env(), Op::sum, ElementType::f64, variant_options("unrolled", 48)), std::invalid_argument);
  EXPECT_THROW(Reducer(test_env(), Op::sum, ElementType::f64, variant_options("turbo")), std::invalid_argument);
  Reducer argmin(test_env(), Op::argmin, ElementType::f64);
  EXPECT_THROW(argmin.run(x, 0, 0), std::invalid_argument);
  Reducer dot(test_env(), Op::dot, ElementType::f64);
  EXPECT_THROW(dot.enqueue(test_env().queue(), x, 0, nullptr, 0, 10), std::invalid_argument);
}

}  // namespace
