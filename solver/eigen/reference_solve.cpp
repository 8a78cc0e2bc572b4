#include "clcg/solver/eigen/reference_solve.hpp"

#include <Eigen/IterativeLinearSolvers>

#include <chrono>
#include <cmath>

namespace clcg::solver {
namespace {

double true_relative_residual(const HostMatrix& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  const double b_norm = b.norm();
  const double r_norm = (b - a * x).norm();
  return b_norm > 0 ? r_norm / b_norm : r_norm;
}

template <class EigenPreconditioner>
EigenReferenceResult run(const HostMatrix& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x0, double tolerance,
                         std::size_t max_iterations) {
  // Lower|Upper: the full matrix is stored, and Eigen's SpMV runs multi-threaded with it.
  Eigen::ConjugateGradient<HostMatrix, Eigen::Lower | Eigen::Upper, EigenPreconditioner> cg;
  cg.setTolerance(tolerance);
  cg.setMaxIterations(static_cast<Eigen::Index>(max_iterations));
  cg.compute(a);
  EigenReferenceResult result;
  const auto start = std::chrono::steady_clock::now();
  result.x = x0.size() == 0 ? Eigen::VectorXd(cg.solve(b)) : Eigen::VectorXd(cg.solveWithGuess(b, x0));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.iterations = static_cast<std::size_t>(cg.iterations());
  result.recursive_residual = cg.error();
  result.converged = cg.info() == Eigen::Success;
  result.true_residual = true_relative_residual(a, b, result.x);
  result.threads = Eigen::nbThreads();
  return result;
}

}  // namespace

Preconditioner reference_preconditioner(Preconditioner clcg) noexcept {
  return clcg == Preconditioner::none ? Preconditioner::none : Preconditioner::jacobi;
}

EigenReferenceResult eigen_reference_solve(const HostMatrix& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x0,
                                           double tolerance, std::size_t max_iterations, Preconditioner preconditioner) {
  // Eigen has none of clcg's other preconditioners: Jacobi stands in for them (reference_preconditioner).
  return reference_preconditioner(preconditioner) == Preconditioner::jacobi
             ? run<Eigen::DiagonalPreconditioner<double>>(a, b, x0, tolerance, max_iterations)
             : run<Eigen::IdentityPreconditioner>(a, b, x0, tolerance, max_iterations);
}

std::vector<std::pair<std::size_t, double>> eigen_reference_history(const HostMatrix& a, const Eigen::VectorXd& b,
                                                                    const Eigen::VectorXd& x0, std::size_t last,
                                                                    Preconditioner preconditioner) {
  std::vector<std::pair<std::size_t, double>> history;
  for (double k = 1; static_cast<std::size_t>(k) <= last; k = std::max(k + 1, std::floor(k * 1.15))) {
    // A tolerance that cannot be met makes Eigen run exactly k iterations.
    const auto step = eigen_reference_solve(a, b, x0, 1e-300, static_cast<std::size_t>(k), preconditioner);
    history.emplace_back(static_cast<std::size_t>(k), step.recursive_residual);
  }
  // The grid skips most k; the last iterate is the one that met (or missed) the tolerance.
  if (last > 0 && (history.empty() || history.back().first != last))
    history.emplace_back(last, eigen_reference_solve(a, b, x0, 1e-300, last, preconditioner).recursive_residual);
  return history;
}

}  // namespace clcg::solver
