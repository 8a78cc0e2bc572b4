#include "clcg/solver/conjugate_gradient.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "cg_common.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/pipelined_conjugate_gradient.hpp"
#include "clcg/solver/single_reduction_conjugate_gradient.hpp"

namespace clcg::solver {

using reduction::Op;

std::string_view status_name(Status status) noexcept {
  switch (status) {
    case Status::converged: return "converged";
    case Status::max_iterations: return "max_iterations";
    case Status::breakdown: return "breakdown";
    case Status::non_finite: return "non_finite";
    case Status::stagnated: return "stagnated";
    case Status::diverged: return "diverged";
    case Status::interrupted: return "interrupted";
  }
  return "?";
}

std::string_view preconditioner_name(Preconditioner p) noexcept {
  return p == Preconditioner::jacobi ? "jacobi" : "none";
}

std::string_view cg_variant_name(CgVariant v) noexcept {
  switch (v) {
    case CgVariant::textbook: return "textbook";
    case CgVariant::fused: return "fused";
    case CgVariant::pipelined: return "pipelined";
    case CgVariant::single: return "single";
  }
  return "?";
}

std::span<const CgVariant> all_cg_variants() noexcept {
  static constexpr CgVariant variants[] = {CgVariant::textbook, CgVariant::fused, CgVariant::pipelined,
                                           CgVariant::single};
  return variants;
}

CgVariant parse_cg_variant(std::string_view name) {
  std::string known;
  for (CgVariant v : all_cg_variants()) {
    if (cg_variant_name(v) == name) return v;
    known += (known.empty() ? "" : ", ") + std::string(cg_variant_name(v));
  }
  throw std::invalid_argument("unknown CG variant '" + std::string(name) + "' (known: " + known + ")");
}

Preconditioner parse_preconditioner(std::string_view name) {
  if (name == "none") return Preconditioner::none;
  if (name == "jacobi") return Preconditioner::jacobi;
  throw std::invalid_argument("unknown preconditioner '" + std::string(name) + "' (known: none, jacobi)");
}

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
  if (with_rhs_and_solution) vectors += 2;                     // b, x
  return vectors * std::uint64_t(rows) * reduction::element_size(type);
}

namespace {

using detail::Clock;
using detail::format_double;
using detail::seconds_since;

}  // namespace

CgSolver::CgSolver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings)
    : env_(env),
      a_(a),
      settings_(settings),
      n_(std::size_t(a.rows())),
      spmv_(env, detail::require_cg_matrix(env, a), settings.spmv, settings.spmv_vector_size),
      ops_(env, a.type()),
      dot_(env, Op::dot, a.type(), settings.reduction),
      sumsq_(env, Op::sumsq, a.type(), settings.reduction),
      true_residual_(env, spmv_, settings.reduction) {
  const bool jacobi = settings.preconditioner == Preconditioner::jacobi;
  const std::uint64_t vectors = solver_vector_bytes(n_, a.type(), settings.preconditioner, false) +
                                (settings.variant == CgVariant::fused ? std::uint64_t(n_) * reduction::element_size(a.type()) : 0);
  check_device_memory(env.info(), a.bytes() + vectors, std::uint64_t(n_) * reduction::element_size(a.type()),
                      "CG solve (matrix " + std::to_string(a.bytes()) + " bytes + work vectors " +
                          std::to_string(vectors) + " bytes)");
  r_ = make_vector(env, a.type(), n_);
  p_ = make_vector(env, a.type(), n_);
  q_ = make_vector(env, a.type(), n_);
  if (jacobi) {
    z_ = make_vector(env, a.type(), n_);
    inv_diag_ = make_vector(env, a.type(), n_);
    spmv_.inverse_diagonal(inv_diag_);
    rr_rz_.emplace(env, a.type(), std::vector<reduction::MultiDot::Pair>{{0, 0}, {0, 1}}, settings.reduction);
  }
  if (settings.variant == CgVariant::fused) {
    fused_.emplace(env, spmv_);
    p_old_ = make_vector(env, a.type(), n_);
  }
}

CgSolver::Dots CgSolver::residual_dots() {
  if (!rr_rz_) {
    const double rr = sumsq_.run(r_, 0, n_).value;
    return {rr, rr};
  }
  const ::cl::Buffer vectors[] = {r_, z_};
  const std::vector<double> d = rr_rz_->run(vectors, n_);
  return {d.at(0), d.at(1)};
}

double CgSolver::direction_and_spmv(double beta, ::cl::Buffer& x) {
  ::cl::Buffer& z = direction_source();
  if (fused_) {
    std::swap(p_, p_old_);
    fused_->spmv_step(beta, x_owed_, {&z, &p_old_, &p_, &q_, &x});  // p = z + beta p_old; q = A p; x; p.q
    x_owed_ = 0;
    return fused_->read()[0];
  }
  ops_.xpay(n_, beta, z, p_);                    // p = z + beta p
  spmv_.enqueue(p_, q_);                         // q = A p
  return dot_.run(p_, 0, q_, 0, n_).value;       // p.q
}

CgSolver::Dots CgSolver::update(double alpha, ::cl::Buffer& x) {
  const bool jacobi = settings_.preconditioner == Preconditioner::jacobi;
  if (fused_) {
    x_owed_ = alpha;                             // x += alpha p happens in the next pass 1
    if (!jacobi) {
      fused_->update_r(alpha, q_, r_);           // r -= alpha q; r.r partials
      const double rr = fused_->read()[0];
      return {rr, rr};
    }
    fused_->update_rz(alpha, q_, inv_diag_, r_, z_);  // ... z = M^-1 r; r.r, r.z partials
    const std::vector<double> d = fused_->read();
    return {d[0], d[1]};
  }
  if (jacobi)
    ops_.cg_update_xrz(n_, alpha, p_, q_, inv_diag_, x, r_, z_);  // x += alpha p; r -= alpha q; z = M^-1 r
  else
    ops_.cg_update_xr(n_, alpha, p_, q_, x, r_);                  // x += alpha p; r -= alpha q
  return residual_dots();                                          // r.r (and r.z)
}

void CgSolver::settle_x(::cl::Buffer& x) {
  if (x_owed_ != 0) ops_.axpy(n_, x_owed_, p_, x);  // the same fma as pass 1 would do
  x_owed_ = 0;
}

TrueResidual::TrueResidual(const cl::Env& env, const Spmv& spmv, const reduction::Options& options)
    : env_(env), spmv_(spmv), ops_(env, spmv.matrix().type()), n_(std::size_t(spmv.matrix().rows())), options_(options) {}

double TrueResidual::relative(const ::cl::Buffer& b, const ::cl::Buffer& x, double bb) {
  const bool fp64 = env_.info().fp64;
  const ElementType type = fp64 ? ElementType::f64 : spmv_.matrix().type();
  if (!residual_()) residual_ = make_vector(env_, type, n_);
  if (!sumsq_) sumsq_.emplace(env_, Op::sumsq, type, options_);
  if (fp64) {
    spmv_.residual_f64(x, b, residual_);               // r = b - A x, in double
  } else {
    spmv_.enqueue(x, residual_);                       // r = A x
    ops_.axpby_to(n_, 1.0, b, -1.0, residual_, residual_);  // r = b - r
  }
  const double rr = sumsq_->run(residual_, 0, n_).value;
  return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

SolveInfo CgSolver::solve(const ::cl::Buffer& b, ::cl::Buffer& x, bool use_guess, bool true_residual) {
  const auto start = Clock::now();
  const std::size_t n = n_, max_iter = settings_.iteration_limit(n);
  const bool jacobi = settings_.preconditioner == Preconditioner::jacobi;
  SolveInfo info;
  x_owed_ = 0;
  auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    env_.queue().finish();
    info.seconds = seconds_since(start);
    return info;
  };

  const double bb = n == 0 ? 0.0 : sumsq_.run(b, 0, n).value;  // ||b||^2
  if (!std::isfinite(bb)) return finish(Status::non_finite, "the right-hand side b contains NaN or Inf");
  if (bb == 0) {  // b = 0 -> x = 0 exactly, at 0 iterations
    ops_.fill(n, 0.0, x);
    return finish(Status::converged, "b = 0, so x = 0");
  }
  // Eigen's threshold: ||r||^2 <= tol^2 ||b||^2, but never below the smallest normal number.
  const double threshold = detail::stopping_threshold(settings_.tolerance, bb);
  // r = b - A x (x = x0, or 0); z = M^-1 r. Also how a drifted residual is replaced. The
  // first direction is then p = z + 0 p: p is kept finite (zero at the start) so that it is z exactly.
  auto start_from_x = [&](bool x_is_zero) {
    if (x_is_zero) {
      ops_.copy(n, b, r_);                      // r = b
    } else {
      spmv_.enqueue(x, q_);                     // q = A x
      ops_.axpby_to(n, 1.0, b, -1.0, q_, r_);   // r = b - q
    }
    if (jacobi) ops_.diag_mul(n, inv_diag_, r_, z_);  // z = M^-1 r
    return residual_dots();                           // rr = r.r, rz = r.z
  };
  if (!use_guess) ops_.fill(n, 0.0, x);  // x0 = 0
  ops_.fill(n, 0.0, p_);
  Dots d = start_from_x(!use_guess);
  info.recursive_residual = std::sqrt(d.rr / bb);
  if (!std::isfinite(d.rr) || !std::isfinite(d.rz))
    return finish(Status::non_finite, "the initial residual contains NaN or Inf");
  detail::StepWatch watch(settings_, info.recursive_residual);  // cancellation, progress, stagnation, divergence

  Status status = Status::max_iterations;
  std::string message;
  std::size_t replacements = 0;
  bool stalled = false;
  double previous_true = std::numeric_limits<double>::infinity();  // at the last replacement
  double confirmed = std::numeric_limits<double>::quiet_NaN();  // true residual of the current x
  double beta = 0;                                      // p = z + beta p; 0 after a (re)start
  for (std::size_t k = 1; d.rr > threshold && k <= max_iter; ++k) {
    const double pq = direction_and_spmv(beta, x);      // p; q = A p; p.q   host sync 1
    if (!std::isfinite(pq)) {
      status = Status::non_finite, message = "p^T A p is " + format_double(pq) + " at iteration " + std::to_string(k);
      break;
    }
    if (pq <= 0) {
      status = Status::breakdown;
      message = detail::breakdown_message(k, pq);
      break;
    }
    const double alpha = d.rz / pq;                     // alpha = r.z / p.Ap
    Dots next = update(alpha, x);                       // x, r (, z); r.r (and r.z)   host sync 2
    info.iterations = k;
    info.recursive_residual = std::sqrt(next.rr / bb);
    if (!std::isfinite(next.rr) || !std::isfinite(next.rz)) {
      status = Status::non_finite, message = "the residual became NaN or Inf at iteration " + std::to_string(k);
      break;
    }
    const bool done = next.rr <= threshold;             // ||r|| <= tol ||b||
    beta = done ? 0.0 : next.rz / d.rz;                 // beta = r'.z' / r.z
    if (settings_.record_history) info.history.push_back({k, info.recursive_residual, alpha, beta, seconds_since(start)});
    if (!done && next.rz <= 0) {
      status = Status::breakdown;
      message = detail::preconditioner_breakdown_message(k, next.rz);
      break;
    }
    if (auto stop = done ? std::nullopt : watch.after_step(k, info.recursive_residual)) {
      status = stop->status, message = std::move(stop->message);
      break;
    }
    if (done && settings_.confirm_true_residual) {
      // Rounding can make the recursive r drift from b - A x: check the true residual, and if
      // it is above the tolerance, restart from x with it (residual replacement).
      settle_x(x);
      confirmed = true_residual_.relative(b, x, bb);
      // No room left, or the last restart did not even halve the true residual: a precision floor.
      if (confirmed > settings_.tolerance &&
          (replacements == max_residual_replacements || confirmed > 0.5 * previous_true)) {
        stalled = true;
        break;
      }
      if (confirmed > settings_.tolerance) {
        previous_true = confirmed;
        ++replacements;
        confirmed = std::numeric_limits<double>::quiet_NaN();
        d = start_from_x(false);                        // r = b - A x; z = M^-1 r
        beta = 0;                                       // p = z
        info.recursive_residual = std::sqrt(d.rr / bb);
        continue;
      }
    }
    d = next;
  }
  settle_x(x);
  if (stalled) {
    message = detail::stalled_message(info.iterations, confirmed, settings_.tolerance, replacements, a_.type());
  } else if (status == Status::max_iterations && d.rr <= threshold) {
    status = Status::converged;
    message = "converged in " + std::to_string(info.iterations) + " iterations";
  } else if (status == Status::max_iterations) {
    message = detail::not_converged_message(info.iterations, info.recursive_residual, settings_.tolerance);
  }
  if (replacements && !stalled)
    message += detail::replaced_note(replacements);
  if (true_residual)
    info.true_residual = std::isnan(confirmed) ? true_residual_.relative(b, x, bb) : confirmed;
  else
    info.true_residual = std::numeric_limits<double>::quiet_NaN();
  return finish(status, std::move(message));
}

SolveInfo solve(const cl::Env& env, const DeviceCsrMatrix& a, const ::cl::Buffer& b, ::cl::Buffer& x,
                const Settings& settings, bool use_guess) {
  return make_cg_solver(env, a, settings)->solve(b, x, use_guess, true);
}

std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings) {
  if (settings.variant == CgVariant::pipelined) return std::make_unique<PipelinedCgSolver>(env, a, settings);
  if (settings.variant == CgVariant::single) return std::make_unique<SingleReductionCgSolver>(env, a, settings);
  return std::make_unique<CgSolver>(env, a, settings);
}

double relative_residual(const HostCsr& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
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
  const HostCsr csr = to_host_csr(a, Storage::full);
  const ElementType type = settings.precision;
  const std::size_t n = std::size_t(a.rows());
  require_precision(env.info(), type);
  check_device_memory(env.info(),
                      bytes_needed(n, std::uint64_t(csr.nnz()), type) +
                          solver_vector_bytes(n, type, settings.preconditioner, true),
                      std::uint64_t(std::max<std::int32_t>(csr.nnz(), 1)) * reduction::element_size(type),
                      "CG solve");
  const DeviceCsrMatrix device_a(env, csr, type);
  const std::unique_ptr<CgMethod> solver = make_cg_solver(env, device_a, settings);
  ::cl::Buffer b_dev = make_vector(env, type, n), x_dev = make_vector(env, type, n);
  auto write = [&](::cl::Buffer& dst, const Eigen::VectorXd& v) {
    if (n == 0) return;
    if (type == ElementType::f64) {
      env.queue().enqueueWriteBuffer(dst, CL_TRUE, 0, n * sizeof(double), v.data());
    } else {
      const Eigen::VectorXf f = v.cast<float>();
      env.queue().enqueueWriteBuffer(dst, CL_TRUE, 0, n * sizeof(float), f.data());
    }
  };
  cl::checked("uploading b and x0", [&] {
    write(b_dev, b);
    if (x0) write(x_dev, *x0);
  });
  HostSolution out;
  out.info = solver->solve(b_dev, x_dev, x0 != nullptr, false);
  out.x.resize(Eigen::Index(n));
  cl::checked("reading x back", [&] {
    if (n == 0) return;
    if (type == ElementType::f64) {
      env.queue().enqueueReadBuffer(x_dev, CL_TRUE, 0, n * sizeof(double), out.x.data());
    } else {
      Eigen::VectorXf f(static_cast<Eigen::Index>(n));
      env.queue().enqueueReadBuffer(x_dev, CL_TRUE, 0, n * sizeof(float), f.data());
      out.x = f.cast<double>();
    }
  });
  out.info.true_residual = relative_residual(csr, b, out.x);
  return out;
}

}  // namespace clcg::solver
