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

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  const DeviceCsrMatrix& a = spmv.matrix();
  const std::size_t n = std::size_t(a.rows());
  if (n == 0) return 0;
  const ElementType type = a.type();
  VectorOps ops(env, type);
  reduction::Reducer dot(env, reduction::Op::dot, type), sumsq(env, reduction::Op::sumsq, type);
  ::cl::Buffer scale = make_vector(env, type, n), v = make_vector(env, type, n), previous = make_vector(env, type, n),
               w = make_vector(env, type, n), t = make_vector(env, type, n);
  ops.copy(n, inv_diag, scale);
  ops.square_root(n, scale);  // D^-1/2
  ops.pseudo_random(n, 0x5eedc0de, v);
  const double norm = std::sqrt(sumsq.run(v, 0, n).value);
  ops.scale(n, 1 / norm, v);
  ops.fill(n, 0.0, previous);
  std::vector<double> alpha, beta;
  double beta_last = 0;
  for (unsigned j = 0; j < std::max(1u, steps); ++j) {
    ops.diag_mul(n, scale, v, t);                  // t = D^-1/2 v
    spmv.enqueue(t, w);                            // w = A t
    ops.diag_mul(n, scale, w, t);                  // t = D^-1/2 A D^-1/2 v
    const double a_j = dot.run(t, 0, v, 0, n).value;
    alpha.push_back(a_j);
    ops.axpby_to(n, 1.0, t, -a_j, v, w);           // w = t - alpha v
    ops.axpy(n, -beta_last, previous, w);          //     - beta previous
    const double b_j = std::sqrt(sumsq.run(w, 0, n).value);
    if (!(b_j > 1e-12 * std::abs(a_j)) || j + 1 == steps) break;  // an invariant subspace, or done
    beta.push_back(b_j);
    std::swap(previous, v);
    ops.axpby_to(n, 1 / b_j, w, 0.0, w, v);        // v = w / beta
    beta_last = b_j;
  }
  beta.resize(alpha.size() - 1);
  return largest_tridiagonal_eigenvalue(alpha, beta);
}

}  // namespace clcg::solver
