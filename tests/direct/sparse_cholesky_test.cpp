// The sparse LDL^T factor (direct/sparse_cholesky.hpp) and the direct method built on it
// (krylov/direct_solve.hpp), on the host: solves against Eigen's dense LLT, the symbolic
// estimate against a hand count, refactorisation with new values, not-SPD detection, and the
// direct method's residual check, refinement and edge cases.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/krylov/direct_solve.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "support/cg_problems.hpp"

namespace {

using clcg::solver::HostCsr;
using clcg::solver::HostMatrix;
using clcg::solver::SparseCholesky;
using clcg::solver::Status;
using Eigen::VectorXd;
using clcg::test::random_vector;

VectorXd factor_solve(const SparseCholesky& f, const VectorXd& b) {
  VectorXd x(b.size());
  f.solve({b.data(), std::size_t(b.size())}, {x.data(), std::size_t(x.size())});
  return x;
}

TEST(SparseCholesky, SolvesLikeADenseCholeskyOnGridsAndRandomMatrices) {
  // Sizes that are not powers of two, a 3D grid and an unstructured random SPD matrix.
  for (const HostMatrix& a : {clcg::test::poisson(23, 17), clcg::test::poisson(9, 8, 7),
                              clcg::test::random_dd_spd(301, 9, 5)}) {
    const HostCsr host = clcg::solver::to_host_csr(a);
    SparseCholesky f(host);
    f.factorize(host);
    const Eigen::MatrixXd dense = Eigen::MatrixXd(a);
    const Eigen::LLT<Eigen::MatrixXd> reference(dense);
    for (std::uint64_t seed : {1u, 2u}) {
      const VectorXd b = random_vector(a.rows(), seed);
      const VectorXd x = factor_solve(f, b), expected = reference.solve(b);
      // Both are backward stable: they agree to cond(A) eps (cond <= ~500 here).
      EXPECT_LE((x - expected).norm(), 1e-11 * expected.norm()) << a.rows() << " rows";
    }
  }
}

TEST(SparseCholesky, EstimateCountsTheFactorOfATridiagonalMatrix) {
  // A path graph: AMD keeps it fill-free, so L has n - 1 off-diagonal entries, and each column
  // has at most one: one division and one multiply-subtract (2 flops) each, 3 (n - 1).
  const int n = 50;
  const HostCsr host = clcg::solver::to_host_csr(clcg::test::poisson(n, 1));
  const SparseCholesky f(host);
  EXPECT_EQ(f.estimate().factor_nonzeros, std::size_t(n - 1));
  EXPECT_DOUBLE_EQ(f.estimate().flops, 3.0 * (n - 1));
  EXPECT_GE(f.estimate().analyse_seconds, 0);
}

TEST(SparseCholesky, NewValuesOnTheSamePatternReuseTheAnalysis) {
  HostCsr host = clcg::solver::to_host_csr(clcg::test::poisson(12, 11));
  SparseCholesky f(host);
  f.factorize(host);
  for (double& v : host.values) v *= 3;  // 3 A: x = A^-1 b / 3
  f.factorize(host);
  const VectorXd b = random_vector(host.rows, 7);
  const HostMatrix a = clcg::test::poisson(12, 11);
  const VectorXd expected = Eigen::MatrixXd(a).llt().solve(b) / 3;
  EXPECT_LE((factor_solve(f, b) - expected).norm(), 1e-12 * expected.norm());
  HostCsr other = clcg::solver::to_host_csr(clcg::test::poisson(11, 12, 2));
  EXPECT_THROW(f.factorize(other), std::invalid_argument);
}

TEST(SparseCholesky, NotPositiveDefiniteIsReported) {
  // 400 rows 1% full (the sparse factor, which names the pivot), 30 rows 16% full (the dense one).
  for (const auto& [a0, words] : {std::pair{clcg::test::poisson(20, 20), "pivot -"},
                                  std::pair{clcg::test::poisson(6, 5), "dense Cholesky"}}) {
    HostMatrix a = a0;
    a.coeffRef(4, 4) = -1;  // indefinite
    const HostCsr host = clcg::solver::to_host_csr(a);
    SparseCholesky f(host);
    try {
      f.factorize(host);
      ADD_FAILURE() << "an indefinite matrix factored";
    } catch (const clcg::solver::NotPositiveDefinite& e) {
      EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_FALSE(f.factorized());
    const VectorXd b = VectorXd::Ones(a.rows());
    EXPECT_THROW(factor_solve(f, b), std::logic_error);
  }
}

TEST(SparseCholesky, ASmallFullMatrixIsFactoredDense) {
  // 151 rows with ~60 entries each (40% full, as AMG's coarsest operators): the dense factor,
  // its estimate that of a full L; solves agree with Eigen's LLT; new values refactor.
  const HostMatrix a = clcg::test::random_dd_spd(151, 30, 4);
  HostCsr host = clcg::solver::to_host_csr(a);
  ASSERT_GE(double(host.nnz()), clcg::solver::dense_from_fill * 151.0 * 151.0);
  SparseCholesky f(host);
  EXPECT_EQ(f.estimate().factor_nonzeros, std::size_t(151 * 150 / 2));
  f.factorize(host);
  const VectorXd b = random_vector(a.rows(), 3);
  const VectorXd expected = Eigen::MatrixXd(a).llt().solve(b);
  EXPECT_LE((factor_solve(f, b) - expected).norm(), 1e-12 * expected.norm());
  for (double& v : host.values) v *= 2;
  f.factorize(host);
  EXPECT_LE((factor_solve(f, b) - expected / 2).norm(), 1e-12 * expected.norm());
  host.values[0] = std::nan("");
  EXPECT_THROW(f.factorize(host), clcg::solver::NotPositiveDefinite);
}

TEST(SparseCholesky, TheSmallDenseLoopAndEigensLltAgreeAcrossTheirBoundary) {
  // Dense matrices up to 64 rows take a plain loop, larger ones Eigen's blocked LLT: both
  // sides of the boundary and a size that is not a power of two, against Eigen's dense LLT.
  for (const int n : {1, 37, 64, 65}) {
    const HostMatrix a = clcg::test::random_dd_spd(n, std::max(1, n / 3), 11);
    const HostCsr host = clcg::solver::to_host_csr(a);
    ASSERT_GE(double(host.nnz()), clcg::solver::dense_from_fill * n * n) << n;
    SparseCholesky f(host);
    f.factorize(host);
    const VectorXd b = random_vector(n, 5);
    const VectorXd expected = Eigen::MatrixXd(a).llt().solve(b);
    EXPECT_LE((factor_solve(f, b) - expected).norm(), 1e-12 * expected.norm()) << n << " rows";
  }
}

TEST(SparseCholesky, OnlyTheUpperTriangleIsRead) {
  // A nonsymmetric A is factored as the symmetric matrix of its upper triangle, on each of the
  // three paths: the sparse factor, the dense loop, Eigen's dense LLT.
  for (const HostMatrix& symmetric : {clcg::test::poisson(13, 11), clcg::test::random_dd_spd(40, 12, 2),
                                      clcg::test::random_dd_spd(90, 30, 3)}) {
    HostMatrix lower_changed = symmetric;
    for (int j = 0; j < lower_changed.outerSize(); ++j)
      for (HostMatrix::InnerIterator it(lower_changed, j); it; ++it)
        if (it.row() > it.col()) it.valueRef() *= 0.5;  // below the diagonal
    const HostCsr host = clcg::solver::to_host_csr(lower_changed);
    SparseCholesky f(host);
    f.factorize(host);
    const VectorXd b = random_vector(symmetric.rows(), 9);
    const VectorXd expected = Eigen::MatrixXd(symmetric).llt().solve(b);
    EXPECT_LE((factor_solve(f, b) - expected).norm(), 1e-12 * expected.norm()) << symmetric.rows() << " rows";
  }
}

TEST(SparseCholesky, EmptyAndOneByOne) {
  HostCsr empty;
  SparseCholesky f0(empty);
  f0.factorize(empty);
  EXPECT_EQ(f0.estimate().factor_nonzeros, 0u);
  std::vector<double> none;
  f0.solve(none, none);
  HostMatrix one(1, 1);
  one.insert(0, 0) = 4;
  const HostCsr host = clcg::solver::to_host_csr(one);
  SparseCholesky f1(host);
  f1.factorize(host);
  EXPECT_DOUBLE_EQ(factor_solve(f1, VectorXd::Constant(1, 2.0))[0], 0.5);
}

struct Direct {
  VectorXd x;
  clcg::solver::SolveInfo info;
};

Direct direct(const HostMatrix& a, const VectorXd& b, const clcg::solver::Settings& settings = {},
              const VectorXd* guess = nullptr) {
  const HostCsr host = clcg::solver::to_host_csr(a);
  SparseCholesky f(host);
  f.factorize(host);
  Direct out{guess ? *guess : VectorXd::Zero(a.rows()), {}};
  out.info = clcg::solver::solve_directly(host, f, {b.data(), std::size_t(b.size())},
                                          {out.x.data(), std::size_t(out.x.size())}, guess != nullptr, settings);
  return out;
}

TEST(DirectSolve, EverySharedSpdMatrixInOneOrTwoSolvesWithTheTrueResidualBelowTol) {
  if (clcg::test::shared_matrix("bcsstk01.mtx").empty())
    GTEST_SKIP() << "shared matrices absent: " << CLCG_SHARED_MATRICES;
  for (const char* name : {"bcsstk01", "pts5ldd03", "494_bus", "gr_30_30", "1138_bus", "bcsstk13", "bcsstk16",
                           "lap2D_5pt_n100"}) {
    SCOPED_TRACE(name);
    const HostMatrix a = clcg::test::read_mtx(clcg::test::shared_matrix(std::string(name) + ".mtx"));
    const VectorXd b = a * VectorXd::Ones(a.cols());
    const Direct d = direct(a, b);
    EXPECT_EQ(d.info.status, Status::converged) << d.info.message;
    EXPECT_LE(d.info.iterations, 2u);
    const double true_residual = (b - a * d.x).norm() / b.norm();  // independent of the solver's own check
    EXPECT_LE(true_residual, 1e-8);
    EXPECT_NEAR(d.info.true_residual, true_residual, 1e-12);
  }
}

TEST(DirectSolve, ZeroRightHandSideGuessLimitAndNaN) {
  const HostMatrix a = clcg::test::poisson(10, 9);
  const VectorXd ones = VectorXd::Ones(a.rows()), b = a * ones;
  {
    SCOPED_TRACE("b = 0: x = 0 with no solve");
    const Direct d = direct(a, VectorXd::Zero(a.rows()));
    EXPECT_EQ(d.info.status, Status::converged);
    EXPECT_EQ(d.info.iterations, 0u);
    EXPECT_EQ(d.x.norm(), 0);
  }
  {
    SCOPED_TRACE("the exact answer as the guess: no solve");
    const Direct d = direct(a, b, {}, &ones);
    EXPECT_EQ(d.info.iterations, 0u);
    EXPECT_EQ(d.info.status, Status::converged);
  }
  {
    SCOPED_TRACE("max_iterations 0 checks the guess only");
    clcg::solver::Settings settings;
    settings.max_iterations = 0;
    const Direct d = direct(a, b, settings);
    EXPECT_EQ(d.info.status, Status::max_iterations);
    EXPECT_EQ(d.info.iterations, 0u);
  }
  {
    SCOPED_TRACE("a tolerance below rounding: stops after max_direct_solves, says why");
    clcg::solver::Settings settings;
    settings.tolerance = 1e-30;
    const Direct d = direct(a, b, settings);
    EXPECT_EQ(d.info.status, Status::max_iterations);
    EXPECT_EQ(d.info.iterations, clcg::solver::max_direct_solves);
    EXPECT_NE(d.info.message.find("stays above the tolerance"), std::string::npos) << d.info.message;
  }
  {
    SCOPED_TRACE("NaN in b");
    VectorXd bad = b;
    bad[3] = std::nan("");
    const Direct d = direct(a, bad);
    EXPECT_EQ(d.info.status, Status::non_finite);
  }
}

TEST(DirectSolve, ANonsymmetricMatrixIsNeverReportedSolvedWhenItIsNot) {
  // Only one triangle is factored: for a nonsymmetric A the refinement steps either reach
  // the tolerance against the whole A (a right answer) or stop and say so; "converged" always
  // means the true residual of the whole A is below tol.
  for (double skew : {0.7, 50.0}) {
    HostMatrix a = clcg::test::poisson(8, 7);
    a.coeffRef(10, 2) += skew;  // below the diagonal: the factor (of the upper triangle) is the Poisson matrix
    const VectorXd b = a * VectorXd::Ones(a.cols());
    const Direct d = direct(a, b);
    const double true_residual = (b - a * d.x).norm() / b.norm();
    if (d.info.status == Status::converged) EXPECT_LE(true_residual, 1e-8) << "skew " << skew;
    else EXPECT_GT(true_residual, 1e-8) << "skew " << skew << ": " << d.info.message;
  }
}

}  // namespace
