// device_symmetry gives io's check_symmetry report (mismatch, its first row-major position,
// the largest entry, the verdict) on symmetric matrices, on values that differ across the
// diagonal, on entries with no mirror, with ties, and on an empty matrix.
#include <gtest/gtest.h>

#include <vector>

#include "clcg/solver/sparse/symmetry.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::HostMatrix;
using clcg::test::test_env;

void expect_same_report(const HostMatrix& a) {
  const clcg::solver::SymmetryReport host = clcg::solver::check_symmetry(a);
  const clcg::solver::CsrView view = clcg::solver::csr_view(a);
  const clcg::solver::SymmetryReport device =
      clcg::solver::device_symmetry(test_env(), DeviceCsrMatrix(test_env(), view, ElementType::f64), view);
  EXPECT_EQ(device.max_abs_mismatch, host.max_abs_mismatch);
  EXPECT_EQ(device.max_abs_entry, host.max_abs_entry);
  EXPECT_EQ(device.row, host.row);
  EXPECT_EQ(device.col, host.col);
  EXPECT_EQ(device.symmetric, host.symmetric);
}

HostMatrix from_triplets(int n, const std::vector<Eigen::Triplet<double, int>>& entries) {
  HostMatrix a(n, n);
  a.setFromTriplets(entries.begin(), entries.end());
  a.makeCompressed();
  return a;
}

TEST(DeviceSymmetry, MatchesTheHostCheck) {
  if (!clcg::test::device_has_fp64()) FAIL() << "the device symmetry check needs fp64";
  {
    SCOPED_TRACE("symmetric Poisson");
    expect_same_report(clcg::test::poisson(9, 7, 3));
  }
  {
    SCOPED_TRACE("one value differs across the diagonal");
    HostMatrix a = clcg::test::poisson(6, 5);
    a.coeffRef(7, 8) = -1.25;
    expect_same_report(a);
  }
  {
    SCOPED_TRACE("entries with no mirror, and a tie between (1, 3) and (3, 1)");
    expect_same_report(from_triplets(5, {{0, 0, 4.0}, {1, 3, 2.0}, {3, 1, -2.0}, {2, 4, 0.5}, {4, 4, -7.0}, {3, 3, 1.0}}));
  }
  {
    SCOPED_TRACE("below the tolerance: symmetric");
    HostMatrix a = clcg::test::poisson(4, 4);
    a.coeffRef(2, 3) += 1e-14;
    expect_same_report(a);
  }
  {
    SCOPED_TRACE("empty");
    expect_same_report(from_triplets(3, {}));
  }
}

TEST(DeviceSymmetry, RefusesAFloatMatrix) {
  const HostMatrix a = clcg::test::poisson(3, 3);
  const clcg::solver::CsrView view = clcg::solver::csr_view(a);
  EXPECT_THROW(clcg::solver::device_symmetry(test_env(), DeviceCsrMatrix(test_env(), view, ElementType::f32), view),
               std::invalid_argument);
}

}  // namespace
