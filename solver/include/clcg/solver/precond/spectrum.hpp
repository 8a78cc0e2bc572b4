#pragma once
// The largest eigenvalue of D^-1 A (D = diag(A)), estimated on the device by Lanczos on the
// symmetric D^-1/2 A D^-1/2 from a fixed pseudo-random start, run on the pencil (A, D) so that
// no vector is scaled (kernels/lanczos.cl): a step is an SpMV that also writes the partials of
// its two dot products, one group that finishes them (in a fixed order) into the step's
// coefficients on the device, then one update pass; the coefficients are read back once, and
// the largest eigenvalue of the small tridiagonal matrix is found on the host. A Ritz value
// never exceeds lambda_max; callers scale it up by a safety factor. Needs fp64 (the start and
// the coefficients are double).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

// For several estimates in a row (a multigrid set-up: one or two a level): the kernels, the
// partials and coefficients, and the work vectors are made once (the vectors grow to
// the largest matrix seen) rather than for each estimate (~1.3 ms each on an H100).
class SpectrumEstimator {
 public:
  SpectrumEstimator(const cl::Env& env, ElementType type);
  // `spmv`'s matrix of the estimator's type; inv_diag = D^-1. Waits for the estimate (none may
  // be pending: std::logic_error).
  double lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);
  // The same estimate, enqueued without waiting (the host may work meanwhile: AMG factors its
  // coarsest level); estimates() waits for every one enqueued since the last call and gives
  // their values in order. spmv and inv_diag must stay as they are until then.
  void enqueue(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);
  std::vector<double> estimates();
  // Gives the work vectors back (the next estimate makes them again).
  void release_vectors();

 private:
  // Groups per compute unit of the product on a GPU (as the fused CG passes: few partials to read).
  static constexpr std::size_t product_groups_per_unit = 8;
  // kernels/lanczos.cl's coefficients ahead of alpha and beta: steps kept, stopped, 4 weights.
  static constexpr std::size_t coefficients_head = 6;
  const ::cl::Buffer& partials_for(std::size_t groups);  // room for two dots of `groups` partials
  struct Pending {
    ::cl::Buffer coefficients;  // none: a matrix of 0 rows (estimate 0)
    unsigned steps;
  };

  cl::Env env_;
  ElementType type_;
  std::string options_;
  cl::CachedKernel start_, finish_, next_;
  std::map<std::string, cl::CachedKernel> products_;  // by row layout (lanczos_product_<layout>)
  ::cl::Buffer partials_;
  std::size_t partial_groups_ = 0;  // what partials_ holds per dot
  std::vector<Pending> pending_;
  ::cl::Buffer u_, previous_, w_, z_;
  std::size_t capacity_ = 0;
};

// One estimate (SpectrumEstimator made for it).
double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
// off-diagonal `beta` (beta.size() = alpha.size() - 1), by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta);

}  // namespace clcg::solver
