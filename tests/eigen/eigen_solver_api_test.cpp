// clcg::ConjugateGradient as an Eigen iterative solver: generic code written against Eigen's
// solver bases takes it, solve() is Eigen's expression (into a Matrix, a Block, a Map, inside
// larger expressions), sparse right-hand sides, every input form compute() must accept, the
// preconditioner types, A uploaded once for many columns, factorize() again for new values on
// the analysed pattern, and sizes checked. The reference
// is Eigen's own dense LDLT on the same matrix.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <stdexcept>
#include <string>

#include "clcg/solver/eigen/conjugate_gradient.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::test::test_env;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using SpMat = Eigen::SparseMatrix<double>;
using Cg = clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper>;

constexpr double tol = 1e-10;
// x against the dense reference: the tolerance times cond(A) (~100 for these grids), with margin.
constexpr double close = 1e-6;

SpMat grid() { return SpMat(clcg::test::poisson(13, 11)); }  // 143 rows: not a multiple of a group

MatrixXd reference(const SpMat& a, const MatrixXd& b) { return MatrixXd(a).ldlt().solve(b); }

double difference(const MatrixXd& x, const MatrixXd& expected) { return (x - expected).norm() / expected.norm(); }

// Generic helpers as users write them, against Eigen's bases.
template <class Solver>
VectorXd through_iterative_base(Eigen::IterativeSolverBase<Solver>& solver, const SpMat& a, const VectorXd& b) {
  solver.setTolerance(tol);
  solver.derived().compute(a);
  return solver.derived().solveWithGuess(b, VectorXd::Zero(b.size()));
}
template <class Solver>
VectorXd through_sparse_solver_base(Eigen::SparseSolverBase<Solver>& solver, const SpMat& a, const VectorXd& b) {
  solver.derived().compute(a);
  return solver.solve(b);
}

TEST(EigenSolverApi, GenericCodeOnEigensBasesTakesIt) {
  const SpMat a = grid();
  const VectorXd b = VectorXd::LinSpaced(a.rows(), -1, 2);
  Cg cg(test_env());
  EXPECT_LE(difference(through_iterative_base(cg, a, b), reference(a, b)), close);
  EXPECT_EQ(cg.info(), Eigen::Success);
  EXPECT_LE(difference(through_sparse_solver_base(cg, a, b), reference(a, b)), close);
  static_assert(std::is_base_of_v<Eigen::IterativeSolverBase<Cg>, Cg>);
}

TEST(EigenSolverApi, SolveIsAnExpressionIntoMatricesBlocksMapsAndLargerExpressions) {
  const SpMat a = grid();
  const Eigen::Index n = a.rows();
  const MatrixXd b = MatrixXd::Random(n, 3);
  const MatrixXd expected = reference(a, b);
  Cg cg(test_env());
  cg.setTolerance(tol).compute(a);
  const MatrixXd x = cg.solve(b);
  EXPECT_LE(difference(x, expected), close);
  MatrixXd wide = MatrixXd::Zero(n + 4, 5);
  wide.block(2, 1, n, 3) = cg.solve(b);  // a Block as the destination
  EXPECT_LE(difference(wide.block(2, 1, n, 3), expected), close);
  EXPECT_EQ(wide.row(0).norm() + wide.col(0).norm() + wide.col(4).norm(), 0.0);  // nothing outside it
  std::vector<double> storage(std::size_t(n) * 3);
  Eigen::Map<MatrixXd> mapped(storage.data(), n, 3);
  mapped = cg.solve(Eigen::Map<const MatrixXd>(b.data(), n, 3));  // Maps in and out
  EXPECT_LE(difference(mapped, expected), close);
  const MatrixXd twice = 2.0 * cg.solve(b) + MatrixXd::Zero(n, 3);  // inside a larger expression
  EXPECT_LE(difference(twice, 2.0 * expected), close);
  const VectorXd column = cg.solve(b.col(1));  // a column of a matrix
  EXPECT_LE(difference(column, expected.col(1)), close);
}

TEST(EigenSolverApi, SparseRightHandSidesMatchTheDenseSolves) {
  const SpMat a = grid();
  const Eigen::Index n = a.rows();
  SpMat b(n, 4);
  for (Eigen::Index j = 0; j < 4; ++j)
    for (Eigen::Index i = j; i < n; i += 7) b.insert(i, j) = double(1 + i % 5) - 2.5;
  b.makeCompressed();
  const MatrixXd expected = reference(a, MatrixXd(b));
  Cg cg(test_env());
  cg.setTolerance(tol).compute(a);
  const SpMat x = cg.solve(b);
  EXPECT_EQ(x.rows(), n);
  EXPECT_EQ(x.cols(), 4);
  EXPECT_EQ(cg.info(), Eigen::Success);
  EXPECT_LE(difference(MatrixXd(x), expected), close);
  const Eigen::SparseVector<double> c = b.col(2);
  const Eigen::SparseVector<double> xc = cg.solve(c);
  EXPECT_LE(difference(VectorXd(xc), expected.col(2)), close);
}

TEST(EigenSolverApi, ComputeTakesEveryFormOfTheMatrix) {
  const SpMat a = grid();
  const VectorXd b = VectorXd::LinSpaced(a.rows(), 1, 3);
  const VectorXd expected = reference(a, b);
  const auto solved = [&](auto& cg) {
    EXPECT_EQ(cg.info(), Eigen::Success);
    return difference(cg.setTolerance(tol).solve(b), expected);
  };
  Cg cg(test_env());
  cg.compute(0.5 * (a + a));  // an expression
  EXPECT_LE(solved(cg), close);
  const Eigen::Map<const SpMat> map(a.rows(), a.cols(), a.nonZeros(), a.outerIndexPtr(), a.innerIndexPtr(), a.valuePtr());
  cg.compute(map);
  EXPECT_LE(solved(cg), close);
  const Eigen::Ref<const SpMat> ref(a);
  cg.compute(ref);
  EXPECT_LE(solved(cg), close);
  SpMat uncompressed = a;
  uncompressed.reserve(Eigen::VectorXi::Constant(a.cols(), 3));  // room left in every column
  ASSERT_FALSE(uncompressed.isCompressed());
  cg.compute(uncompressed);
  EXPECT_LE(solved(cg), close);
  const Eigen::SparseMatrix<double, Eigen::RowMajor> row_major = a;  // other storage order
  cg.compute(row_major);
  EXPECT_LE(solved(cg), close);
  cg.analyzePattern(a).factorize(a);
  EXPECT_LE(solved(cg), close);
  Cg constructed(0.5 * (a + a));  // the constructor too (on the default device)
  constructed.setEnv(test_env());
  EXPECT_LE(solved(constructed), close);

  clcg::ConjugateGradient<Eigen::SparseMatrix<double, Eigen::ColMajor, long>, Eigen::Lower> long_indices(test_env());
  long_indices.compute(Eigen::SparseMatrix<double, Eigen::ColMajor, long>(a));  // long, lower triangle read
  EXPECT_LE(solved(long_indices), close);
  clcg::ConjugateGradient<Eigen::SparseMatrix<double, Eigen::RowMajor>, Eigen::Upper> rows(test_env());
  rows.compute(Eigen::SparseMatrix<double, Eigen::RowMajor>(a.triangularView<Eigen::Upper>()));  // upper only
  EXPECT_LE(solved(rows), close);
}

TEST(EigenSolverApi, FloatWithIntIndicesAndDoubleWithLongIndices) {
  const SpMat a = grid();
  const Eigen::SparseMatrix<float> af = a.cast<float>();
  const Eigen::VectorXf bf = Eigen::VectorXf::LinSpaced(a.rows(), 1, 3);
  clcg::ConjugateGradient<Eigen::SparseMatrix<float>, Eigen::Lower | Eigen::Upper> cgf(test_env());
  cgf.setTolerance(1e-5f).compute(af);
  const Eigen::VectorXf xf = cgf.solve(bf);
  EXPECT_EQ(cgf.info(), Eigen::Success);
  EXPECT_LE((af * xf - bf).norm() / bf.norm(), 1.5e-5f);
  using LongMat = Eigen::SparseMatrix<double, Eigen::ColMajor, long>;
  clcg::ConjugateGradient<LongMat, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner> cgl(test_env());
  const VectorXd b = VectorXd::Ones(a.rows());
  cgl.setTolerance(tol).compute(LongMat(a));
  EXPECT_LE(difference(cgl.solve(b), reference(a, b)), close);
}

TEST(EigenSolverApi, PreconditionerTypesSelectTheDevicePreconditioner) {
  const SpMat a = SpMat(clcg::test::poisson(40, 37));
  const VectorXd b = a * VectorXd::Ones(a.rows());
  const auto run = [&](auto& cg) {
    cg.setTolerance(1e-8).compute(a);
    const VectorXd x = cg.solve(b);
    EXPECT_EQ(cg.info(), Eigen::Success);
    EXPECT_LE((x - VectorXd::Ones(a.rows())).norm() / std::sqrt(double(a.rows())), 1e-5);
    return cg.iterations();
  };
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper> jacobi(test_env());
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, Eigen::IncompleteCholesky<double>> ic0(test_env());
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, clcg::ChebyshevPreconditioner<double>> chebyshev(test_env());
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, clcg::AmgPreconditioner<double>> amg(test_env());
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, clcg::AutoPreconditioner<double>> automatic(test_env());
  const Eigen::Index steps = run(jacobi);
  EXPECT_LT(run(ic0), steps);
  EXPECT_LT(run(chebyshev), steps);
  EXPECT_LT(run(amg), steps / 4);
  run(automatic);
  EXPECT_EQ(jacobi.preconditionerReport()->name, "jacobi");
  EXPECT_EQ(ic0.preconditionerReport()->name, "ic0");
  EXPECT_EQ(chebyshev.preconditionerReport()->name, "chebyshev");
  EXPECT_EQ(amg.preconditionerReport()->name, "amg");
  EXPECT_FALSE(amg.preconditionerReport()->level_rows.empty());
  // 1480 rows, a factor of a few thousand nonzeros: the planner solves it directly.
  EXPECT_EQ(automatic.preconditionerReport()->name, "cholesky");
  EXPECT_LE(automatic.iterations(), 2);
  // preconditioner() is Eigen's object, computed as Eigen computes it.
  Eigen::DiagonalPreconditioner<double>& diagonal = jacobi.preconditioner();
  EXPECT_EQ(diagonal.info(), Eigen::Success);
  EXPECT_LE((diagonal.solve(VectorXd(a.diagonal())) - VectorXd::Ones(a.rows())).norm(), 1e-12);
  // Options through settings(): a set-up that refuses A is NumericalIssue, as Eigen's IC is.
  SpMat indefinite = a;
  indefinite.coeffRef(3, 3) = -4;
  ic0.compute(indefinite);
  EXPECT_EQ(ic0.info(), Eigen::NumericalIssue);
  (void)ic0.solve(b);
  EXPECT_EQ(ic0.info(), Eigen::NumericalIssue);
}

TEST(EigenSolverApi, ManyColumnsUploadAOnceAndAComputeThroughTheBaseIsNoticed) {
  const SpMat a = grid();
  const Eigen::Index n = a.rows();
  Cg cg(test_env());
  cg.setTolerance(tol).compute(a);
  const clcg::solver::PreconditionerReport* uploaded = cg.preconditionerReport();
  const MatrixXd b = MatrixXd::Random(n, 8);
  const MatrixXd x = cg.solve(b);
  EXPECT_LE(difference(x, reference(a, b)), close);
  EXPECT_EQ(cg.preconditionerReport(), uploaded) << "A and its preconditioner were set up again";
  // Eigen's compute is not virtual: one called through the base grabs another matrix without
  // clcg's upload; the next solve notices and uploads it.
  const SpMat other = SpMat(clcg::test::poisson(9, 7));
  Eigen::IterativeSolverBase<Cg>& base = cg;
  base.compute(other);
  const VectorXd c = VectorXd::Ones(other.rows());
  EXPECT_LE(difference(cg.solve(c), reference(other, c)), close);
}

// analyzePattern once, then factorize for each new set of values (time stepping): the device
// keeps A's pattern and the preconditioner's (AMG: aggregates), and each solve is what a
// compute() on those values gives, bit for bit. Another pattern is refused.
TEST(EigenSolverApi, FactorizeAgainTakesNewValuesOnTheAnalysedPattern) {
  const SpMat a = grid(), scaled = SpMat(clcg::test::scaled_symmetrically(clcg::test::poisson(13, 11), 8));
  const VectorXd b = VectorXd::LinSpaced(a.rows(), -1.0, 1.0);
  clcg::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, clcg::AmgPreconditioner<double>> cg(test_env()), fresh(test_env());
  cg.settings().precond_options.amg.strength = 0;  // strong connections that new values cannot change
  fresh.settings().precond_options.amg.strength = 0;
  cg.setTolerance(tol).analyzePattern(a);
  cg.factorize(a);
  EXPECT_LE(difference(cg.solve(b), reference(a, b)), close);
  cg.factorize(scaled);
  const VectorXd x = cg.solve(b);
  EXPECT_EQ(cg.info(), Eigen::Success);
  EXPECT_LE(difference(x, reference(scaled, b)), close);
  const VectorXd expected = fresh.setTolerance(tol).compute(scaled).solve(b);
  EXPECT_EQ(x, expected);
  EXPECT_EQ(cg.iterations(), fresh.iterations());
  EXPECT_THROW(cg.factorize(SpMat(clcg::test::poisson(11, 13, 2))), std::invalid_argument);
}

TEST(EigenSolverApi, WrongSizesAndMissingComputeThrowNamingThem) {
  const SpMat a = grid();
  Cg cg(test_env());
  EXPECT_THROW((void)cg.iterations(), std::logic_error);
  EXPECT_THROW((void)cg.solve(VectorXd::Ones(a.rows())), std::logic_error);
  cg.compute(a);
  try {
    (void)cg.solve(VectorXd::Ones(a.rows() + 1));
    ADD_FAILURE() << "a b of the wrong length was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(a.rows() + 1)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(a.rows())), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)cg.solveWithGuess(VectorXd::Ones(a.rows()), VectorXd::Ones(3)), std::invalid_argument);
  EXPECT_THROW(cg.compute(SpMat(3, 4)), std::invalid_argument);
  // n = 0 and n = 1
  cg.compute(SpMat(0, 0));
  EXPECT_EQ(cg.solve(VectorXd()).size(), 0);
  SpMat one(1, 1);
  one.insert(0, 0) = 4;
  cg.compute(one);
  EXPECT_DOUBLE_EQ(VectorXd(cg.solve(VectorXd::Constant(1, 2.0)))[0], 0.5);
}

}  // namespace
