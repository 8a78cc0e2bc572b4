// Every variant x operation x element type x work-group size x n against a long double host
// reference on random fixed-seed data with mixed signs and magnitudes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "clcg/reduction/reduce.hpp"
#include "support/device_fixture.hpp"
#include "support/reduction_reference.hpp"

namespace {

using clcg::reduction::ElementType;
using clcg::reduction::Op;
using clcg::test::test_env;
namespace test = clcg::test;

struct Case {
  std::string_view variant;
  Op op;
  ElementType type;
};

// Names the case in ctest's listing instead of gtest's raw bytes.
void PrintTo(const Case& c, std::ostream* out) {
  *out << c.variant << "/" << clcg::reduction::op_name(c.op) << "/" << clcg::reduction::type_name(c.type);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& variant : clcg::reduction::variants())
    for (Op op : clcg::reduction::all_ops())
      for (ElementType type : {ElementType::f32, ElementType::f64}) cases.push_back({variant.name, op, type});
  return cases;
}

class ReduceAllShapes : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceAllShapes, MatchesLongDoubleReferenceForEverySizeAndWorkGroup) {
  const Case c = GetParam();
  const auto& env = test_env();
  ASSERT_TRUE(c.type == ElementType::f32 || env.info().fp64) << "test device has no fp64: " << env.info().name;
  const std::size_t device_max = std::bit_floor(env.info().max_work_group_size);
  const std::size_t big = std::size_t{1} << 22;
  test::DeviceData data(env, c.type, big, 12345u + static_cast<unsigned>(c.op));

  std::vector<std::size_t> groups_sizes{1, 2, 32, 64, 128, 256, device_max};
  for (std::size_t wg : groups_sizes) {
    clcg::reduction::Options options;
    options.variant = c.variant;
    options.work_group_size = wg;
    clcg::reduction::Reducer reducer(env, c.op, c.type, options);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, wg - 1, wg, wg + 1,
                          std::size_t{1000003}, big}) {
      SCOPED_TRACE("wg=" + std::to_string(wg) + " n=" + std::to_string(n));
      if (n == 0 && clcg::reduction::is_arg_op(c.op)) {
        EXPECT_THROW(reducer.run(data.x, 0, n), std::invalid_argument);
        continue;
      }
      const auto result = c.op == Op::dot ? reducer.run(data.x, 0, data.y, 0, n) : reducer.run(data.x, 0, n);
      test::expect_matches_reference(c.op, c.type, data, 0, 0, n, reducer.shape(n), reducer.variant(), result);
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant) + "_" + std::string(clcg::reduction::op_name(info.param.op)) + "_" +
         std::string(clcg::reduction::type_name(info.param.type));
}

INSTANTIATE_TEST_SUITE_P(Reduce, ReduceAllShapes, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
