#pragma once
// clcg::ConjugateGradient: Eigen's ConjugateGradient, solving on an OpenCL device. It is an
// Eigen iterative solver (derived from Eigen::IterativeSolverBase), so a program written
// against Eigen::ConjugateGradient compiles and works after swapping the type, generic code
// taking IterativeSolverBase<Derived>& or SparseSolverBase<Derived>& accepts it, and solve()
// returns Eigen's Solve expression:
//
//   clcg::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower|Eigen::Upper> cg;
//   cg.setTolerance(1e-10).setMaxIterations(1000);
//   cg.compute(A);                       // A uploaded once (any sparse expression, Map, Ref)
//   Eigen::VectorXd x = cg.solve(b);     // dense or sparse b, one column or many
//   if (cg.info() != Eigen::Success) ... // cg.iterations(), cg.error()
//
// Same defaults as Eigen: tolerance NumTraits<Scalar>::epsilon(), max iterations 2 * cols,
// UpLo = Lower (only the lower triangle is read; Upper, or Lower|Upper for full storage),
// Preconditioner = DiagonalPreconditioner. The preconditioner type picks what runs on the
// device (docs/USAGE.md, "Coming from Eigen"):
//   Eigen::IdentityPreconditioner           plain CG
//   Eigen::DiagonalPreconditioner<Scalar>   Jacobi
//   Eigen::IncompleteCholesky<Scalar, ...>  clcg's IC(0) (not Eigen's factorization)
//   clcg::ChebyshevPreconditioner<Scalar>, clcg::AmgPreconditioner<Scalar>,
//   clcg::AutoPreconditioner<Scalar>        Chebyshev, smoothed-aggregation AMG, the planner (krylov/plan.hpp:
//                                           a small matrix with a cheap factor is solved directly)
// Their options are settings().precond_options. Scalar float solves in float on the device,
// double in double. Several right-hand sides are solved column by column with A, the
// preconditioner and the kernels set up once.
//
// Differences from Eigen, on purpose:
//  - iterations() counts the SpMV + update steps performed (textbook k); Eigen 3.4 reports
//    one less when it converges inside its loop.
//  - error() is the TRUE relative residual ||b - A x|| / ||b||, recomputed on the device after
//    the solve (in double where the device has fp64); Eigen reports the recursive estimate
//    (solveInfo() has both).
//  - info() is NumericalIssue when CG breaks down (p^T A p <= 0: A or M not positive
//    definite) or meets NaN/Inf; NoConvergence when the iteration limit is reached.
//  - info(), iterations() and error() before compute() throw std::logic_error, and a b or a
//    guess of the wrong size throws std::invalid_argument naming the sizes (Eigen asserts).
//  - Failures of the device (OpenCL errors, too little memory) throw; Eigen has no device.
//  - compute() through an IterativeSolverBase reference (Eigen's, not virtual) is noticed at
//    the next solve when it names another matrix; after changing A's values in place, call
//    compute() on the clcg type.
// The device is the one CLCG_DEVICE / CLCG_PLATFORM select, unless an Env is given.
#include <Eigen/Core>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/host_matrix_solver.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg {

namespace detail {
// An Eigen preconditioner that does nothing on the host: it names a preconditioner that clcg
// sets up and applies on the device. It has the interface IterativeSolverBase calls.
class DevicePreconditionerTag {
 public:
  DevicePreconditionerTag() = default;
  template <class MatrixType>
  explicit DevicePreconditionerTag(const MatrixType&) {}
  template <class MatrixType>
  DevicePreconditionerTag& analyzePattern(const MatrixType&) { return *this; }
  template <class MatrixType>
  DevicePreconditionerTag& factorize(const MatrixType&) { return *this; }
  template <class MatrixType>
  DevicePreconditionerTag& compute(const MatrixType&) { return *this; }
  Eigen::ComputationInfo info() const { return Eigen::Success; }
};
}  // namespace detail

// clcg's own preconditioners as Eigen preconditioner types (the Scalar is Eigen's convention).
template <class Scalar>
class ChebyshevPreconditioner : public detail::DevicePreconditionerTag {};
template <class Scalar>
class AmgPreconditioner : public detail::DevicePreconditionerTag {};
template <class Scalar>
class AutoPreconditioner : public detail::DevicePreconditionerTag {};

namespace detail {
// The device preconditioner an Eigen preconditioner type stands for.
template <class P>
struct device_preconditioner;
template <>
struct device_preconditioner<Eigen::IdentityPreconditioner> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::none;
};
template <class S>
struct device_preconditioner<Eigen::DiagonalPreconditioner<S>> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::jacobi;
};
template <class S, int UpLo, class Ordering>
struct device_preconditioner<Eigen::IncompleteCholesky<S, UpLo, Ordering>> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::ic0;
};
template <class S>
struct device_preconditioner<ChebyshevPreconditioner<S>> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::chebyshev;
};
template <class S>
struct device_preconditioner<AmgPreconditioner<S>> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::amg;
};
template <class S>
struct device_preconditioner<AutoPreconditioner<S>> {
  static constexpr solver::Preconditioner value = solver::Preconditioner::automatic;
};
template <class P, class = void>
struct is_device_preconditioner : std::false_type {};
template <class P>
struct is_device_preconditioner<P, std::void_t<decltype(device_preconditioner<P>::value)>> : std::true_type {};
}  // namespace detail

template <class MatrixType_, int UpLo_ = Eigen::Lower,
          class Preconditioner_ = Eigen::DiagonalPreconditioner<typename MatrixType_::Scalar>>
class ConjugateGradient;

}  // namespace clcg

namespace Eigen::internal {
template <class MatrixType_, int UpLo_, class Preconditioner_>
struct traits<clcg::ConjugateGradient<MatrixType_, UpLo_, Preconditioner_>> {
  using MatrixType = MatrixType_;
  using Preconditioner = Preconditioner_;
};
}  // namespace Eigen::internal

namespace clcg {

template <class MatrixType_, int UpLo_, class Preconditioner_>
class ConjugateGradient : public Eigen::IterativeSolverBase<ConjugateGradient<MatrixType_, UpLo_, Preconditioner_>> {
  using Base = Eigen::IterativeSolverBase<ConjugateGradient>;
  using Base::m_analysisIsOk;
  using Base::m_error;
  using Base::m_factorizationIsOk;
  using Base::m_info;
  using Base::m_isInitialized;
  using Base::m_iterations;
  using Base::m_preconditioner;

 public:
  using MatrixType = MatrixType_;
  using Scalar = typename MatrixType::Scalar;
  using RealScalar = typename Eigen::NumTraits<Scalar>::Real;
  using StorageIndex = typename MatrixType::StorageIndex;
  using Preconditioner = Preconditioner_;
  enum { UpLo = UpLo_ };

  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "clcg::ConjugateGradient solves float or double systems");
  static_assert(std::is_base_of_v<Eigen::SparseMatrixBase<MatrixType>, MatrixType>,
                "clcg::ConjugateGradient needs a sparse matrix type (no matrix-free operators)");
  static_assert(detail::is_device_preconditioner<Preconditioner>::value,
                "clcg::ConjugateGradient takes Eigen::IdentityPreconditioner, Eigen::DiagonalPreconditioner<Scalar>, "
                "Eigen::IncompleteCholesky<Scalar>, or clcg::ChebyshevPreconditioner / AmgPreconditioner / "
                "AutoPreconditioner<Scalar>");
  static_assert((UpLo_ & (Eigen::Lower | Eigen::Upper)) != 0, "UpLo must be Lower, Upper or Lower|Upper");

  ConjugateGradient() = default;
  explicit ConjugateGradient(const cl::Env& env) : env_(env) {}
  template <class MatrixDerived>
  explicit ConjugateGradient(const Eigen::EigenBase<MatrixDerived>& a) {
    compute(a);
  }
  template <class MatrixDerived>
  ConjugateGradient(const cl::Env& env, const Eigen::EigenBase<MatrixDerived>& a) : env_(env) {
    compute(a);
  }

  // The device to solve on; a computed matrix is uploaded again at the next solve.
  ConjugateGradient& setEnv(const cl::Env& env) {
    env_ = env;
    device_.reset();
    return *this;
  }
  const cl::Env& env() const {
    if (!env_) env_ = cl::Env::create();
    return *env_;
  }
  // Variant, SpMV kernel, reduction variant, history recording and precond_options (set before
  // compute()). Tolerance and iteration limit come from setTolerance / setMaxIterations.
  solver::Settings& settings() noexcept { return settings_; }

  // AMG's near-null space (clcg::AmgPreconditioner; set before compute()): vectors A nearly
  // annihilates, one a column (rows x k); or the coordinates of the nodes (nodes x d, a node's d
  // unknowns on consecutive rows), from which the rigid body modes are built and d becomes the
  // block size; setBlockSize(k) alone aggregates k rows a node with one constant a component.
  // std::invalid_argument where they cannot be a near-null space (multigrid/near_nullspace.hpp);
  // compute() checks them against A's rows.
  ConjugateGradient& setNearNullspace(const Eigen::MatrixXd& b) {
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = b;
    solver::NearNullspace space{std::size_t(b.rows()), std::size_t(b.cols()),
                                std::vector<double>(rows.data(), rows.data() + rows.size())};
    solver::check_near_nullspace(space, space.rows);
    settings_.precond_options.amg.near_nullspace = std::make_shared<const solver::NearNullspace>(std::move(space));
    return *this;
  }
  ConjugateGradient& setCoordinates(const Eigen::MatrixXd& x) {
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = x;
    settings_.precond_options.amg.near_nullspace = std::make_shared<const solver::NearNullspace>(
        solver::rigid_body_modes({rows.data(), std::size_t(rows.size())}, unsigned(x.cols())));
    settings_.precond_options.amg.block_size = unsigned(x.cols());
    return *this;
  }
  ConjugateGradient& setBlockSize(unsigned k) {
    settings_.precond_options.amg.block_size = k;
    return *this;
  }

  // Reads the pattern (Eigen's preconditioners analyse it where they are computed here).
  template <class MatrixDerived>
  ConjugateGradient& analyzePattern(const Eigen::EigenBase<MatrixDerived>& a) {
    this->grab(a.derived());
    if constexpr (computed_by_eigen) m_preconditioner.analyzePattern(this->matrix());
    m_isInitialized = true;
    m_analysisIsOk = true;
    m_factorizationIsOk = false;
    m_info = Eigen::Success;
    device_.reset();
    return *this;
  }
  // Uploads A, builds the kernels and sets the preconditioner up on the device. Called again
  // (without analyzePattern) with the analysed pattern and new values, it uploads the values
  // only and keeps what the preconditioner built from the pattern (AMG: aggregates, the
  // products' patterns); a different pattern throws std::invalid_argument.
  template <class MatrixDerived>
  ConjugateGradient& factorize(const Eigen::EigenBase<MatrixDerived>& a) {
    if (!m_analysisIsOk) throw std::logic_error("clcg::ConjugateGradient::factorize: call analyzePattern(A) first");
    this->grab(a.derived());
    if constexpr (computed_by_eigen) m_preconditioner.factorize(this->matrix());
    if (device_) update_values();
    else upload();
    m_factorizationIsOk = true;
    return *this;
  }
  template <class MatrixDerived>
  ConjugateGradient& compute(const Eigen::EigenBase<MatrixDerived>& a) {
    analyzePattern(a);
    return factorize(a);
  }

  // Eigen's Solve / SolveWithGuess expressions, with the sizes checked first.
  template <class Rhs>
  auto solve(const Eigen::MatrixBase<Rhs>& b) const {
    check_rhs(b.rows(), "solve");
    return Base::solve(b);
  }
  template <class Rhs>
  auto solve(const Eigen::SparseMatrixBase<Rhs>& b) const {
    check_rhs(b.rows(), "solve");
    return Base::solve(b);
  }
  template <class Rhs, class Guess>
  auto solveWithGuess(const Eigen::MatrixBase<Rhs>& b, const Guess& x0) const {
    check_rhs(b.rows(), "solveWithGuess");
    if (x0.rows() != this->cols() || x0.cols() != b.cols())
      throw std::invalid_argument("ConjugateGradient::solveWithGuess: the guess is " + std::to_string(x0.rows()) + " x " +
                                  std::to_string(x0.cols()) + " but must be " + std::to_string(this->cols()) + " x " +
                                  std::to_string(b.cols()));
    return Base::solveWithGuess(b, x0);
  }

  Eigen::ComputationInfo info() const {
    require_initialized();
    return m_info;
  }
  Eigen::Index iterations() const {
    require_initialized();
    return m_iterations;
  }
  RealScalar error() const {
    require_initialized();
    return m_error;
  }
  // The last solved column's full report: status, message, both residuals, history.
  const solver::SolveInfo& solveInfo() const noexcept { return solve_info_; }
  // The device preconditioner's set-up report (name, precision, set-up time, AMG levels, ...);
  // null before the first upload and for IdentityPreconditioner.
  const solver::PreconditionerReport* preconditionerReport() const {
    return device_ ? device_->solver->preconditioner_report() : nullptr;
  }

  // Eigen's IterativeSolverBase calls this for each column (dense, or a sparse one densified):
  // b in, x the guess in and the solution out.
  template <class Rhs, class Dest>
  void _solve_vector_with_guess_impl(const Rhs& b, Dest& x) const {
    require_initialized();
    if (!device_ || device_->stale(this->matrix())) upload();
    const Vector bc = b;
    Vector xc = x;
    const bool use_guess = !(xc.array() == Scalar(0)).all();
    solver::Settings& run = device_->solver->settings();
    run.tolerance = double(this->tolerance());
    run.max_iterations = std::int64_t(this->maxIterations());
    run.record_history = settings_.record_history;
    solve_info_ = device_->solver->solve(bc.data(), xc.data(), use_guess);
    x = xc;
    m_iterations = Eigen::Index(solve_info_.iterations);
    m_error = RealScalar(solve_info_.true_residual);
    m_info = solve_info_.status == solver::Status::converged ? Eigen::Success
             : solve_info_.status == solver::Status::max_iterations || solve_info_.status == solver::Status::stagnated ||
                     solve_info_.status == solver::Status::interrupted
                 ? Eigen::NoConvergence
                 : Eigen::NumericalIssue;  // breakdown (also of the preconditioner's set-up), non_finite, diverged
  }

 private:
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  static constexpr solver::ElementType element_type =
      std::is_same_v<Scalar, float> ? solver::ElementType::f32 : solver::ElementType::f64;
  static constexpr solver::Preconditioner kind = detail::device_preconditioner<Preconditioner>::value;
  // Eigen's own identity and diagonal preconditioners are computed as Eigen would (cheap, and
  // preconditioner() then reads as Eigen's); IC(0) is clcg's, set up for the device only.
  static constexpr bool computed_by_eigen = kind != solver::Preconditioner::ic0;
  static constexpr solver::Storage storage = (UpLo_ & Eigen::Lower) && (UpLo_ & Eigen::Upper) ? solver::Storage::full
                                             : (UpLo_ & Eigen::Lower)                          ? solver::Storage::lower
                                                                                               : solver::Storage::upper;

  // A on the device with its solver and preconditioner, and the matrix it was uploaded from.
  struct Device {
    std::unique_ptr<solver::HostMatrixSolver> solver;
    const void *values = nullptr, *outer = nullptr;
    Eigen::Index rows = 0, nnz = 0;
    template <class M>
    bool stale(const M& a) const {
      return a.valuePtr() != values || a.outerIndexPtr() != outer || a.rows() != rows || a.nonZeros() != nnz;
    }
  };

  void require_initialized() const {
    if (!m_isInitialized) throw std::logic_error("clcg::ConjugateGradient is not initialized: call compute(A) first");
  }
  void check_rhs(Eigen::Index rows, const char* what) const {
    require_initialized();
    if (rows != this->rows())
      throw std::invalid_argument(std::string("ConjugateGradient::") + what + ": b has " + std::to_string(rows) +
                                  " rows but the matrix has " + std::to_string(this->rows()));
  }

  void upload() const {
    const auto& a = this->matrix();
    if (a.rows() != a.cols())
      throw std::invalid_argument("ConjugateGradient needs a square matrix, got " + std::to_string(a.rows()) + " x " +
                                  std::to_string(a.cols()));
    auto device = std::make_unique<Device>();
    device->values = a.valuePtr();
    device->outer = a.outerIndexPtr();
    device->rows = a.rows();
    device->nnz = a.nonZeros();
    solver::Settings chosen = settings_;
    chosen.preconditioner = kind;
    // AutoPreconditioner hands the whole choice to the planner (krylov/plan.hpp): direct or CG,
    // and for CG the variant too; settings().variant applies to the named preconditioners.
    if (kind == solver::Preconditioner::automatic) chosen.variant = solver::CgVariant::automatic;
    chosen.confirm_true_residual = false;  // Eigen's stopping rule exactly
    device->solver =
        std::make_unique<solver::HostMatrixSolver>(env(), solver::to_host_csr(a, storage), element_type, chosen);
    if (device->solver->setup_failure()) m_info = Eigen::NumericalIssue;  // the preconditioner found A not SPD
    device_ = std::move(device);
  }

  void update_values() const {
    const auto& a = this->matrix();
    device_->solver->update_values(solver::to_host_csr(a, storage));
    device_->values = a.valuePtr();
    device_->outer = a.outerIndexPtr();
    m_info = device_->solver->setup_failure() ? Eigen::NumericalIssue : Eigen::Success;
  }

  mutable std::optional<cl::Env> env_;
  solver::Settings settings_ = [] {
    solver::Settings s;
    s.stagnation_window = 0;  // no early stop for stagnation
    s.divergence_factor = 0;  // or divergence: Eigen runs to the limit
    return s;
  }();
  mutable std::unique_ptr<Device> device_;
  mutable solver::SolveInfo solve_info_;
};

}  // namespace clcg
