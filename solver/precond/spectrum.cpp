#include "clcg/solver/precond/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const std::size_t k = alpha.size();
  if (k == 0) return 0;
  if (beta.size() + 1 != k) throw std::invalid_argument("tridiagonal: beta must be one shorter than alpha");
  // Gershgorin interval, then bisection: count(x) = eigenvalues below x (Sturm sequence).
  double lo = alpha[0], hi = alpha[0];
  for (std::size_t i = 0; i < k; ++i) {
    const double radius = (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i + 1 < k ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - radius);
    hi = std::max(hi, alpha[i] + radius);
  }
  const auto below = [&](double x) {
    std::size_t count = 0;
    double d = 1;
    for (std::size_t i = 0; i < k; ++i) {
      d = alpha[i] - x - (i > 0 ? beta[i - 1] * beta[i - 1] / d : 0.0);
      if (d == 0) d = -1e-300;
      if (d < 0) ++count;
    }
    return count;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) == k ? hi : lo) = mid;  // all k below mid: the largest is below mid
  }
  return hi;
}

SpectrumEstimator::SpectrumEstimator(const cl::Env& env, ElementType type) : env_(env), type_(type) {}

// Lanczos on M = D^-1/2 A D^-1/2 (similar to D^-1 A) with unnormalised vectors û_j = beta_j v_j,
// carried as u_j = D^-1/2 û_j: one pass gives z = A u and the partials of û.Mû = u.z and
// û.û = u.Du, so alpha_j = u.z / u.Du and beta_j = |û_j| come with a single read-back a step;
// the update forms D^-1/2 of M v_j - alpha_j v_j - beta_j v_j-1 from D^-1 z.
double SpectrumEstimator::lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  const DeviceCsrMatrix& a = spmv.matrix();
  const std::size_t n = std::size_t(a.rows());
  if (n == 0) return 0;
  if (a.type() != type_) throw std::invalid_argument("SpectrumEstimator: the matrix is not of the estimator's type");
  if (n > capacity_) {
    for (::cl::Buffer* v : {&u_, &previous_, &w_, &z_}) *v = make_vector(env_, type_, n);
    capacity_ = n;
  }
  const RowLayout layout(env_, spmv);
  if (options_.empty()) {
    options_ = layout.build_options();
    start_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_start", options_));
    next_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_next", options_));
  }
  const std::string name = layout.kernel_name("lanczos_product");
  auto found = products_.find(name);
  if (found == products_.end())
    found = products_.emplace(name, cl::CachedKernel(env_.kernel("lanczos.cl", name.c_str(), options_))).first;
  cl::CachedKernel& product = found->second;
  const std::size_t row_groups = layout.row_groups();
  ::cl::Buffer u = u_, w = w_;  // swapped each step
  cl_uint arg = 0;
  start_.set(arg++, cl_uint(n));
  start_.set(arg++, cl_ulong(0x5eedc0de));
  start_.set(arg++, inv_diag);
  start_.set(arg++, u);
  start_.set(arg++, previous_);
  layout.launch(start_, "lanczos_start", row_groups);
  std::vector<double> alpha, beta;
  for (unsigned j = 0; j < std::max(1u, steps); ++j) {
    arg = 0;
    const std::size_t groups = layout.set_args(product, arg, product_groups_per_unit * env_.info().compute_units);
    product.set(arg++, inv_diag);
    product.set(arg++, u);
    product.set(arg++, z_);
    product.set(arg++, partials_for(groups));
    layout.launch(product, "lanczos_product", groups);
    const auto [uau, udu] = read_dots(groups);
    const double b_j = std::sqrt(udu);
    if (j > 0) {
      if (!(b_j > 1e-12 * std::abs(alpha.back()))) break;  // an invariant subspace
      beta.push_back(b_j);
    } else if (!(b_j > 0)) {
      return 0;
    }
    const double a_j = uau / udu;
    alpha.push_back(a_j);
    if (j + 1 == steps) break;
    // w = (M v_j - alpha_j v_j - beta_j v_j-1) scaled back, and v_j (the next step's v_j-1) into previous
    arg = 0;
    next_.set(arg++, cl_uint(n));
    set_real_arg(next_, arg++, type_, 1 / b_j);
    next_.set(arg++, inv_diag);
    next_.set(arg++, z_);
    set_real_arg(next_, arg++, type_, -a_j / b_j);
    next_.set(arg++, u);
    set_real_arg(next_, arg++, type_, j > 0 ? -b_j : 0.0);
    next_.set(arg++, previous_);
    set_real_arg(next_, arg++, type_, 1 / b_j);
    next_.set(arg++, w);
    layout.launch(next_, "lanczos_next", row_groups);
    std::swap(u, w);
  }
  return largest_tridiagonal_eigenvalue(alpha, beta);
}

const ::cl::Buffer& SpectrumEstimator::partials_for(std::size_t groups) {
  if (groups > partial_groups_) {
    partials_ = make_vector(env_, type_, 2 * groups);
    host_ = cl::PinnedBuffer(env_, 2 * groups * reduction::element_size(type_));
    partial_groups_ = groups;
  }
  return partials_;
}

std::pair<double, double> SpectrumEstimator::read_dots(std::size_t groups) {
  const std::size_t size = reduction::element_size(type_);
  cl::checked("reading the Lanczos dot partials", [&] {
    env_.queue().enqueueReadBuffer(partials_, CL_TRUE, 0, 2 * groups * size, host_.data());
  });
  double dots[2];
  reduction::finish_partial_runs(reduction::Op::sum, host_.data(), type_, groups, dots, widened_);
  return {dots[0], dots[1]};
}

void SpectrumEstimator::release_vectors() {
  for (::cl::Buffer* v : {&u_, &previous_, &w_, &z_}) *v = ::cl::Buffer();
  capacity_ = 0;
}

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  return SpectrumEstimator(env, spmv.matrix().type()).lambda_max(spmv, inv_diag, steps);
}

}  // namespace clcg::solver
