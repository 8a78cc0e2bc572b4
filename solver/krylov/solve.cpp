#include "clcg/solver/krylov/solve.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/host_matrix_solver.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

void require_precision(const cl::DeviceInfo& device, ElementType type) {
  if (type == ElementType::f64 && !device.fp64)
    throw cl::DeviceCapabilityError("CG solve in double", "device " + device.name +
                                                              " has no double precision (cl_khr_fp64); solve in float "
                                                              "instead (cg-solve --precision float)");
}

std::uint64_t solver_vector_bytes(std::size_t rows, ElementType type, Preconditioner preconditioner,
                                  bool with_rhs_and_solution) {
  std::uint64_t vectors = 3;  // r, p, q
  if (preconditioner == Preconditioner::jacobi) vectors += 2;  // z, 1/diag(A)
  else if (preconditioner != Preconditioner::none) vectors += 1;  // z (the preconditioner checks its own)
  if (with_rhs_and_solution) vectors += 2;                     // b, x
  return vectors * std::uint64_t(rows) * reduction::element_size(type);
}

namespace {

// A set-up that found A not SPD ends the solve as a breakdown, before any step.
SolveInfo preconditioner_failed(const PreconditionerBreakdown& e) {
  SolveInfo info;
  info.status = Status::breakdown;
  info.message = e.what();
  info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return info;
}

}  // namespace

SolveInfo solve(const cl::Env& env, const DeviceCsrMatrix& a, const ::cl::Buffer& b, ::cl::Buffer& x,
                const Settings& settings, bool use_guess) {
  std::unique_ptr<CgMethod> solver;
  try {
    solver = make_cg_solver(env, a, settings);
  } catch (const PreconditionerBreakdown& e) {
    return preconditioner_failed(e);
  }
  return solver->solve(b, x, use_guess, true);
}

double relative_residual(const CsrView& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  if (b.size() != a.rows || x.size() != a.cols)
    throw std::invalid_argument("relative_residual: sizes do not match the matrix");
  double rr = 0, bb = 0;
  for (std::int32_t i = 0; i < a.rows; ++i) {
    double ax = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ax += a.values[k] * x[a.col_idx[k]];
    const double ri = b[i] - ax;
    rr += ri * ri;
    bb += b[i] * b[i];
  }
  return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

HostSolution solve(const cl::Env& env, const HostMatrix& a, const Eigen::VectorXd& b, const Settings& settings,
                   const Eigen::VectorXd* x0) {
  if (b.size() != a.rows())
    throw std::invalid_argument("b has " + std::to_string(b.size()) + " entries but the matrix has " +
                                std::to_string(a.rows()) + " rows");
  if (x0 && x0->size() != a.cols())
    throw std::invalid_argument("x0 has " + std::to_string(x0->size()) + " entries but the matrix has " +
                                std::to_string(a.cols()) + " columns");
  // A's own arrays, read in place where they are compressed (the reader's and the generators'
  // matrices are): no host copy of A.
  std::optional<HostCsr> copy;
  if (!a.isCompressed()) copy = to_host_csr(a, Storage::full);
  HostMatrixSolver solver(env, copy ? CsrView(*copy) : csr_view(a), settings.precision, settings);
  HostSolution out;
  const bool use_guess = x0 != nullptr;
  // In double the device computes the true residual in double from the same matrix; in float
  // its matrix is rounded, so the residual of the double system is computed on the host.
  const bool on_device = settings.precision == ElementType::f64;
  if (settings.precision == ElementType::f64) {
    out.x = use_guess ? *x0 : Eigen::VectorXd::Zero(a.rows());
    out.info = solver.solve(b.data(), out.x.data(), use_guess, on_device);
  } else {
    const Eigen::VectorXf bf = b.cast<float>();
    Eigen::VectorXf xf = use_guess ? Eigen::VectorXf(x0->cast<float>()) : Eigen::VectorXf::Zero(a.rows());
    out.info = solver.solve(bf.data(), xf.data(), use_guess, on_device);
    out.x = xf.cast<double>();
  }
  out.plan = solver.plan();  // after the solve: a watched CG may have handed over to a factor
  if (const PreconditionerReport* report = solver.preconditioner_report()) out.preconditioner = *report;
  out.upload_seconds = solver.upload_seconds();
  if (solver.setup_failure()) out.x.setZero();  // no step was taken: x = 0, as for any breakdown before one
  else if (!on_device) out.info.true_residual = relative_residual(solver.host(), b, out.x);
  return out;
}

}  // namespace clcg::solver
