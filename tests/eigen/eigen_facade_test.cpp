// clcg::ConjugateGradient is a drop-in for Eigen::ConjugateGradient: one small program,
// written once against Eigen's API, is compiled with both types and gives the same answers.
#include <gtest/gtest.h>

#include <Eigen/IterativeLinearSolvers>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "support/cg_problems.hpp"
#include "clcg/solver/eigen/conjugate_gradient.hpp"
#include "clcg/solver/problems/elasticity.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::test::test_env;

// What a user writes against Eigen: set up, compute, solve, check, solve again with a guess.
struct ProgramResult {
  Eigen::VectorXd x;
  Eigen::VectorXd x_again;
  Eigen::ComputationInfo info;
  Eigen::Index iterations;
  double error;
  double tolerance;
  Eigen::Index max_iterations;
};
template <class Solver>
ProgramResult user_program(Solver& cg, const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& b) {
  cg.setTolerance(1e-10);
  cg.compute(A);
  ProgramResult out;
  out.max_iterations = cg.maxIterations();
  out.tolerance = cg.tolerance();
  Eigen::VectorXd x = cg.solve(b);
  out.x = x;
  out.info = cg.info();
  out.iterations = cg.iterations();
  out.error = cg.error();
  x = cg.solveWithGuess(b, x);  // already solved: no work left
  out.x_again = x;
  return out;
}

Eigen::SparseMatrix<double> lower_triangle(const Eigen::SparseMatrix<double>& a) {
  return a.triangularView<Eigen::Lower>();
}

TEST(EigenFacade, SameProgramCompilesAndAgreesWithEigen) {
  const Eigen::SparseMatrix<double> full = clcg::test::poisson(23, 17);
  const Eigen::VectorXd b = full * Eigen::VectorXd::LinSpaced(full.cols(), 1, 2);
  {
    SCOPED_TRACE("Lower|Upper, IdentityPreconditioner (plain CG), full storage");
    Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner> e;
    clcg::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner> c(
        test_env());
    const ProgramResult re = user_program(e, full, b), rc = user_program(c, full, b);
    EXPECT_EQ(rc.info, Eigen::Success);
    EXPECT_EQ(rc.info, re.info);
    EXPECT_EQ(rc.max_iterations, re.max_iterations);  // 2 * cols, as Eigen
    EXPECT_EQ(rc.tolerance, re.tolerance);
    // clcg counts the converging step too (see the header); the same algorithm otherwise.
    EXPECT_LE(std::abs(double(rc.iterations) - double(re.iterations + 1)), 0.02 * double(re.iterations) + 2);
    EXPECT_LE(rc.error, 1.5e-10);  // true residual; the tolerance with 1.5x for drift
    EXPECT_LE((rc.x - re.x).norm() / re.x.norm(), 1e-7);  // cond ~ 200 times both residuals, with margin
    EXPECT_LE((rc.x_again - rc.x).norm(), 1e-14 * rc.x.norm());
    EXPECT_EQ(c.solveInfo().iterations, 0u);  // the warm start had nothing left to do
  }
  {
    SCOPED_TRACE("defaults: Lower triangle only, DiagonalPreconditioner (Jacobi)");
    Eigen::ConjugateGradient<Eigen::SparseMatrix<double>> e;
    clcg::ConjugateGradient<Eigen::SparseMatrix<double>> c(test_env());
    const auto lower = lower_triangle(full);  // only the lower triangle is read by either
    const ProgramResult re = user_program(e, lower, b), rc = user_program(c, lower, b);
    EXPECT_EQ(rc.info, Eigen::Success);
    EXPECT_LE(std::abs(double(rc.iterations) - double(re.iterations + 1)), 0.02 * double(re.iterations) + 2);
    EXPECT_LE((rc.x - re.x).norm() / re.x.norm(), 1e-7);
    EXPECT_LE((b - full * rc.x).norm() / b.norm(), 1.5e-10);
  }
  {
    SCOPED_TRACE("float matrices solve in float; default tolerance is epsilon like Eigen");
    Eigen::ConjugateGradient<Eigen::SparseMatrix<float>, Eigen::Lower | Eigen::Upper> e;
    clcg::ConjugateGradient<Eigen::SparseMatrix<float>, Eigen::Lower | Eigen::Upper> c(test_env());
    EXPECT_EQ(c.tolerance(), e.tolerance());
    const Eigen::SparseMatrix<float> af = full.cast<float>();
    const Eigen::VectorXf bf = b.cast<float>();
    e.setTolerance(1e-5f).compute(af);
    c.setTolerance(1e-5f).compute(af);
    const Eigen::VectorXf xe = e.solve(bf), xc = c.solve(bf);
    EXPECT_EQ(c.info(), Eigen::Success);
    EXPECT_LE(c.error(), 1.5e-5f);  // the tolerance, 1.5x for drift
    EXPECT_LE((xc - xe).norm() / xe.norm(), 1e-3f);  // cond ~ 200 times float-level residuals
  }
}

TEST(EigenFacade, StatusesMapToEigenComputationInfo) {
  const Eigen::SparseMatrix<double> a = clcg::test::poisson(20, 20);
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(400);
  clcg::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner> cg(
      test_env());
  EXPECT_THROW((void)cg.info(), std::logic_error);  // Eigen asserts; we say what is missing
  cg.setMaxIterations(5).compute(a);
  Eigen::VectorXd x = cg.solve(b);
  EXPECT_EQ(cg.info(), Eigen::NoConvergence);
  EXPECT_EQ(cg.iterations(), 5);
  EXPECT_GT(cg.error(), 1e-3);
  // Several right-hand sides at once, column by column.
  cg.setMaxIterations(1000).setTolerance(1e-9);
  Eigen::MatrixXd B(400, 2);
  B.col(0) = b;
  B.col(1) = a * Eigen::VectorXd::LinSpaced(400, -1, 1);
  const Eigen::MatrixXd X = cg.solve(B);
  EXPECT_EQ(cg.info(), Eigen::Success);
  EXPECT_LE((a * X - B).colwise().norm().maxCoeff() / B.colwise().norm().minCoeff(), 1.5e-9);
  // An indefinite matrix: NumericalIssue, not Success.
  Eigen::SparseMatrix<double> indefinite(2, 2);
  indefinite.insert(0, 0) = 1;
  indefinite.insert(1, 1) = -2;
  cg.compute(indefinite);
  x = cg.solve(Eigen::VectorXd::Ones(2));
  EXPECT_EQ(cg.info(), Eigen::NumericalIssue);
  EXPECT_EQ(cg.solveInfo().status, clcg::solver::Status::breakdown);
  // b = 0 -> x = 0, 0 iterations, Success.
  cg.compute(a);
  x = cg.solve(Eigen::VectorXd::Zero(400));
  EXPECT_EQ(cg.info(), Eigen::Success);
  EXPECT_EQ(cg.iterations(), 0);
  EXPECT_EQ(x, Eigen::VectorXd::Zero(400));
}

}  // namespace

// An elastic body through the facade: the coordinates give AMG the rigid body modes, which cut
// the steps (the AMG test in tests/multigrid has the numbers), and the answer agrees with
// Eigen's own CG. Coordinates that cannot make the modes are refused where they are given.
namespace {

TEST(EigenFacade, AmgTakesTheRigidBodyModesFromCoordinates) {
  const clcg::solver::ElasticBody body = clcg::solver::elasticity_2d(30, 12, 0.3);
  const Eigen::SparseMatrix<double> a = body.stiffness;
  const Eigen::VectorXd b = a * Eigen::VectorXd::Ones(a.rows());
  const Eigen::MatrixXd xy = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor>>(
      body.coordinates.data(), Eigen::Index(body.coordinates.size() / 2), 2);
  using Cg = clcg::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper,
                                     clcg::AmgPreconditioner<double>>;
  Cg plain, with_modes;
  plain.setEnv(test_env()).setTolerance(1e-8);
  with_modes.setEnv(test_env()).setTolerance(1e-8);
  with_modes.setCoordinates(xy);
  plain.settings().precond_options.amg.coarse_rows = with_modes.settings().precond_options.amg.coarse_rows = 40;
  const Eigen::VectorXd x_plain = plain.compute(a).solve(b);
  const Eigen::VectorXd x = with_modes.compute(a).solve(b);
  ASSERT_EQ(with_modes.info(), Eigen::Success);
  EXPECT_LT(with_modes.iterations(), plain.iterations());
  EXPECT_LE(with_modes.iterations(), 40);
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> eigen;
  eigen.setTolerance(1e-10);
  const Eigen::VectorXd reference = eigen.compute(a).solve(b);
  EXPECT_LT((x - reference).norm() / reference.norm(), 1e-6);
  EXPECT_LT((x_plain - reference).norm() / reference.norm(), 1e-6);

  Cg wrong;
  wrong.setEnv(test_env()).setBlockSize(7);  // 7 does not divide the 780 rows
  EXPECT_THROW(wrong.compute(a), std::invalid_argument);
  EXPECT_THROW(wrong.setCoordinates(Eigen::MatrixXd::Zero(4, 2)), std::invalid_argument);  // one point: no rotation
  EXPECT_THROW(wrong.setNearNullspace(Eigen::MatrixXd::Ones(10, 2)), std::invalid_argument);  // dependent
}

}  // namespace
