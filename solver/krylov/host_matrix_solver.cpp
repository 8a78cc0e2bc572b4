#include "clcg/solver/krylov/host_matrix_solver.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

namespace {

std::size_t element_bytes(ElementType type) { return type == ElementType::f32 ? sizeof(float) : sizeof(double); }

}  // namespace

HostMatrixSolver::HostMatrixSolver(const cl::Env& env, HostCsr a, ElementType type, const Settings& settings)
    : env_(env), host_(std::move(a)), type_(type) {
  if (host_.rows != host_.cols)
    throw std::invalid_argument("CG needs a square matrix, got " + std::to_string(host_.rows) + " x " +
                                std::to_string(host_.cols));
  const auto start = std::chrono::steady_clock::now();
  require_precision(env_.info(), type_);
  const DeviceCsrMatrix device_a(env_, host_, type_);
  resolved_ = settings;
  resolved_.precision = type_;
  resolved_ = resolve_automatic(env_.info(), resolved_, rows(), static_cast<std::size_t>(host_.nnz()));
  try {
    preconditioner_ = make_preconditioner(env_, device_a, &host_, resolved_.preconditioner, resolved_.precond_options);
  } catch (const PreconditionerBreakdown& failure) {
    setup_failure_ = failure.what();
  }
  if (!setup_failure_) cg_ = make_cg_solver(env_, device_a, resolved_, preconditioner_);
  b_ = make_vector(env_, type_, rows());
  x_ = make_vector(env_, type_, rows());
  run_settings_ = resolved_;
  setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SolveInfo HostMatrixSolver::solve(const void* b, void* x, bool use_guess) {
  SolveInfo info;
  if (setup_failure_) {
    info.status = Status::breakdown;
    info.message = *setup_failure_;
    info.true_residual = info.recursive_residual = std::numeric_limits<double>::infinity();
    return info;
  }
  const std::size_t n = rows(), bytes = n * element_bytes(type_);
  cl::checked("uploading b and x0", [&] {
    if (!n) return;
    env_.queue().enqueueWriteBuffer(b_, CL_TRUE, 0, bytes, b);
    if (use_guess) env_.queue().enqueueWriteBuffer(x_, CL_TRUE, 0, bytes, x);
  });
  Settings& run = cg_->settings();
  run.tolerance = run_settings_.tolerance;
  run.max_iterations = run_settings_.max_iterations;
  run.record_history = run_settings_.record_history;
  run.should_stop = run_settings_.should_stop;
  run.on_iteration = run_settings_.on_iteration;
  run.stagnation_window = run_settings_.stagnation_window;
  run.divergence_factor = run_settings_.divergence_factor;
  info = cg_->solve(b_, x_, use_guess, /*true_residual=*/true);  // on the device: no host pass over A
  cl::checked("reading x back", [&] {
    if (n) env_.queue().enqueueReadBuffer(x_, CL_TRUE, 0, bytes, x);
  });
  return info;
}

}  // namespace clcg::solver
