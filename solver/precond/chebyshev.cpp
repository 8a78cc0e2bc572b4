#include "clcg/solver/precond/chebyshev.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/precond/spectrum.hpp"

namespace clcg::solver {

ChebyshevSmoother::ChebyshevSmoother(const cl::Env& env, const Spmv& spmv, const ::cl::Buffer& inv_diag, double lower,
                                     double upper, unsigned degree)
    : env_(env),
      layout_(env, spmv),
      ops_(env, spmv.matrix().type()),
      n_(std::size_t(spmv.matrix().rows())),
      inv_diag_(inv_diag),
      d_(make_vector(env, spmv.matrix().type(), n_)),
      scratch_(make_vector(env, spmv.matrix().type(), std::max<std::size_t>(n_, std::size_t(spmv.matrix().cols())))),
      degree_(degree) {
  if (degree == 0) throw std::invalid_argument("Chebyshev degree must be at least 1");
  set_interval(lower, upper);
  const std::string options = layout_.build_options();
  step_ = cl::CachedKernel(env.kernel("chebyshev.cl", layout_.kernel_name("chebyshev_step").c_str(), options));
  start_ = cl::CachedKernel(env.kernel("chebyshev.cl", "chebyshev_start", options));
}

void ChebyshevSmoother::set_interval(double lower, double upper) {
  if (!(lower > 0) || !(upper > lower))
    throw std::invalid_argument("Chebyshev interval must satisfy 0 < lower < upper, got [" + std::to_string(lower) +
                                ", " + std::to_string(upper) + "]");
  theta_ = 0.5 * (upper + lower);
  delta_ = 0.5 * (upper - lower);
}

void ChebyshevSmoother::update_values(const Spmv& spmv, double lower, double upper) {
  if (std::size_t(spmv.matrix().rows()) != n_)
    throw std::invalid_argument("ChebyshevSmoother::update_values: " + std::to_string(spmv.matrix().rows()) +
                                " rows, the smoother's " + std::to_string(n_));
  set_interval(lower, upper);
  layout_ = RowLayout(env_, spmv);  // the same layout (the same pattern), on the matrix's buffers now
}

void ChebyshevSmoother::step(double c_d, double c_r, const ::cl::Buffer& b, const ::cl::Buffer& src, ::cl::Buffer& dst,
                             RowRange rows) {
  cl_uint arg = 0;
  const std::size_t groups = layout_.set_args(step_, arg, 64 * env_.info().compute_units, rows);
  set_real_arg(step_, arg++, layout_.type(), c_d);
  set_real_arg(step_, arg++, layout_.type(), c_r);
  for (const ::cl::Buffer* v : {static_cast<const ::cl::Buffer*>(&inv_diag_), &b, &src}) step_.set(arg++, *v);
  step_.set(arg++, d_);
  step_.set(arg++, dst);
  layout_.launch(step_, "chebyshev_step", groups);
}

void ChebyshevSmoother::apply(const ::cl::Buffer& b, ::cl::Buffer& x, bool zero_guess) {
  if (n_ == 0) return;
  // Saad, Iterative Methods for Sparse Linear Systems, Algorithm 12.1, preconditioned by D:
  //   d_0 = D^-1 r_0 / theta ; d_k = rho_k rho_{k-1} d_{k-1} + (2 rho_k / delta) D^-1 r_k.
  // Each SpMV step writes the other of (x, scratch): the start is chosen so the last lands in x.
  const double sigma = theta_ / delta_;
  double rho = 1 / sigma;
  const unsigned spmv_steps = zero_guess ? degree_ - 1 : degree_;
  ::cl::Buffer* src = &x;
  ::cl::Buffer* other = &scratch_;
  if (zero_guess) {
    if (spmv_steps % 2) std::swap(src, other);
    cl_uint arg = 0;
    start_.set(arg++, static_cast<cl_uint>(n_));
    set_real_arg(start_, arg++, layout_.type(), 1 / theta_);
    for (const ::cl::Buffer* v : {static_cast<const ::cl::Buffer*>(&inv_diag_), &b, static_cast<const ::cl::Buffer*>(&d_),
                                  static_cast<const ::cl::Buffer*>(src)})
      start_.set(arg++, *v);
    layout_.launch(start_, "chebyshev_start", layout_.row_groups());
  } else if (spmv_steps % 2) {
    ops_.copy(n_, x, scratch_);  // start from the copy so the last step writes x
    std::swap(src, other);
  }
  for (unsigned k = 0; k < spmv_steps; ++k) {
    const bool first = !zero_guess && k == 0;
    const double rho_next = first ? rho : 1 / (2 * sigma - rho);
    const double c_d = first ? 0.0 : rho_next * rho;
    const double c_r = first ? 1 / theta_ : 2 * rho_next / delta_;
    if (exchange_)
      rows_around(
          n_, exchange_->interior, [&] { exchange_->start(*src); }, [&] { exchange_->finish(*src); },
          [&](RowRange rows) { step(c_d, c_r, b, *src, *other, rows); });
    else
      step(c_d, c_r, b, *src, *other, {0, n_});
    std::swap(src, other);
    rho = rho_next;
  }
}

ChebyshevPreconditioner::ChebyshevPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a,
                                                 const ChebyshevOptions& options)
    : spmv_(env, a), inv_diag_(make_vector(env, a.type(), std::size_t(a.rows()))) {
  jacobi_inverse_diagonal(env, a, inv_diag_);
  const double estimate = a.rows() ? estimate_lambda_max(env, spmv_, inv_diag_, options.lanczos_steps) : 1.0;
  const double upper = options.upper_safety * (estimate > 0 ? estimate : 1.0);
  polynomial_.emplace(env, spmv_, inv_diag_, upper / options.lower_ratio, upper, options.degree);
  env.queue().finish();
  report_.name = "chebyshev";
  report_.figures = {{"degree", double(options.degree)},
                     {"lambda_max_estimate", estimate},
                     {"upper", upper},
                     {"lower", upper / options.lower_ratio}};
}

void ChebyshevPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) { polynomial_->apply(r, z, true); }

}  // namespace clcg::solver
