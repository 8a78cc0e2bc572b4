#pragma once
// The one-call CG APIs: on the caller's device buffers, or host in, host out. Both pick the
// variant from Settings (krylov/settings.hpp) and report a SolveInfo (krylov/solve_info.hpp).
#include <Eigen/Core>

#include <cstddef>
#include <cstdint>

#include "clcg/cl/env.hpp"
#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// Matrix and vectors stay the caller's cl::Buffers on env's queue; no Eigen on the hot path.
// x is the initial guess when use_guess is true. The true residual is computed on the device.
SolveInfo solve(const cl::Env& env, const DeviceCsrMatrix& a, const ::cl::Buffer& b, ::cl::Buffer& x,
                const Settings& settings = {}, bool use_guess = false);

// Host in, host out, as the planner decides (HostMatrixSolver): CG uploads A (full storage, read
// in place when compressed) and b in settings.precision, solves, reads x back; the direct
// method stays on the host. The true residual is computed in double: on the device in a double
// CG solve, on the host from the double matrix in a float one and in the direct method.
struct HostSolution {
  Eigen::VectorXd x;
  SolveInfo info;
  PreconditionerReport preconditioner;  // name "" for none; set-up time, figures, levels
  Plan plan;                            // direct or CG, what `auto` resolved to, and why
  double upload_seconds = 0;            // A, b and x0 to the device (HostMatrixSolver::upload_seconds)
};
HostSolution solve(const cl::Env& env, const HostMatrix& a, const Eigen::VectorXd& b, const Settings& settings = {},
                   const Eigen::VectorXd* x0 = nullptr);

// ||b - A x|| / ||b|| in double on the host; the absolute ||b - A x|| when b = 0.
double relative_residual(const CsrView& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x);

// Throws cl::DeviceCapabilityError (an OpenCL / device error; cg-solve exit 3) when `type` is
// double and the device has no fp64, suggesting float (cg-solve --precision float).
void require_precision(const cl::DeviceInfo& device, ElementType type);

// Device memory a CG solve needs beyond the matrix: its work vectors (and b and x when
// `with_rhs_and_solution`). Checked against the device before allocating.
std::uint64_t solver_vector_bytes(std::size_t rows, ElementType type, Preconditioner preconditioner,
                                  bool with_rhs_and_solution);

}  // namespace clcg::solver
