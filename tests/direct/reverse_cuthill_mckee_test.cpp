// Reverse Cuthill-McKee (direct/reverse_cuthill_mckee.hpp): a permutation of every row, parts
// not connected to each other, and the profile it exists for: a shuffled path back to bandwidth
// 1, a shuffled thin grid back to a band as wide as two of its breadth-first levels. Then the
// sparse factor in RCM's order against Eigen's dense LLT, and where AMD's is taken instead.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/direct/reverse_cuthill_mckee.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "support/cg_problems.hpp"

namespace {

using clcg::solver::HostCsr;
using clcg::solver::HostMatrix;
using clcg::solver::reverse_cuthill_mckee;

// P A P^T with P taking row order[k] to k.
HostMatrix permuted(const HostMatrix& a, const std::vector<int>& order) {
  std::vector<int> position(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) position[std::size_t(order[k])] = int(k);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int r = 0; r < a.outerSize(); ++r)
    for (HostMatrix::InnerIterator it(a, r); it; ++it)
      t.emplace_back(position[std::size_t(it.row())], position[std::size_t(it.col())], it.value());
  HostMatrix p(a.rows(), a.cols());
  p.setFromTriplets(t.begin(), t.end());
  return p;
}

std::vector<int> shuffled_rows(int n, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

int bandwidth(const HostMatrix& a) {
  int widest = 0;
  for (int r = 0; r < a.outerSize(); ++r)
    for (HostMatrix::InnerIterator it(a, r); it; ++it) widest = std::max(widest, std::abs(int(it.row() - it.col())));
  return widest;
}

void expect_permutation(const std::vector<int>& order, int n) {
  ASSERT_EQ(order.size(), std::size_t(n));
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[std::size_t(k)], k);
}

TEST(ReverseCuthillMcKee, AShuffledPathComesBackAsAPath) {
  for (const int n : {1, 2, 97}) {
    const HostMatrix a = permuted(clcg::test::poisson(n, 1), shuffled_rows(n, 3));
    const std::vector<int> order = reverse_cuthill_mckee(clcg::solver::to_host_csr(a));
    expect_permutation(order, n);
    EXPECT_LE(bandwidth(permuted(a, order)), 1) << n << " rows";
  }
}

TEST(ReverseCuthillMcKee, AShuffledThinGridComesBackBanded) {
  // 61 x 7: the breadth-first levels from a corner are diagonals of at most 7 rows, and each
  // row's neighbours lie in the levels next to its own, so the band is at most 2 x 7 wide. The
  // shuffled matrix's band spans nearly all 427 rows.
  const HostMatrix a = permuted(clcg::test::poisson(61, 7), shuffled_rows(427, 8));
  ASSERT_GT(bandwidth(a), 300);
  const std::vector<int> order = reverse_cuthill_mckee(clcg::solver::to_host_csr(a));
  expect_permutation(order, 427);
  EXPECT_LE(bandwidth(permuted(a, order)), 14);
  EXPECT_EQ(order, reverse_cuthill_mckee(clcg::solver::to_host_csr(a)));  // the same every run
}

TEST(ReverseCuthillMcKee, PartsNotConnectedAndEmptyMatrices) {
  // Two grids side by side, then three rows with only a diagonal: every row once, and no
  // entry couples rows of different parts, so each part's rows stay together.
  std::vector<Eigen::Triplet<double, int>> t;
  const HostMatrix g1 = clcg::test::poisson(5, 4), g2 = clcg::test::poisson(3, 3);
  for (int r = 0; r < g1.outerSize(); ++r)
    for (HostMatrix::InnerIterator it(g1, r); it; ++it) t.emplace_back(int(it.row()), int(it.col()), it.value());
  for (int r = 0; r < g2.outerSize(); ++r)
    for (HostMatrix::InnerIterator it(g2, r); it; ++it) t.emplace_back(20 + int(it.row()), 20 + int(it.col()), it.value());
  for (int r = 29; r < 32; ++r) t.emplace_back(r, r, 1.0);
  HostMatrix a(32, 32);
  a.setFromTriplets(t.begin(), t.end());
  const HostMatrix shuffled = permuted(a, shuffled_rows(32, 5));
  const std::vector<int> order = reverse_cuthill_mckee(clcg::solver::to_host_csr(shuffled));
  expect_permutation(order, 32);
  const HostMatrix back = permuted(shuffled, order);
  // Each part is a contiguous run of rows: no entry farther from the diagonal than a part's size.
  EXPECT_LE(bandwidth(back), 19);
  EXPECT_TRUE(reverse_cuthill_mckee(HostCsr{}).empty());
  HostCsr rectangular = clcg::solver::to_host_csr(clcg::test::poisson(3, 3));
  rectangular.cols = 10;
  EXPECT_THROW(reverse_cuthill_mckee(rectangular), std::invalid_argument);
}

TEST(ReverseCuthillMcKee, APatternThatIsNotSymmetricOrdersEachRowOnce) {
  // Row 5's only coupling points at row 0, which row 0 does not return: the search from row 5
  // must not start from (or reach) row 0, ordered before it.
  std::vector<Eigen::Triplet<double, int>> t;
  for (int r = 0; r < 8; ++r) t.emplace_back(r, r, 4.0);
  t.emplace_back(5, 0, -1.0);
  t.emplace_back(6, 7, -1.0);
  t.emplace_back(7, 6, -1.0);
  HostMatrix a(8, 8);
  a.setFromTriplets(t.begin(), t.end());
  expect_permutation(reverse_cuthill_mckee(clcg::solver::to_host_csr(a)), 8);
}

TEST(SparseCholesky, TakesRcmWhereItsFactorIsCheapAndAmdElsewhere) {
  // A thin grid (61 x 3) factors in a band: RCM. A square grid's band fills in: AMD.
  for (const auto& [a, ordering] : {std::pair{clcg::test::poisson(61, 3), "RCM"},
                                    std::pair{clcg::test::poisson(23, 17), "AMD"}}) {
    const HostMatrix shuffled = permuted(a, shuffled_rows(int(a.rows()), 2));
    HostCsr host = clcg::solver::to_host_csr(shuffled);
    clcg::solver::SparseCholesky f(host);
    EXPECT_STREQ(f.estimate().ordering, ordering) << a.rows() << " rows";
    f.factorize(host);
    const Eigen::VectorXd b = clcg::test::random_vector(a.rows(), 4);
    const Eigen::VectorXd expected = Eigen::MatrixXd(shuffled).llt().solve(b);
    Eigen::VectorXd x(b.size());
    f.solve({b.data(), std::size_t(b.size())}, {x.data(), std::size_t(x.size())});
    EXPECT_LE((x - expected).norm(), 1e-12 * expected.norm()) << ordering;
    for (double& v : host.values) v *= 4;  // new values: the same order and symbolic factor
    f.factorize(host);
    f.solve({b.data(), std::size_t(b.size())}, {x.data(), std::size_t(x.size())});
    EXPECT_LE((x - expected / 4).norm(), 1e-12 * expected.norm()) << ordering;
  }
}

}  // namespace
