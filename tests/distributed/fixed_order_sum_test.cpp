// clcg::distributed::fixed_order_sum: a function of the array alone (the same bits for the same
// array, whatever was summed before), as accurate as pairwise summation promises against a
// long double reference, and NaN / Inf carried through.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "clcg/solver/distributed/fixed_order_sum.hpp"

namespace {

using clcg::distributed::fixed_order_sum;

std::vector<double> random_terms(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng) * std::ldexp(1.0, int(rng() % 40) - 20);
  return v;
}

TEST(FixedOrderSum, SmallArraysAddLeftToRight) {
  EXPECT_EQ(fixed_order_sum({}), 0.0);
  const std::vector<double> one{-2.5};
  EXPECT_EQ(fixed_order_sum(one), -2.5);
  const std::vector<double> eight{1e16, 1.0, 1.0, -1e16, 3, 4, 5, 6};
  double left_to_right = 0;
  for (double v : eight) left_to_right += v;
  EXPECT_EQ(fixed_order_sum(eight), left_to_right);
}

TEST(FixedOrderSum, SameArraySameBitsAndNoOrderDependenceOnTheCaller) {
  for (std::size_t n : {9u, 31u, 255u, 4096u, 4097u}) {
    const auto v = random_terms(n, unsigned(n));
    const double first = fixed_order_sum(v);
    const auto copy = v;  // another buffer, the same values
    EXPECT_EQ(fixed_order_sum(copy), first) << n;
  }
}

TEST(FixedOrderSum, WithinPairwiseBoundsOfLongDouble) {
  for (std::size_t n : {1u, 7u, 100u, 4096u, 10007u}) {
    const auto v = random_terms(n, 7u + unsigned(n));
    long double exact = 0, magnitude = 0;
    for (double x : v) {
      exact += x;
      magnitude += std::fabs((long double)x);
    }
    // pairwise: |error| <= (8 + log2 n) eps sum |x| (blocks of 8 left to right, then the tree)
    const double bound = (8 + std::log2(double(n)) + 1) * std::numeric_limits<double>::epsilon() * double(magnitude);
    EXPECT_LE(std::fabs(double((long double)fixed_order_sum(v) - exact)), bound) << n;
  }
}

TEST(FixedOrderSum, NonFiniteTermsCarryThrough) {
  std::vector<double> v(100, 1.0);
  v[57] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(fixed_order_sum(v), std::numeric_limits<double>::infinity());
  v[3] = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(fixed_order_sum(v)));
  v[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(fixed_order_sum(v)));
}

}  // namespace
