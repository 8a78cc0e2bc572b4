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

HostMatrixSolver::HostMatrixSolver(const cl::Env& env, HostCsr a, ElementType type, const Settings& settings)
    : env_(env), host_(std::move(a)), type_(type) {
  if (host_.rows != host_.cols)
    throw std::invalid_argument("CG needs a square matrix, got " + std::to_string(host_.rows) + " x " +
                                std::to_string(host_.cols));
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = rows(), nnz = static_cast<std::size_t>(host_.nnz());
  require_precision(env_.info(), type_);
  check_device_memory(env_.info(),
                      bytes_needed(n, nnz, type_) + solver_vector_bytes(n, type_, settings.preconditioner, true),
                      std::uint64_t(std::max<std::size_t>(nnz, 1)) * reduction::element_size(type_), "CG solve");
  const DeviceCsrMatrix device_a(env_, host_, type_);
  resolved_ = settings;
  resolved_.precision = type_;
  resolved_ = resolve_automatic(env_.info(), resolved_, n, nnz);
  try {  // set up here, where the host matrix is at hand (IC(0) and AMG need it: no read-back)
    preconditioner_ = make_preconditioner(env_, device_a, &host_, resolved_.preconditioner, resolved_.precond_options);
  } catch (const PreconditionerBreakdown& failure) {
    setup_failure_ = failure.what();
  }
  if (!setup_failure_) cg_ = make_cg_solver(env_, device_a, resolved_, preconditioner_);
  b_ = make_vector(env_, type_, n);
  x_ = make_vector(env_, type_, n);
  setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SolveInfo HostMatrixSolver::solve(const void* b, void* x, bool use_guess, bool true_residual) {
  if (setup_failure_) return setup_failure_info();
  const std::size_t bytes = rows() * reduction::element_size(type_);
  cl::checked("uploading b and x0", [&] {
    if (!bytes) return;
    env_.queue().enqueueWriteBuffer(b_, CL_TRUE, 0, bytes, b);
    if (use_guess) env_.queue().enqueueWriteBuffer(x_, CL_TRUE, 0, bytes, x);
  });
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
