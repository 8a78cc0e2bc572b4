#pragma once
// The largest eigenvalue of D^-1 A (D = diag(A)), estimated on the device by Lanczos on the
// symmetric D^-1/2 A D^-1/2 from a fixed pseudo-random start: `steps` SpMVs and one pass of two
// dot products a step through clcg::reduction (one read-back), then the largest eigenvalue of the
// small tridiagonal matrix on the host. A Ritz value never exceeds lambda_max; callers scale it
// up by a safety factor.
#include <cstddef>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

// For several estimates in a row (a multigrid set-up: one or two a level): the kernels, the
// reduction's partials and pinned read-back memory, and the work vectors are made once (the
// vectors grow to the largest matrix seen) rather than for each estimate (~1.3 ms each on an H100).
class SpectrumEstimator {
 public:
  SpectrumEstimator(const cl::Env& env, ElementType type);
  // `spmv`'s matrix of the estimator's type; inv_diag = D^-1.
  double lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);
  // Gives the work vectors back (the next estimate makes them again).
  void release_vectors();

 private:
  cl::Env env_;
  ElementType type_;
  VectorOps ops_;
  reduction::MultiDot dots_;  // t.u, u.u
  ::cl::Buffer scale_, u_, previous_, w_, t_;
  std::size_t capacity_ = 0;
};

// One estimate (SpectrumEstimator made for it).
double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
// off-diagonal `beta` (beta.size() = alpha.size() - 1), by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta);

}  // namespace clcg::solver
