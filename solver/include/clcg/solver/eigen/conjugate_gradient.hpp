#pragma once
// clcg::ConjugateGradient: a drop-in for Eigen::ConjugateGradient that solves on an OpenCL
// device. A program written against
//     Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower|Eigen::Upper> cg;
// compiles and works after swapping the type for clcg::ConjugateGradient<...>:
//
//   clcg::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower|Eigen::Upper> cg;
//   cg.setTolerance(1e-10).setMaxIterations(1000);
//   cg.compute(A);                       // uploads A (and 1/diag(A) for Jacobi) once
//   Eigen::VectorXd x = cg.solve(b);     // or cg.solveWithGuess(b, x0)
//   if (cg.info() != Eigen::Success) ... // cg.iterations(), cg.error()
//
// Same defaults as Eigen: tolerance NumTraits<Scalar>::epsilon(), max iterations 2 * cols,
// UpLo = Lower (only the lower triangle is read; Upper, or Lower|Upper for full storage),
// Preconditioner = DiagonalPreconditioner (Jacobi). Eigen::IdentityPreconditioner gives
// plain CG; other preconditioners are rejected at compile time. Scalar float solves in
// float on the device, double in double.
//
// Differences from Eigen, on purpose:
//  - iterations() counts the SpMV + update steps performed (textbook k); Eigen 3.4 reports
//    one less when it converges inside its loop.
//  - error() is the TRUE relative residual ||b - A x|| / ||b||, recomputed in double on the
//    host after the solve; Eigen reports the recursive estimate (solveInfo() has both).
//  - info() is NumericalIssue when CG breaks down (p^T A p <= 0: A or M not positive
//    definite) or meets NaN/Inf; NoConvergence when the iteration limit is reached.
//  - Failures of the device (OpenCL errors, too little memory) throw; Eigen has no device.
// The device is the one CLCG_DEVICE / CLCG_PLATFORM select, unless an Env is given.
// Like Eigen's, solve() is const and updates the mutable status (iterations, info, error).
#include <Eigen/Core>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/cg_solver.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg {

template <class MatrixType_, int UpLo_ = Eigen::Lower,
          class Preconditioner_ = Eigen::DiagonalPreconditioner<typename MatrixType_::Scalar>>
class ConjugateGradient {
 public:
  using MatrixType = MatrixType_;
  using Scalar = typename MatrixType::Scalar;
  using RealScalar = typename Eigen::NumTraits<Scalar>::Real;
  using StorageIndex = typename MatrixType::StorageIndex;
  using Preconditioner = Preconditioner_;
  enum { UpLo = UpLo_ };

  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "clcg::ConjugateGradient solves float or double systems");
  static_assert(std::is_same_v<Preconditioner, Eigen::IdentityPreconditioner> ||
                    std::is_same_v<Preconditioner, Eigen::DiagonalPreconditioner<Scalar>>,
                "clcg::ConjugateGradient supports Eigen::IdentityPreconditioner (plain CG) and "
                "Eigen::DiagonalPreconditioner<Scalar> (Jacobi)");
  static_assert((UpLo_ & (Eigen::Lower | Eigen::Upper)) != 0, "UpLo must be Lower, Upper or Lower|Upper");

  ConjugateGradient() = default;
  explicit ConjugateGradient(const cl::Env& env) : env_(env) {}
  template <class MatrixDerived>
  explicit ConjugateGradient(const Eigen::EigenBase<MatrixDerived>& a) {
    compute(a);
  }

  // The device to solve on; forgets a computed matrix.
  ConjugateGradient& setEnv(const cl::Env& env) {
    env_ = env;
    solver_.reset();
    initialized_ = false;
    return *this;
  }
  const cl::Env& env() const {
    if (!env_) env_ = cl::Env::create();
    return *env_;
  }
  // SpMV kernel, reduction variant, history recording (set before compute(); tolerance and
  // iteration limit come from setTolerance / setMaxIterations).
  solver::Settings& settings() noexcept { return settings_; }

  // Uploads A, builds the kernels and, for Jacobi, 1/diag(A). Call again when A changes.
  template <class MatrixDerived>
  ConjugateGradient& compute(const Eigen::EigenBase<MatrixDerived>& a) {
    constexpr solver::Storage storage = (UpLo_ & Eigen::Lower) && (UpLo_ & Eigen::Upper) ? solver::Storage::full
                                        : (UpLo_ & Eigen::Lower)                          ? solver::Storage::lower
                                                                                          : solver::Storage::upper;
    if constexpr (std::is_base_of_v<Eigen::SparseMatrixBase<MatrixDerived>, MatrixDerived>)
      host_ = std::make_shared<const solver::HostCsr>(solver::to_host_csr(a.derived(), storage));
    else
      host_ = std::make_shared<const solver::HostCsr>(solver::to_host_csr(MatrixType(a.derived()), storage));
    if (host_->rows != host_->cols) throw std::invalid_argument("ConjugateGradient needs a square matrix");
    settings_.precision = element_type;
    settings_.preconditioner = std::is_same_v<Preconditioner, Eigen::IdentityPreconditioner>
                                   ? solver::Preconditioner::none
                                   : solver::Preconditioner::jacobi;
    const solver::DeviceCsrMatrix device_a(env(), *host_, element_type);
    solver_ = std::make_shared<solver::CgSolver>(env(), device_a, settings_);
    initialized_ = true;
    info_ = Eigen::Success;
    return *this;
  }
  template <class MatrixDerived>
  ConjugateGradient& analyzePattern(const Eigen::EigenBase<MatrixDerived>&) {
    return *this;  // nothing to analyse: compute() / factorize() do the work
  }
  template <class MatrixDerived>
  ConjugateGradient& factorize(const Eigen::EigenBase<MatrixDerived>& a) {
    return compute(a);
  }

  // x = A^-1 b from x0 = 0; b may have several columns (solved one after the other).
  template <class Rhs>
  Eigen::Matrix<Scalar, Eigen::Dynamic, Rhs::ColsAtCompileTime> solve(const Eigen::MatrixBase<Rhs>& b) const {
    return solve_columns(b, static_cast<const Eigen::Matrix<Scalar, Eigen::Dynamic, Rhs::ColsAtCompileTime>*>(nullptr));
  }
  template <class Rhs, class Guess>
  Eigen::Matrix<Scalar, Eigen::Dynamic, Rhs::ColsAtCompileTime> solveWithGuess(const Eigen::MatrixBase<Rhs>& b,
                                                                                const Guess& x0) const {
    const Eigen::Matrix<Scalar, Eigen::Dynamic, Rhs::ColsAtCompileTime> guess = x0;
    return solve_columns(b, &guess);
  }

  ConjugateGradient& setTolerance(const RealScalar& tolerance) {
    settings_.tolerance = double(tolerance);
    return *this;
  }
  RealScalar tolerance() const { return RealScalar(settings_.tolerance); }
  ConjugateGradient& setMaxIterations(Eigen::Index max_iterations) {
    settings_.max_iterations = max_iterations;
    return *this;
  }
  Eigen::Index maxIterations() const {
    return settings_.max_iterations < 0 ? 2 * cols() : Eigen::Index(settings_.max_iterations);
  }

  Eigen::Index rows() const { return host_ ? host_->rows : 0; }
  Eigen::Index cols() const { return host_ ? host_->cols : 0; }
  Eigen::ComputationInfo info() const {
    require_initialized();
    return info_;
  }
  Eigen::Index iterations() const {
    require_initialized();
    return iterations_;
  }
  RealScalar error() const {
    require_initialized();
    return RealScalar(error_);
  }
  // The last solve's full report (of its last column): status, message, both residuals, history.
  const solver::SolveInfo& solveInfo() const noexcept { return solve_info_; }

 private:
  static constexpr solver::ElementType element_type =
      std::is_same_v<Scalar, float> ? solver::ElementType::f32 : solver::ElementType::f64;

  void require_initialized() const {
    if (!initialized_) throw std::logic_error("clcg::ConjugateGradient is not initialized: call compute(A) first");
  }

  template <class Rhs, class Result>
  Result solve_columns(const Eigen::MatrixBase<Rhs>& b, const Result* guess) const {
    require_initialized();
    if (b.rows() != rows())
      throw std::invalid_argument("ConjugateGradient::solve: b has " + std::to_string(b.rows()) +
                                  " rows but the matrix has " + std::to_string(rows()));
    if (guess && (guess->rows() != cols() || guess->cols() != b.cols()))
      throw std::invalid_argument("ConjugateGradient::solveWithGuess: the guess has the wrong size");
    solver_->settings().tolerance = settings_.tolerance;
    solver_->settings().max_iterations = settings_.max_iterations;
    solver_->settings().record_history = settings_.record_history;
    solver_->settings().confirm_true_residual = settings_.confirm_true_residual;
    const std::size_t n = std::size_t(rows());
    const cl::Env& e = env();
    ::cl::Buffer b_dev = solver::make_vector(e, element_type, n), x_dev = solver::make_vector(e, element_type, n);
    Result x(b.rows(), b.cols());
    info_ = Eigen::Success;
    iterations_ = 0;
    error_ = 0;
    for (Eigen::Index c = 0; c < b.cols(); ++c) {
      const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> bc = b.col(c);
      cl::checked("uploading b", [&] {
        if (n) e.queue().enqueueWriteBuffer(b_dev, CL_TRUE, 0, n * sizeof(Scalar), bc.data());
        if (n && guess) {
          const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> x0 = guess->col(c);
          e.queue().enqueueWriteBuffer(x_dev, CL_TRUE, 0, n * sizeof(Scalar), x0.data());
        }
      });
      solve_info_ = solver_->solve(b_dev, x_dev, guess != nullptr, false);
      Eigen::Matrix<Scalar, Eigen::Dynamic, 1> xc(b.rows());
      cl::checked("reading x back", [&] {
        if (n) e.queue().enqueueReadBuffer(x_dev, CL_TRUE, 0, n * sizeof(Scalar), xc.data());
      });
      x.col(c) = xc;
      solve_info_.true_residual = solver::relative_residual(*host_, bc.template cast<double>(), xc.template cast<double>());
      iterations_ = std::max<Eigen::Index>(iterations_, Eigen::Index(solve_info_.iterations));
      error_ = std::max(error_, solve_info_.true_residual);
      const Eigen::ComputationInfo column_info =
          solve_info_.status == solver::Status::converged ? Eigen::Success
          : solve_info_.status == solver::Status::max_iterations || solve_info_.status == solver::Status::stagnated ||
                  solve_info_.status == solver::Status::interrupted
              ? Eigen::NoConvergence
              : Eigen::NumericalIssue;  // breakdown, non_finite, diverged: A is not what CG needs
      if (column_info == Eigen::NumericalIssue || (column_info == Eigen::NoConvergence && info_ == Eigen::Success))
        info_ = column_info;
    }
    return x;
  }

  mutable std::optional<cl::Env> env_;
  solver::Settings settings_ = [] {
    solver::Settings s;
    s.tolerance = double(Eigen::NumTraits<Scalar>::epsilon());
    s.max_iterations = -1;
    s.confirm_true_residual = false;  // Eigen's stopping rule exactly:
    s.stagnation_window = 0;          // no early stop for stagnation
    s.divergence_factor = 0;          // or divergence
    return s;
  }();
  std::shared_ptr<const solver::HostCsr> host_;
  std::shared_ptr<solver::CgSolver> solver_;
  bool initialized_ = false;
  mutable Eigen::ComputationInfo info_ = Eigen::Success;
  mutable Eigen::Index iterations_ = 0;
  mutable double error_ = 0;
  mutable solver::SolveInfo solve_info_;
};

}  // namespace clcg
