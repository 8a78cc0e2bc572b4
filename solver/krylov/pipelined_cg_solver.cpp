#include "clcg/solver/krylov/pipelined_cg_solver.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "recurrence_variant.hpp"

namespace clcg::solver {
namespace {

// Pipelined CG here takes no preconditioner or Jacobi only: its recurrences need M^-1 of three
// vectors a step, fused for a diagonal M; a general M would add three applies a step to a
// variant whose point is one pass, and float already strains its recurrences.
std::shared_ptr<DevicePreconditioner> checked(const Settings& settings,
                                              std::shared_ptr<DevicePreconditioner> preconditioner) {
  const bool diagonal = preconditioner ? preconditioner->inverse_diagonal() != nullptr
                                       : settings.preconditioner == Preconditioner::jacobi;
  if ((preconditioner || settings.preconditioner != Preconditioner::none) && !diagonal)
    throw std::invalid_argument("the pipelined CG variant takes no preconditioner or Jacobi, not " +
                                std::string(preconditioner ? preconditioner->report().name
                                                           : preconditioner_name(settings.preconditioner)) +
                                "; use the fused, single or textbook variant");
  return preconditioner;
}

std::vector<reduction::MultiDot::Pair> start_pairs(bool jacobi) {
  // Vectors {r, w} without a preconditioner, {r, u, w} with Jacobi.
  if (jacobi) return {{0, 1}, {2, 1}, {0, 0}};  // r.u, w.u, r.r
  return {{0, 0}, {1, 0}};                       // r.r, w.r
}

}  // namespace

PipelinedCgSolver::PipelinedCgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                                     std::shared_ptr<DevicePreconditioner> preconditioner)
    : RecurrenceCgSolver(env, a, settings, checked(settings, preconditioner),
                         settings.preconditioner == Preconditioner::jacobi ? 9 : 6, "pipelined"),
      start_dots_(env, a.type(), start_pairs(jacobi_), settings.reduction) {
  for (::cl::Buffer* v : {&r_, &w_, &nv_, &z_, &s_, &p_}) *v = make_work_vector();
  if (jacobi_)
    for (::cl::Buffer* v : {&u_, &m_, &q_}) *v = make_work_vector();
}

FusedOps::PipelinedVectors PipelinedCgSolver::vectors(::cl::Buffer& x) {
  // Without a preconditioner u = r, q = s and m = w: the kernel takes only the real ones.
  if (!jacobi_) return {&nv_, &z_, &s_, &s_, &p_, &x, &r_, &r_, &w_, &w_, nullptr};
  return {&nv_, &z_, &q_, &s_, &p_, &x, &r_, &u_, &w_, &m_, &inv_diag_};
}

PipelinedCgSolver::Dots PipelinedCgSolver::recompute(const ::cl::Buffer& b, const ::cl::Buffer& x, bool x_is_zero,
                                                     bool keep_direction) {
  const std::size_t n = n_;
  if (x_is_zero) {
    ops_.copy(n, b, r_);                      // r = b
  } else {
    spmv_.enqueue(x, nv_);                    // nv = A x (nv as scratch)
    ops_.axpby_to(n, 1.0, b, -1.0, nv_, r_);  // r = b - A x
  }
  ::cl::Buffer& u = jacobi_ ? u_ : r_;
  if (jacobi_) ops_.diag_mul(n, inv_diag_, r_, u_);  // u = M^-1 r
  spmv_.enqueue(u, w_);                             // w = A u
  ::cl::Buffer& m = jacobi_ ? m_ : w_;
  if (jacobi_) ops_.diag_mul(n, inv_diag_, w_, m_);  // m = M^-1 w
  if (keep_direction) {
    spmv_.enqueue(p_, s_);                            // s = A p
    ::cl::Buffer& q = jacobi_ ? q_ : s_;
    if (jacobi_) ops_.diag_mul(n, inv_diag_, s_, q_); // q = M^-1 s
    spmv_.enqueue(q, z_);                             // z = A q
  } else {
    // The next step uses beta = 0; zeros keep 0 * (whatever was there) from making NaN.
    for (::cl::Buffer* v : {&z_, &s_, &p_}) ops_.fill(n, 0.0, *v);
    if (jacobi_) ops_.fill(n, 0.0, q_);
  }
  const std::vector<::cl::Buffer> start = jacobi_ ? std::vector<::cl::Buffer>{r_, u_, w_} : std::vector<::cl::Buffer>{r_, w_};
  const std::vector<double> d = start_dots_.run(start, n);
  spmv_.enqueue(m, nv_);                            // nv = A m for the next step
  return dots_from(d);
}

SolveInfo PipelinedCgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  detail::RecurrenceVariant variant;
  variant.restart = [&](bool x_is_zero) { return recompute(b, x, x_is_zero, false); };
  variant.step = [&](double alpha, double beta) {
    fused_.pipelined_update(alpha, beta, vectors(x));  // z q s p x r u w (m); dot partials
    fused_.read_async();                               // the one host sync of the step ...
    spmv_.enqueue(jacobi_ ? m_ : w_, nv_);             // ... overlaps nv = A m
    return dots_from(fused_.wait());
  };
  variant.direct_curvature = [&](double beta) { return direct_curvature(r_, jacobi_ ? &u_ : nullptr, p_, beta); };
  variant.replace = [&] { return recompute(b, x, false, true); };
  variant.replacement_period = replacement_period;
  return iterate(variant, b, x, use_guess, true_residual);
}

}  // namespace clcg::solver
