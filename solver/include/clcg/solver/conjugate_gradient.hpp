#pragma once
// Conjugate gradient (CG) and Jacobi-preconditioned CG with every vector resident on the
// device. Each iteration sets kernel arguments and enqueues kernels (SpMV, fused updates,
// p = z + beta p), and gets its dot products from clcg::reduction, reading back only the
// per-group partials, never a vector.
//
// Per iteration (n rows, nnz nonzeros, s = sizeof(REAL), plain CG):
//   q = A p            nnz (s + 4) + (n + 1) 4 + 2 n s bytes   (x gathers counted once)
//   p.q                2 n s                                    host sync 1 (partials)
//   x += a p, r -= a q 5 n s
//   r.r                n s                                      host sync 2 (partials)
//   p = r + b p        3 n s
// Jacobi adds z = r / diag(A) to the update (+2 n s) and reads z with r in one MultiDot
// pass (+n s). Two host syncs per iteration either way.
//
// Stopping rule (Eigen's): ||r_k|| <= tol * ||b|| on the recursive residual, or k reaches
// the iteration limit; by default the true residual is then checked once on the device and a
// drifted recursive residual replaced (Settings::confirm_true_residual). b = 0 gives x = 0 at
// 0 iterations. Afterwards the TRUE residual ||b - A x|| / ||b|| is recomputed in double and
// reported next to the recursive one.
//
// Iteration count: the number of SpMV + update steps performed (textbook k). Eigen 3.4's
// ConjugateGradient reports k - 1 when it converges inside its loop (it breaks before
// counting the step), and k when it stops at the iteration limit.
#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/csr_matrix.hpp"
#include "clcg/solver/fused_ops.hpp"
#include "clcg/solver/matrix_market.hpp"
#include "clcg/solver/opencl_backend.hpp"
#include "clcg/solver/solve_info.hpp"

namespace clcg::solver {

enum class Preconditioner { none, jacobi };

// How the iteration is put on the device. All compute CG's iterates (same up to rounding)
// and stop by the same rule; cg-solve --variant picks one.
//   textbook   one kernel per operation; dots through clcg::reduction; 2 host syncs/step
//   fused      two passes at DEVICE.md's fused floor (72 n bytes + the matrix): the SpMV
//              builds p = z + beta p on the fly and writes p.q partials, the r(/z) update
//              writes r.r (and r.z) partials; 2 host syncs/step
//   pipelined  Ghysels-Vanroose pipelined CG: one fused update writing all dot partials,
//              whose read-back overlaps the next SpMV; 1 host sync/step, more vectors
//   single     Chronopoulos-Gear CG in one fused pass (SpMV + every update + both dots):
//              1 kernel and 1 host sync/step, 80 n bytes + the matrix
enum class CgVariant { textbook, fused, pipelined, single };
std::string_view cg_variant_name(CgVariant v) noexcept;
CgVariant parse_cg_variant(std::string_view name);  // std::invalid_argument listing the names
std::span<const CgVariant> all_cg_variants() noexcept;
std::string_view preconditioner_name(Preconditioner p) noexcept;  // "none", "jacobi"
Preconditioner parse_preconditioner(std::string_view name);       // std::invalid_argument

struct Settings {
  double tolerance = 1e-8;          // relative: stop when ||r|| <= tolerance * ||b||
  std::int64_t max_iterations = -1;  // < 0: 2 * rows (Eigen's default); 0 checks x0 only
  Preconditioner preconditioner = Preconditioner::none;
  CgVariant variant = CgVariant::fused;  // the fastest as accurate as textbook (docs/PERFORMANCE.md)
  // Precision of the device vectors and matrix for the host-matrix APIs. The buffer API uses
  // the DeviceCsrMatrix's type (its buffers must match) and ignores this.
  ElementType precision = ElementType::f64;
  bool record_history = false;      // fill SolveInfo::history (no extra host syncs)
  SpmvKernel spmv = SpmvKernel::automatic;
  unsigned spmv_vector_size = 0;    // 0: from the mean row length
  reduction::Options reduction = {};  // reduction variant and launch shape for the dots
  // When the recursive residual meets the tolerance, recompute b - A x on the device (one
  // SpMV + one reduction, in double where the device has fp64) and, if rounding made the two
  // drift apart so that the true residual is above the tolerance, restart from x with the true
  // residual (at most max_residual_replacements times; the steps count toward the limit). If
  // the true residual is still above the tolerance after that, or a restart did not halve it
  // (a precision floor: e.g. float asked for 1e-10), the solve stops with
  // Status::max_iterations and a message saying the tolerance is below the precision's reach).
  // Eigen does not do this; the Eigen facade turns it off to keep Eigen's stopping rule.
  bool confirm_true_residual = true;
  // A solve that goes nowhere stops early (checked once per step on the recursive residual,
  // no device work). Status::stagnated: the smallest residual so far has not been beaten by
  // 0.1 % in the last max(stagnation_window, 3k/4) steps (k: steps so far), i.e. for the
  // window and since the first quarter of the solve. Status::diverged: the residual exceeds
  // divergence_factor * max(||r_0||, ||b||); on an SPD matrix CG's residual stays below
  // sqrt(cond(A)) ||r_0|| (its A-norm error only shrinks), and cond(A) > 1e16 is beyond double
  // anyway. 0 turns either check off. Measured on the project's matrices (docs/RELIABILITY.md),
  // neither fires on a solve that still converges, however slowly; the Eigen facade turns both
  // off to keep Eigen's stopping rule.
  std::size_t stagnation_window = 2000;
  double divergence_factor = 1e8;
  // Called once per step (cheap: no extra device work), from the thread running solve():
  // should_stop returning true ends the solve with Status::interrupted ("interrupted at
  // iteration k", x the last iterate); on_iteration gets the step and its recursive relative
  // residual ||r_k|| / ||b|| (a progress display; keep it fast). Either may be empty.
  std::function<bool()> should_stop;
  std::function<void(std::size_t iteration, double residual)> on_iteration;

  std::size_t iteration_limit(std::size_t rows) const noexcept {
    return max_iterations < 0 ? 2 * rows : static_cast<std::size_t>(max_iterations);
  }
};

inline constexpr std::size_t max_residual_replacements = 10;

// What every CG variant offers: solve A x = b for the matrix it was built for.
class CgMethod {
 public:
  virtual ~CgMethod() = default;
  // b and x: rows() elements of the matrix's type on the Env's context. use_guess: x holds
  // x0, else x0 = 0. true_residual: also compute ||b - A x|| / ||b|| on the device (in double
  // where the device has fp64); false leaves SolveInfo::true_residual NaN for the caller.
  virtual SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) = 0;
  virtual Settings& settings() noexcept = 0;  // tolerance / limits may change between solves
};

// The solver settings.variant names, bound to `a`.
std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings);

// ||b - A x|| / ||b|| on the device: r = b - A x in double where the device has fp64 (in the
// matrix's precision otherwise), then a sum of squares through clcg::reduction.
class TrueResidual {
 public:
  TrueResidual(const cl::Env& env, const Spmv& spmv, const reduction::Options& options);
  double relative(const ::cl::Buffer& b, const ::cl::Buffer& x, double bb);  // bb = ||b||^2

 private:
  cl::Env env_;
  Spmv spmv_;  // shares the solver's kernel objects; used from the same thread
  VectorOps ops_;
  std::size_t n_;
  reduction::Options options_;
  ::cl::Buffer residual_;  // allocated on first use
  std::optional<reduction::Reducer> sumsq_;
};

// A CG solver bound to one device matrix: builds its kernels and allocates its work vectors
// (r, p, q and, for Jacobi, z and 1/diag(A)) once; solve() can then run many times.
// Not thread-safe (kernels hold arguments): one per thread.
class CgSolver : public CgMethod {
 public:
  CgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings);

  // Solves A x = b. b and x are buffers of rows() elements of the matrix's type, on env's
  // context. use_guess: x holds the initial guess x0, else x0 = 0. true_residual: also
  // compute ||b - A x|| / ||b|| on the device (SpMV + reduction; in double when the device
  // has fp64, in the matrix's precision otherwise); false leaves SolveInfo::true_residual
  // NaN for the caller to fill (the Eigen facade does it on the host).
  SolveInfo solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual = true) override;

  const Settings& settings() const noexcept { return settings_; }
  Settings& settings() noexcept override { return settings_; }  // tolerance / limits may change between solves
  std::size_t rows() const noexcept { return n_; }
  const Spmv& spmv() const noexcept { return spmv_; }

 private:
  struct Dots {
    double rr = 0;  // r.r
    double rz = 0;  // r.z (= r.r without a preconditioner)
  };
  Dots residual_dots();
  ::cl::Buffer& direction_source() noexcept { return z_() ? z_ : r_; }  // z = M^-1 r, or r itself
  // p = z + beta p; q = A p; returns p.q. (fused: also the x update deferred from the last step)
  double direction_and_spmv(double beta, ::cl::Buffer& x);
  // x += alpha p (fused: deferred to the next pass 1); r -= alpha q (z = M^-1 r); r.r, r.z
  Dots update(double alpha, ::cl::Buffer& x);
  void settle_x(::cl::Buffer& x);  // applies a deferred x update; x is then the current iterate

  cl::Env env_;
  DeviceCsrMatrix a_;
  Settings settings_;
  std::size_t n_;
  Spmv spmv_;
  VectorOps ops_;
  reduction::Reducer dot_;    // p.q
  reduction::Reducer sumsq_;  // r.r, b.b
  std::optional<reduction::MultiDot> rr_rz_;  // (r.r, r.z) in one pass, Jacobi only
  ::cl::Buffer r_, p_, q_, z_, inv_diag_;
  std::optional<FusedOps> fused_;  // CgVariant::fused
  ::cl::Buffer p_old_;             // fused: the previous direction (pass 1 reads it while writing p)
  double x_owed_ = 0;              // fused: x += x_owed_ p is still to be applied
  TrueResidual true_residual_;
};

// The one-call buffer API: matrix and vectors stay the caller's cl::Buffers on env's queue,
// no Eigen on the hot path. settings.max_iterations etc. as above; x is the initial guess
// when use_guess is true. The true residual is computed on the device (see CgSolver::solve).
SolveInfo solve(const cl::Env& env, const DeviceCsrMatrix& a, const ::cl::Buffer& b, ::cl::Buffer& x,
                const Settings& settings = {}, bool use_guess = false);

// Host in, host out: uploads A (full storage) and b in settings.precision, solves, reads x
// back and computes the true residual in double on the host from the double matrix.
struct HostSolution {
  Eigen::VectorXd x;
  SolveInfo info;
};
HostSolution solve(const cl::Env& env, const HostMatrix& a, const Eigen::VectorXd& b, const Settings& settings = {},
                   const Eigen::VectorXd* x0 = nullptr);

// ||b - A x|| / ||b|| in double on the host; the absolute ||b - A x|| when b = 0.
double relative_residual(const HostCsr& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x);

// Throws cl::DeviceCapabilityError (an OpenCL / device error; cg-solve exit 3) when `type` is
// double and the device has no fp64, suggesting float (cg-solve --precision float).
void require_precision(const cl::DeviceInfo& device, ElementType type);

// Device memory a CgSolver needs beyond the matrix: its work vectors (and b and x when
// `with_rhs_and_solution`). Checked against the device before allocating.
std::uint64_t solver_vector_bytes(std::size_t rows, ElementType type, Preconditioner preconditioner,
                                  bool with_rhs_and_solution);

}  // namespace clcg::solver
