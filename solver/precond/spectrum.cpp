#include "clcg/solver/precond/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clcg/reduction/reduce.hpp"
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

SpectrumEstimator::SpectrumEstimator(const cl::Env& env, ElementType type)
    : env_(env), type_(type), ops_(env, type), dots_(env, type, {{0, 1}, {1, 1}}) {}

// Lanczos on M = D^-1/2 A D^-1/2 (similar to D^-1 A) with unnormalised vectors u_j = beta_j v_j:
// one pass gives t.u and u.u for t = M u, so alpha_j = t.u / u.u and beta_j = |u_j| come with a
// single read-back a step, and the next vector is formed with v_j = u_j / beta_j.
double SpectrumEstimator::lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  const DeviceCsrMatrix& a = spmv.matrix();
  const std::size_t n = std::size_t(a.rows());
  if (n == 0) return 0;
  if (a.type() != type_) throw std::invalid_argument("SpectrumEstimator: the matrix is not of the estimator's type");
  if (n > capacity_) {
    for (::cl::Buffer* v : {&scale_, &u_, &previous_, &w_, &t_}) *v = make_vector(env_, type_, n);
    capacity_ = n;
  }
  ::cl::Buffer &scale = scale_, &previous = previous_, &t = t_;
  ::cl::Buffer u = u_, w = w_;  // swapped each step
  ops_.copy(n, inv_diag, scale);
  ops_.square_root(n, scale);  // D^-1/2
  ops_.pseudo_random(n, 0x5eedc0de, u);
  ops_.fill(n, 0.0, previous);  // v_-1 (its weight is 0; not NaN bits either)
  std::vector<double> alpha, beta;
  for (unsigned j = 0; j < std::max(1u, steps); ++j) {
    ops_.diag_mul(n, scale, u, t);                  // t = D^-1/2 u
    spmv.enqueue(t, w);                             // w = A t
    ops_.diag_mul(n, scale, w, t);                  // t = M u
    const std::vector<double> tu_uu = dots_.run(std::vector<::cl::Buffer>{t, u}, n);
    const double b_j = std::sqrt(tu_uu[1]);
    if (j > 0) {
      if (!(b_j > 1e-12 * std::abs(alpha.back()))) break;  // an invariant subspace
      beta.push_back(b_j);
    } else if (!(b_j > 0)) {
      return 0;
    }
    const double a_j = tu_uu[0] / tu_uu[1];
    alpha.push_back(a_j);
    if (j + 1 == steps) break;
    // w = M v_j - alpha_j v_j - beta_j v_j-1, and v_j (the next step's v_j-1) into previous
    ops_.lanczos_next(n, 1 / b_j, t, -a_j / b_j, u, j > 0 ? -b_j : 0.0, previous, 1 / b_j, w);
    std::swap(u, w);
  }
  return largest_tridiagonal_eigenvalue(alpha, beta);
}

void SpectrumEstimator::release_vectors() {
  for (::cl::Buffer* v : {&scale_, &u_, &previous_, &w_, &t_}) *v = ::cl::Buffer();
  capacity_ = 0;
}

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  return SpectrumEstimator(env, spmv.matrix().type()).lambda_max(spmv, inv_diag, steps);
}

}  // namespace clcg::solver
