#pragma once
// What every CG variant offers, and the factory that picks one from Settings::variant.
#include <memory>

#include "clcg/cl/env.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// A CG solver bound to one device matrix: kernels built and work vectors allocated once, so
// solve() can run many times. Not thread-safe (kernels hold arguments): one per thread.
class CgMethod {
 public:
  virtual ~CgMethod() = default;
  // b and x: rows() elements of the matrix's type on the Env's context. use_guess: x holds
  // x0, else x0 = 0. true_residual: also compute ||b - A x|| / ||b|| on the device (in double
  // where the device has fp64); false leaves SolveInfo::true_residual NaN for the caller.
  virtual SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) = 0;
  virtual Settings& settings() noexcept = 0;  // tolerance / limits may change between solves
  // The preconditioner it applies (set up once, when the solver was built); null for none.
  virtual const DevicePreconditioner* preconditioner() const noexcept = 0;
};

// The solver settings.variant names (automatic: resolve_automatic's, krylov/plan.hpp), bound to `a`, applying
// `preconditioner` (set up for `a`; null builds the one settings.preconditioner names, reading
// A back from the device where its set-up needs the host matrix).
std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                                         std::shared_ptr<DevicePreconditioner> preconditioner = nullptr);

}  // namespace clcg::solver
