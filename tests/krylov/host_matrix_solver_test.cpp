// HostMatrixSolver on the caller's arrays (a CsrView, no host copy of A) solves exactly as on
// arrays it owns, IC(0) and AMG included (they copy A for their host set-up); its uploads are
// timed; the host-in/host-out solve's true residual, now taken on the device in a double
// solve, agrees with the host's recomputation; and new values on the same pattern solve as a
// fresh solver does, while another pattern is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clcg/solver/krylov/host_matrix_solver.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::ElementType;
using clcg::solver::HostMatrixSolver;
using clcg::solver::Preconditioner;
using clcg::solver::Settings;
using clcg::test::test_env;
using Eigen::VectorXd;

ElementType solve_type() { return clcg::test::device_has_fp64() ? ElementType::f64 : ElementType::f32; }

// x from a solve of A x = A 1 in the solve type, as doubles.
std::vector<double> solve_ones(HostMatrixSolver& solver, const clcg::solver::HostMatrix& a) {
  const VectorXd b = a * VectorXd::Ones(a.cols());
  std::vector<double> x(std::size_t(a.rows()));
  if (solver.type() == ElementType::f64) {
    EXPECT_TRUE(solver.solve(b.data(), x.data(), false).converged());
  } else {
    const Eigen::VectorXf bf = b.cast<float>();
    Eigen::VectorXf xf = Eigen::VectorXf::Zero(a.rows());
    EXPECT_TRUE(solver.solve(bf.data(), xf.data(), false).converged());
    for (Eigen::Index i = 0; i < xf.size(); ++i) x[std::size_t(i)] = xf[i];
  }
  return x;
}

TEST(HostMatrixSolver, OnTheCallersArraysSolvesAsOnItsOwnCopy) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(12, 9);
  for (const Preconditioner p : {Preconditioner::none, Preconditioner::jacobi, Preconditioner::ic0, Preconditioner::amg}) {
    SCOPED_TRACE(clcg::solver::preconditioner_name(p));
    Settings settings;
    settings.preconditioner = p;
    settings.tolerance = 1e-6;
    HostMatrixSolver owning(test_env(), clcg::solver::to_host_csr(a), solve_type(), settings);
    HostMatrixSolver viewing(test_env(), clcg::solver::csr_view(a), solve_type(), settings);
    EXPECT_EQ(viewing.host().values.data(), a.valuePtr());  // A read in place
    EXPECT_EQ(solve_ones(viewing, a), solve_ones(owning, a));  // same bits
    EXPECT_GT(viewing.upload_seconds(), 0.0);
    EXPECT_LE(viewing.upload_seconds(), viewing.setup_seconds() + 1.0);  // A's upload, then b's
  }
}

TEST(HostMatrixSolver, HostSolveTrueResidualAgreesWithTheHostRecomputation) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(20, 15);
  const VectorXd b = a * VectorXd::LinSpaced(a.cols(), -1.0, 2.0);
  for (const ElementType type : {ElementType::f64, ElementType::f32}) {
    if (type == ElementType::f64 && !clcg::test::device_has_fp64()) continue;
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    Settings settings;
    settings.precision = type;
    settings.tolerance = type == ElementType::f64 ? 1e-10 : 1e-5;
    settings.max_iterations = 40;  // stops early: a residual well above rounding
    const clcg::solver::HostSolution solution = clcg::solver::solve(test_env(), a, b, settings);
    const double host = clcg::solver::relative_residual(clcg::solver::csr_view(a), b, solution.x);
    ASSERT_TRUE(std::isfinite(solution.info.true_residual));
    EXPECT_NEAR(solution.info.true_residual, host, 1e-9 * host);
    EXPECT_GT(solution.upload_seconds, 0.0);
  }
}

}  // namespace

namespace {

// New values on the same pattern: a solver brought to them solves as one set up on them from
// scratch, bit for bit (the same plan, and AMG keeps aggregates that strength 0 makes the same),
// for arrays the solver owns or reads in place, the direct method included.
TEST(HostMatrixSolver, NewValuesOnTheSamePatternSolveAsAFreshSolver) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(23, 19);
  const clcg::solver::HostMatrix scaled = clcg::test::scaled_symmetrically(a, 4);
  for (const Preconditioner p : {Preconditioner::jacobi, Preconditioner::chebyshev, Preconditioner::amg,
                                 Preconditioner::automatic}) {
    SCOPED_TRACE(clcg::solver::preconditioner_name(p));
    Settings settings;
    settings.preconditioner = p;
    settings.variant = clcg::solver::CgVariant::automatic;
    settings.precond_options.amg.strength = 0;
    settings.tolerance = 1e-8;
    HostMatrixSolver owning(test_env(), clcg::solver::to_host_csr(a), solve_type(), settings);
    HostMatrixSolver viewing(test_env(), clcg::solver::csr_view(a), solve_type(), settings);
    HostMatrixSolver fresh(test_env(), clcg::solver::to_host_csr(scaled), solve_type(), settings);
    const std::vector<double> before = solve_ones(owning, a);
    owning.update_values(clcg::solver::csr_view(scaled));
    viewing.update_values(clcg::solver::csr_view(scaled));
    EXPECT_EQ(viewing.host().values.data(), scaled.valuePtr());  // the new arrays, read in place
    EXPECT_GT(owning.update_seconds(), 0.0);
    const std::vector<double> expected = solve_ones(fresh, scaled);
    EXPECT_EQ(solve_ones(owning, scaled), expected);
    EXPECT_EQ(solve_ones(viewing, scaled), expected);
    EXPECT_EQ(owning.plan().method, fresh.plan().method);
  }
}

TEST(HostMatrixSolver, NewValuesOnAnotherPatternAreRefusedNamingTheDifference) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(9, 8);
  HostMatrixSolver solver(test_env(), clcg::solver::to_host_csr(a), solve_type(), Settings{});
  const auto message = [&](const clcg::solver::HostCsr& other) {
    try {
      solver.update_values(other);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(clcg::solver::to_host_csr(clcg::test::poisson(8, 9, 2))).find("same pattern"), std::string::npos);
  clcg::solver::HostCsr moved = clcg::solver::to_host_csr(a);
  std::swap(moved.col_idx[3], moved.col_idx[4]);  // same sizes, two columns exchanged in row 1
  EXPECT_NE(message(moved).find("column index of entry 3"), std::string::npos) << message(moved);
  clcg::solver::HostCsr shifted = clcg::solver::to_host_csr(a);
  shifted.row_ptr[5] += 1;
  EXPECT_NE(message(shifted).find("row pointer 5"), std::string::npos) << message(shifted);
  EXPECT_EQ(solve_ones(solver, a).size(), std::size_t(a.rows()));  // still solves its own matrix
}

}  // namespace

namespace {

// The direct method with the dense factor on the device (--factor device): x within the
// factor's rounding of the exact answer for a double and a float solve, one solve (or two),
// new values factored again, and CG with M = the device factor ending in a step or two.
TEST(HostMatrixSolver, TheDenseFactorOnTheDeviceSolvesDirectlyAndAsM) {
  ASSERT_TRUE(clcg::test::device_has_fp64()) << "the dense factor needs fp64 on the test device";
  const clcg::solver::HostMatrix a = clcg::test::random_dd_spd(173, 9, 21);
  const clcg::solver::HostMatrix scaled = clcg::test::scaled_symmetrically(a, 4);
  for (const ElementType type : {ElementType::f64, ElementType::f32}) {
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    Settings settings;
    settings.preconditioner = Preconditioner::automatic;
    settings.variant = clcg::solver::CgVariant::automatic;
    settings.precond_options.factor = clcg::solver::FactorPlace::device;
    settings.tolerance = type == ElementType::f64 ? 1e-12 : 1e-6;
    HostMatrixSolver solver(test_env(), clcg::solver::to_host_csr(a), type, settings);
    EXPECT_EQ(solver.plan().method, clcg::solver::Method::direct);
    EXPECT_TRUE(solver.plan().factor_on_device);
    const double tolerance = type == ElementType::f64 ? 1e-12 : 1e-6;  // float: x rounded to float
    for (double x : solve_ones(solver, a)) EXPECT_NEAR(x, 1.0, tolerance);
    solver.update_values(clcg::solver::csr_view(scaled));
    for (double x : solve_ones(solver, scaled)) EXPECT_NEAR(x, 1.0, tolerance);
  }
  Settings settings;
  settings.preconditioner = Preconditioner::cholesky;
  settings.precond_options.factor = clcg::solver::FactorPlace::device;
  settings.tolerance = 1e-12;
  HostMatrixSolver cg(test_env(), clcg::solver::to_host_csr(a), ElementType::f64, settings);
  EXPECT_EQ(cg.plan().method, clcg::solver::Method::cg);
  const VectorXd b = a * VectorXd::Ones(a.cols());
  VectorXd x(a.rows());
  const clcg::solver::SolveInfo info = cg.solve(b.data(), x.data(), false);
  EXPECT_TRUE(info.converged());
  EXPECT_LE(info.iterations, 2u);
  EXPECT_LE((x - VectorXd::Ones(a.rows())).lpNorm<Eigen::Infinity>(), 1e-11);
}

}  // namespace

namespace {

// A band of half-width 3 (7 nonzeros a row) that Jacobi CG crawls through (a 1D operator: steps
// grow with n), while its factor is nearly free.
clcg::solver::HostMatrix banded(int n) {
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 6.0 + 1e-6);
    for (int d = 1; d <= 3; ++d)
      if (i + d < n) t.emplace_back(i, i + d, -1.0), t.emplace_back(i + d, i, -1.0);
  }
  clcg::solver::HostMatrix a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

// `auto` on a small matrix watches CG: where its first steps' rate predicts the factor faster,
// the factor takes over from CG's x (the same answer), and the solver stays direct.
TEST(HostMatrixSolver, AWatchedCgHandsOverToTheFactorWhereItsRateIsSlow) {
  const clcg::solver::HostMatrix a = banded(int(clcg::solver::analyse_up_to_nnz / 7) + 1000);  // not analysed at once
  Settings settings;
  settings.preconditioner = Preconditioner::automatic;
  settings.variant = clcg::solver::CgVariant::automatic;
  settings.tolerance = 1e-10;
  HostMatrixSolver solver(test_env(), clcg::solver::to_host_csr(a), ElementType::f64, settings);
  ASSERT_EQ(solver.plan().method, clcg::solver::Method::cg);
  EXPECT_TRUE(solver.plan().watch_for_direct);
  const VectorXd b = a * VectorXd::Ones(a.cols());
  VectorXd x = VectorXd::Zero(a.rows());
  const clcg::solver::SolveInfo first = solver.solve(b.data(), x.data(), false);
  EXPECT_TRUE(first.converged()) << first.message;
  // handed over at a check: step watch_first_check, or twice that, ...
  const std::size_t steps = std::stoul(first.message);
  EXPECT_EQ(steps % clcg::solver::watch_first_check, 0u) << first.message;
  EXPECT_NE(first.message.find(" CG steps, then solved directly"), std::string::npos) << first.message;
  EXPECT_LE((x - VectorXd::Ones(a.rows())).lpNorm<Eigen::Infinity>(), 1e-6);  // cond ~1e7: 1e-10 * cond
  EXPECT_EQ(solver.plan().method, clcg::solver::Method::direct);
  EXPECT_NE(solver.plan().reason.find("the residual's rate predicts"), std::string::npos) << solver.plan().reason;
  ASSERT_NE(solver.preconditioner_report(), nullptr);
  EXPECT_EQ(solver.preconditioner_report()->name, "cholesky");
  VectorXd again = VectorXd::Zero(a.rows());
  const clcg::solver::SolveInfo second = solver.solve(b.data(), again.data(), false);
  EXPECT_EQ(second.message.find("solved directly"), 0u) << second.message;  // direct from the start now
  EXPECT_LE((again - VectorXd::Ones(a.rows())).lpNorm<Eigen::Infinity>(), 1e-6);
}

}  // namespace
