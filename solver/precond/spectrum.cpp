#include "clcg/solver/precond/spectrum.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>
#include <cmath>
#include <stdexcept>

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
// û.û = u.Du, one group finishes them into alpha_j = u.z / u.Du and beta_j = |û_j| and the
// update's weights, and the update forms D^-1/2 of M v_j - alpha_j v_j - beta_j v_j-1 from
// D^-1 z. The coefficients stay on the device: the steps run without a wait (a read-back a step
// cost ~30 us of idle device each, 70 steps in a 256^3 AMG set-up), and are read once at the end.
double SpectrumEstimator::lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  if (!pending_.empty()) throw std::logic_error("SpectrumEstimator::lambda_max: estimates are pending");
  enqueue(spmv, inv_diag, steps);
  return estimates().front();
}

void SpectrumEstimator::enqueue(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  const DeviceCsrMatrix& a = spmv.matrix();
  const std::size_t n = std::size_t(a.rows());
  steps = std::max(1u, steps);
  if (n == 0) {
    pending_.push_back({::cl::Buffer(), steps});  // estimate 0
    return;
  }
  if (a.type() != type_) throw std::invalid_argument("SpectrumEstimator: the matrix is not of the estimator's type");
  if (n > capacity_) {
    for (::cl::Buffer* v : {&u_, &previous_, &w_, &z_}) *v = make_vector(env_, type_, n);
    capacity_ = n;
  }
  // The work vectors serve one estimate after another (the queue is in order); each keeps its
  // own coefficients until estimates() reads them.
  ::cl::Buffer coefficients = make_vector(env_, ElementType::f64, coefficients_head + 2 * std::size_t(steps));
  pending_.push_back({coefficients, steps});
  const RowLayout layout(env_, spmv);
  if (options_.empty()) {
    options_ = layout.build_options();
    start_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_start", options_));
    finish_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_coefficients", options_));
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
  start_.set(arg++, coefficients);
  layout.launch(start_, "lanczos_start", row_groups);
  for (unsigned j = 0; j < steps; ++j) {
    arg = 0;
    const std::size_t groups = layout.set_args(product, arg, product_groups_per_unit * env_.info().compute_units);
    product.set(arg++, inv_diag);
    product.set(arg++, u);
    product.set(arg++, z_);
    product.set(arg++, partials_for(groups));
    layout.launch(product, "lanczos_product", groups);
    arg = 0;
    finish_.set(arg++, cl_uint(groups));
    finish_.set(arg++, cl_uint(j));
    finish_.set(arg++, cl_uint(steps));
    finish_.set(arg++, partials_);
    finish_.set(arg++, coefficients);
    layout.launch(finish_, "lanczos_coefficients", 1);
    if (j + 1 == steps) break;
    // w = (M v_j - alpha_j v_j - beta_j v_j-1) scaled back, and v_j (the next step's v_j-1) into previous
    arg = 0;
    next_.set(arg++, cl_uint(n));
    next_.set(arg++, coefficients);
    next_.set(arg++, inv_diag);
    next_.set(arg++, z_);
    next_.set(arg++, u);
    next_.set(arg++, previous_);
    next_.set(arg++, w);
    layout.launch(next_, "lanczos_next", row_groups);
    std::swap(u, w);
  }
}

std::vector<double> SpectrumEstimator::estimates() {
  std::vector<Pending> pending;
  pending.swap(pending_);
  std::vector<double> values;
  for (const Pending& p : pending) {
    if (!p.coefficients()) {
      values.push_back(0);
      continue;
    }
    const std::vector<double> c =
        download_vector(env_, p.coefficients, ElementType::f64, coefficients_head + 2 * std::size_t(p.steps));
    if (c[1] == 2) {  // a start of norm 0 (D^-1 is 0)
      values.push_back(0);
      continue;
    }
    const auto kept = static_cast<std::ptrdiff_t>(c[0]);
    const auto alpha = c.begin() + coefficients_head, beta = alpha + p.steps;
    values.push_back(
        largest_tridiagonal_eigenvalue({alpha, alpha + kept}, {beta, beta + std::max<std::ptrdiff_t>(0, kept - 1)}));
  }
  return values;
}

const ::cl::Buffer& SpectrumEstimator::partials_for(std::size_t groups) {
  if (groups > partial_groups_) {
    partials_ = make_vector(env_, type_, 2 * groups);
    partial_groups_ = groups;
  }
  return partials_;
}

void SpectrumEstimator::release_vectors() {
  for (::cl::Buffer* v : {&u_, &previous_, &w_, &z_}) *v = ::cl::Buffer();
  capacity_ = 0;
}

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  return SpectrumEstimator(env, spmv.matrix().type()).lambda_max(spmv, inv_diag, steps);
}

}  // namespace clcg::solver
