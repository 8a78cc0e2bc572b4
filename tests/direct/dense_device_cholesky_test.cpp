// The dense Cholesky factor on the device (direct/dense_device_cholesky.hpp) against Eigen's
// dense LLT on the host: sizes around the 64-row blocks (one block, one short of it, past it,
// several with a partial last one), n = 0 and 1, a dense matrix and sparse ones, the device
// vectors' solve, new values, and a pivot <= 0 named by its column.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <vector>

#include "clcg/solver/direct/dense_device_cholesky.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DenseDeviceCholesky;
using clcg::solver::HostCsr;
using clcg::solver::HostMatrix;
using Eigen::VectorXd;

VectorXd device_solve(const DenseDeviceCholesky& f, const VectorXd& b) {
  VectorXd x(b.size());
  f.solve({b.data(), std::size_t(b.size())}, {x.data(), std::size_t(x.size())});
  return x;
}

// A full SPD matrix of n rows: B B^T / n + I, B uniform in [-1, 1) (cond ~ 5).
HostMatrix full_spd(int n, unsigned seed) {
  std::srand(seed);
  const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd a = b * b.transpose() / std::max(n, 1) + Eigen::MatrixXd::Identity(n, n);
  return a.sparseView();
}

void expect_solves_like_eigen(const HostMatrix& a) {
  ASSERT_TRUE(clcg::test::device_has_fp64()) << "the dense factor needs fp64 on the test device";
  const HostCsr host = clcg::solver::to_host_csr(a);
  DenseDeviceCholesky f(clcg::test::test_env(), std::size_t(a.rows()));
  f.factorize(host);
  const Eigen::LLT<Eigen::MatrixXd> reference{Eigen::MatrixXd(a)};
  const VectorXd b = clcg::test::random_vector(a.rows(), 7), expected = reference.solve(b);
  const VectorXd x = device_solve(f, b);
  // Both backward stable on matrices of cond <= ~500: they agree to cond(A) n eps.
  EXPECT_LE((x - expected).norm(), 1e-11 * std::max(expected.norm(), 1.0)) << a.rows() << " rows";
}

TEST(DenseDeviceCholesky, SolvesLikeEigensDenseCholeskyAroundTheBlockSize) {
  for (int n : {1, 2, 63, 64, 65, 130, 200}) expect_solves_like_eigen(full_spd(n, unsigned(n)));
}

TEST(DenseDeviceCholesky, SolvesSparseMatrices) {
  expect_solves_like_eigen(clcg::test::poisson(13, 11));
  expect_solves_like_eigen(clcg::test::poisson(5, 6, 7));
  expect_solves_like_eigen(clcg::test::random_dd_spd(257, 9, 3));
}

TEST(DenseDeviceCholesky, NoRowsIsANoOp) {
  const HostCsr host = clcg::solver::to_host_csr(HostMatrix(0, 0));
  DenseDeviceCholesky f(clcg::test::test_env(), 0);
  f.factorize(host);
  std::vector<double> none;
  f.solve(none, none);
}

TEST(DenseDeviceCholesky, SolvesDeviceVectorsAndTakesNewValues) {
  const clcg::cl::Env& env = clcg::test::test_env();
  HostMatrix a = clcg::test::random_dd_spd(150, 7, 11);
  DenseDeviceCholesky f(env, 150);
  f.factorize(clcg::solver::to_host_csr(a));
  a *= 3.0;  // the same pattern, new values: x is a third of the old one
  f.factorize(clcg::solver::to_host_csr(a));
  const VectorXd b = clcg::test::random_vector(150, 5), expected = Eigen::MatrixXd(a).llt().solve(b);
  ::cl::Buffer bd(env.context(), CL_MEM_READ_WRITE, 150 * sizeof(double)),
      xd(env.context(), CL_MEM_READ_WRITE, 150 * sizeof(double));
  env.queue().enqueueWriteBuffer(bd, CL_TRUE, 0, 150 * sizeof(double), b.data());
  f.solve(bd, xd);
  VectorXd x(150);
  env.queue().enqueueReadBuffer(xd, CL_TRUE, 0, 150 * sizeof(double), x.data());
  EXPECT_LE((x - expected).norm(), 1e-11 * expected.norm());
}

TEST(DenseDeviceCholesky, APivotAtOrBelowZeroNamesItsColumn) {
  // Diagonal but for a negative entry in column 70 (the second block): the first failing pivot.
  HostMatrix a = full_spd(100, 1);
  for (int j = 0; j < 100; ++j) a.coeffRef(70, j) = a.coeffRef(j, 70) = 0;
  a.coeffRef(70, 70) = -1;
  DenseDeviceCholesky f(clcg::test::test_env(), 100);
  try {
    f.factorize(clcg::solver::to_host_csr(a));
    FAIL() << "a matrix with a negative pivot was factored";
  } catch (const clcg::solver::NotPositiveDefinite& e) {
    EXPECT_NE(std::string(e.what()).find("column 70"), std::string::npos) << e.what();
  }
}

}  // namespace
