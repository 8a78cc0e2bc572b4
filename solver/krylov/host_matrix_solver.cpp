#include "clcg/solver/krylov/host_matrix_solver.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/solver/direct/dense_device_cholesky.hpp"
#include "clcg/solver/krylov/direct_solve.hpp"
#include "clcg/solver/krylov/direct_watch.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool needs_host_matrix(Preconditioner p) { return p == Preconditioner::ic0; }

}  // namespace

HostMatrixSolver::HostMatrixSolver(const cl::Env& env, HostCsr a, ElementType type, const Settings& settings)
    : HostMatrixSolver(env, CsrView(), type, settings, std::move(a)) {}

HostMatrixSolver::HostMatrixSolver(const cl::Env& env, const CsrView& a, ElementType type, const Settings& settings)
    : HostMatrixSolver(env, a, type, settings, std::nullopt) {}

HostMatrixSolver::HostMatrixSolver(const cl::Env& env, const CsrView& view, ElementType type, const Settings& settings,
                                   std::optional<HostCsr> owned)
    : env_(env), owned_(std::move(owned)), host_(owned_ ? CsrView(*owned_) : view), type_(type) {
  if (host_.rows != host_.cols)
    throw std::invalid_argument("CG needs a square matrix, got " + std::to_string(host_.rows) + " x " +
                                std::to_string(host_.cols));
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = rows(), nnz = static_cast<std::size_t>(host_.nnz());
  require_precision(env_.info(), type_);
  Settings requested = settings;
  requested.precision = type_;
  plan_ = plan_solve(env_.info(), requested, n, nnz, &host_);
  resolved_ = plan_.settings;
  if (plan_.method == Method::direct) {
    set_up_direct();  // A stays on the host: nothing to upload
  } else {
    check_device_memory(env_.info(),
                        bytes_needed(n, nnz, type_) + solver_vector_bytes(n, type_, resolved_.preconditioner, true),
                        std::uint64_t(std::max<std::size_t>(nnz, 1)) * reduction::element_size(type_), "CG solve");
    const auto upload_start = std::chrono::steady_clock::now();
    staging_ = std::make_unique<cl::StagedUpload>(env_);
    device_a_ = DeviceCsrMatrix(env_, host_, type_, staging_.get());
    upload_seconds_ = seconds_since(upload_start);
    set_up_cg();
  }
  b_ = make_vector(env_, type_, n);
  x_ = make_vector(env_, type_, n);
  setup_seconds_ = seconds_since(start);
}

// The preconditioner (set up anew, or refreshed for new values) and the CG solver on device_a_.
void HostMatrixSolver::set_up_cg() {
  // IC(0) sets up on the host matrix in double (never one read back from the device).
  std::optional<HostCsr> copy;
  if (!owned_ && needs_host_matrix(resolved_.preconditioner)) copy = to_host_csr(host_);
  const HostCsr* host_matrix = owned_ ? &*owned_ : copy ? &*copy : nullptr;
  const Settings settings = cg_ ? cg_->settings() : resolved_;  // what the caller changed since
  cg_.reset();
  try {
    preconditioner_ = refresh_preconditioner(env_, std::move(preconditioner_), device_a_, host_matrix,
                                             resolved_.preconditioner, resolved_.precond_options);
  } catch (const PreconditionerBreakdown& failure) {
    setup_failure_ = failure.what();
    preconditioner_.reset();
  }
  if (!setup_failure_) cg_ = make_cg_solver(env_, device_a_, settings, preconditioner_);
}

void HostMatrixSolver::update_values(const CsrView& a) {
  if (a.rows != host_.rows || a.cols != host_.cols || a.nnz() != host_.nnz() ||
      a.row_ptr.size() != host_.row_ptr.size() || a.values.size() != host_.values.size())
    throw std::invalid_argument("update_values: the matrix is " + std::to_string(a.rows) + " x " +
                                std::to_string(a.cols) + " with " + std::to_string(a.values.size()) +
                                " values, the solver's " + std::to_string(host_.rows) + " x " +
                                std::to_string(host_.cols) + " with " + std::to_string(host_.nnz()) +
                                ": new values need the same pattern");
  const auto start = std::chrono::steady_clock::now();
  if (a.row_ptr.data() != host_.row_ptr.data() || a.col_idx.data() != host_.col_idx.data()) {
    const auto row = std::mismatch(a.row_ptr.begin(), a.row_ptr.end(), host_.row_ptr.begin());
    if (row.first != a.row_ptr.end())
      throw std::invalid_argument("update_values: row pointer " + std::to_string(row.first - a.row_ptr.begin()) +
                                  " differs from the solver's: new values need the same pattern");
    const auto col = std::mismatch(a.col_idx.begin(), a.col_idx.end(), host_.col_idx.begin());
    if (col.first != a.col_idx.end())
      throw std::invalid_argument("update_values: column index of entry " +
                                  std::to_string(col.first - a.col_idx.begin()) +
                                  " differs from the solver's: new values need the same pattern");
  }
  if (owned_) std::copy(a.values.begin(), a.values.end(), owned_->values.begin());
  else host_ = a;
  setup_failure_.reset();
  if (plan_.method == Method::direct) {
    set_up_direct();
  } else {
    const auto upload_start = std::chrono::steady_clock::now();
    device_a_.upload_values(env_, host_.values, staging_.get());
    upload_seconds_ += seconds_since(upload_start);
    set_up_cg();
  }
  update_seconds_ = seconds_since(start);
}

void HostMatrixSolver::set_up_direct() {
  const double built_before = env_.programs().build_seconds();  // the device factor's kernels
  const auto start = std::chrono::steady_clock::now();
  try {  // A stays on the host: the factor is the whole solver
    if (plan_.factor_on_device)
      check_device_memory(env_.info(), DenseDeviceCholesky::device_bytes(rows()),
                          DenseDeviceCholesky::device_bytes(rows()), "dense Cholesky factor");
    direct_ = std::make_shared<CholeskyPreconditioner>(env_, host_, type_, plan_.analysis, plan_.factor_on_device);
    preconditioner_ = direct_;
  } catch (const PreconditionerBreakdown& failure) {
    setup_failure_ = failure.what();
    return;
  }
  const double factorize = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double analyse = plan_.analysis ? plan_.analysis->estimate().analyse_seconds : 0.0;
  direct_->record_setup(analyse + factorize, env_.programs().build_seconds() - built_before,
                        reduction::type_name(type_));
}

SolveInfo HostMatrixSolver::solve_direct(const void* b, void* x, bool use_guess) {
  const std::size_t n = rows();
  if (type_ == ElementType::f64)
    return solve_directly(host_, direct_->factor(), {static_cast<const double*>(b), n}, {static_cast<double*>(x), n},
                          use_guess, settings());
  const float* bf = static_cast<const float*>(b);
  float* xf = static_cast<float*>(x);
  const std::vector<double> bd(bf, bf + n);
  std::vector<double> xd(xf, xf + n);
  const SolveInfo info = solve_directly(host_, direct_->factor(), bd, xd, use_guess, settings());
  std::copy(xd.begin(), xd.end(), xf);
  return info;
}

SolveInfo HostMatrixSolver::solve(const void* b, void* x, bool use_guess, bool true_residual) {
  if (setup_failure_) return setup_failure_info();
  if (direct_) return solve_direct(b, x, use_guess);
  const std::size_t bytes = rows() * reduction::element_size(type_);
  const auto start = std::chrono::steady_clock::now();
  cl::checked("uploading b and x0", [&] {
    staging_->write(b_, b, bytes);
    if (use_guess) staging_->write(x_, x, bytes);
    staging_->finish();
  });
  upload_seconds_ += seconds_since(start);
  SolveInfo info = solve(b_, x_, use_guess, true_residual);
  cl::checked("reading x back", [&] {
    if (bytes) env_.queue().enqueueReadBuffer(x_, CL_TRUE, 0, bytes, x);
  });
  return info;
}

SolveInfo HostMatrixSolver::solve(const ::cl::Buffer& b, const ::cl::Buffer& x, bool use_guess, bool true_residual) {
  if (setup_failure_) return setup_failure_info();
  if (direct_) {  // the vectors cross to the host and back: the factor lives there
    const std::size_t bytes = rows() * reduction::element_size(type_);
    std::vector<char> host_b(bytes), host_x(bytes);
    cl::checked("reading b (and x0) for the direct solve", [&] {
      if (!bytes) return;
      env_.queue().enqueueReadBuffer(b, CL_TRUE, 0, bytes, host_b.data());
      if (use_guess) env_.queue().enqueueReadBuffer(x, CL_TRUE, 0, bytes, host_x.data());
    });
    const SolveInfo info = solve_direct(host_b.data(), host_x.data(), use_guess);
    cl::checked("writing x after the direct solve", [&] {
      if (bytes) env_.queue().enqueueWriteBuffer(x, CL_TRUE, 0, bytes, host_x.data());
    });
    return info;
  }
  ::cl::Buffer solution = x;  // the CG solver writes through the handle, not into it
  if (!plan_.watch_for_direct) return cg_->solve(b, solution, use_guess, true_residual);  // no host pass over A
  WatchedSolve watched = solve_watched(env_.info(), plan_, host_, *cg_, b, solution, use_guess, true_residual);
  if (!watched.direct) return watched.cg;
  plan_ = std::move(*watched.direct);  // from now on: the direct method, from CG's x this time
  set_up_direct();
  if (setup_failure_) return setup_failure_info();
  SolveInfo info = solve(b, x, /*use_guess=*/true, true_residual);
  info.seconds += watched.cg.seconds - watched.check_seconds;  // (the analysis and the factor are the set-up's)
  info.message = std::to_string(watched.cg_steps) + " CG steps, then " + info.message;
  return info;
}

SolveInfo HostMatrixSolver::setup_failure_info() const {
  SolveInfo info;
  info.status = Status::breakdown;
  info.message = *setup_failure_;
  info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return info;
}

}  // namespace clcg::solver
