// clcg::distributed::ExactSum: the same bits whatever the order and grouping of the terms,
// checked against sums known exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "clcg/solver/distributed/exact_sum.hpp"

namespace {

using clcg::distributed::ExactSum;

double sum_of(const std::vector<double>& terms) {
  ExactSum sum;
  for (double t : terms) sum.add(t);
  return sum.value();
}

TEST(ExactSum, IsExactWhereRoundingWouldLoseEverything) {
  EXPECT_EQ(sum_of({1e300, 1.0, -1e300}), 1.0);
  EXPECT_EQ(sum_of({1.0, 1e-300, -1.0}), 1e-300);
  EXPECT_EQ(sum_of({std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::denorm_min()}),
            2 * std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(sum_of({std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 3.5}), 3.5);
  EXPECT_EQ(sum_of({}), 0.0);
  EXPECT_EQ(sum_of({-2.5, -0.25}), -2.75);
}

TEST(ExactSum, MatchesLongDoubleOnSmallIntegersAndDyadics) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> value(-1000000, 1000000);
  std::vector<double> terms;
  long double reference = 0;  // exact: integers times 2^-10, far inside 64 mantissa bits
  for (int i = 0; i < 10007; ++i) {
    terms.push_back(std::ldexp(double(value(rng)), -10));
    reference += terms.back();
  }
  EXPECT_EQ(sum_of(terms), double(reference));
}

TEST(ExactSum, SameBitsForAnyOrderAndGrouping) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::vector<double> terms(5001);
  for (double& t : terms) t = normal(rng) * std::pow(10.0, double(int(rng() % 40) - 20));
  const double expected = sum_of(terms);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(terms.begin(), terms.end(), rng);
    EXPECT_EQ(sum_of(terms), expected);
    // split into "ranks" at arbitrary points, summed separately, then merged
    ExactSum a, b, c;
    const std::size_t cut1 = rng() % terms.size(), cut2 = cut1 + rng() % (terms.size() - cut1);
    for (std::size_t i = 0; i < terms.size(); ++i) (i < cut1 ? a : i < cut2 ? b : c).add(terms[i]);
    c.merge(a);
    c.merge(b);
    EXPECT_EQ(c.value(), expected);
  }
  // and close to the true sum: the long double sum of sorted-by-magnitude terms
  std::sort(terms.begin(), terms.end(), [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  long double careful = 0;
  for (double t : terms) careful += t;
  EXPECT_NEAR(expected, double(careful), 1e-12 * std::fabs(double(careful)) + 1e-30);
}

TEST(ExactSum, NonFiniteTermsGiveNaNOrInf) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(sum_of({1.0, nan})));
  EXPECT_EQ(sum_of({1.0, inf}), inf);
  EXPECT_EQ(sum_of({-inf, 3.0}), -inf);
  EXPECT_TRUE(std::isnan(sum_of({inf, -inf})));
}

}  // namespace
