#include "clcg/solver/krylov/host_matrix_solver.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool needs_host_matrix(Preconditioner p) { return p == Preconditioner::ic0 || p == Preconditioner::amg; }

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
  check_device_memory(env_.info(),
                      bytes_needed(n, nnz, type_) + solver_vector_bytes(n, type_, settings.preconditioner, true),
                      std::uint64_t(std::max<std::size_t>(nnz, 1)) * reduction::element_size(type_), "CG solve");
  staging_ = std::make_unique<cl::StagedUpload>(env_);
  device_a_ = DeviceCsrMatrix(env_, host_, type_, staging_.get());
  upload_seconds_ = seconds_since(start);
  resolved_ = settings;
  resolved_.precision = type_;
  resolved_ = resolve_automatic(env_.info(), resolved_, n, nnz);
  // IC(0) and AMG set up on the host matrix in double (never one read back from the device).
  std::optional<HostCsr> copy;
  if (!owned_ && needs_host_matrix(resolved_.preconditioner)) copy = to_host_csr(host_);
  const HostCsr* host_matrix = owned_ ? &*owned_ : copy ? &*copy : nullptr;
  try {
    preconditioner_ = make_preconditioner(env_, device_a_, host_matrix, resolved_.preconditioner, resolved_.precond_options);
  } catch (const PreconditionerBreakdown& failure) {
    setup_failure_ = failure.what();
  }
  if (!setup_failure_) cg_ = make_cg_solver(env_, device_a_, resolved_, preconditioner_);
  b_ = make_vector(env_, type_, n);
  x_ = make_vector(env_, type_, n);
  setup_seconds_ = seconds_since(start);
}

SolveInfo HostMatrixSolver::solve(const void* b, void* x, bool use_guess, bool true_residual) {
  if (setup_failure_) return setup_failure_info();
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
  ::cl::Buffer solution = x;  // the CG solver writes through the handle, not into it
  return cg_->solve(b, solution, use_guess, true_residual);  // on the device: no host pass over A
}

SolveInfo HostMatrixSolver::setup_failure_info() const {
  SolveInfo info;
  info.status = Status::breakdown;
  info.message = *setup_failure_;
  info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return info;
}

}  // namespace clcg::solver
