#pragma once
// Eigen's ConjugateGradient on the CPU, as the reference clcg is compared with (cg-solve
// --reference, cg-bench, tests): same matrix, tolerance, iteration limit and
// preconditioner. Eigen uses all OpenMP threads when clcg is built with OpenMP.
#include <Eigen/Core>

#include <cstddef>
#include <vector>

#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/precond/preconditioner.hpp"

namespace clcg::solver {

struct EigenReferenceResult {
  Eigen::VectorXd x;
  std::size_t iterations = 0;       // as Eigen reports them (see conjugate_gradient.hpp)
  double recursive_residual = 0;    // Eigen's error(): its recursive estimate
  double true_residual = 0;         // ||b - A x|| / ||b||, recomputed
  bool converged = false;
  double seconds = 0;               // the solve alone (compute() excluded)
  int threads = 1;
};

// The preconditioner Eigen's CG runs for clcg's `clcg`: the same for none and Jacobi; Jacobi for
// the others, which Eigen does not have.
Preconditioner reference_preconditioner(Preconditioner clcg) noexcept;

// x0 empty: zero initial guess.
EigenReferenceResult eigen_reference_solve(const HostMatrix& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x0,
                                           double tolerance, std::size_t max_iterations, Preconditioner preconditioner);

// Eigen's recursive relative residual after k iterations, for k on a geometric grid up to
// `last` (each k is a fresh solve from the same start, so these are exactly the iterates of
// one run): the convergence history that Eigen itself does not record.
std::vector<std::pair<std::size_t, double>> eigen_reference_history(const HostMatrix& a, const Eigen::VectorXd& b,
                                                                    const Eigen::VectorXd& x0, std::size_t last,
                                                                    Preconditioner preconditioner);

}  // namespace clcg::solver
