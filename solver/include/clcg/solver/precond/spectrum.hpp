#pragma once
// The largest eigenvalue of D^-1 A (D = diag(A)), estimated on the device by Lanczos on the
// symmetric D^-1/2 A D^-1/2 from a fixed pseudo-random start, run on the pencil (A, D) so that
// no vector is scaled (kernels/lanczos.cl): a step is an SpMV that also writes the partials of
// its two dot products (read back together and finished on the host in index order), then one
// update pass; at the end, the largest eigenvalue of the small tridiagonal matrix on the host.
// A Ritz value never exceeds lambda_max; callers scale it up by a safety factor.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

// For several estimates in a row (a multigrid set-up: one or two a level): the kernels, the
// partials and pinned read-back memory, and the work vectors are made once (the vectors grow to
// the largest matrix seen) rather than for each estimate (~1.3 ms each on an H100).
class SpectrumEstimator {
 public:
  SpectrumEstimator(const cl::Env& env, ElementType type);
  // `spmv`'s matrix of the estimator's type; inv_diag = D^-1.
  double lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);
  // Gives the work vectors back (the next estimate makes them again).
  void release_vectors();

 private:
  // Groups per compute unit of the product on a GPU (as the fused CG passes: few partials to read).
  static constexpr std::size_t product_groups_per_unit = 8;
  const ::cl::Buffer& partials_for(std::size_t groups);  // room for two dots of `groups` partials
  // The partials of the last product (u.Au, u.Du), finished on the host in index order.
  std::pair<double, double> read_dots(std::size_t groups);

  cl::Env env_;
  ElementType type_;
  std::string options_;
  cl::CachedKernel start_, next_;
  std::map<std::string, cl::CachedKernel> products_;  // by row layout (lanczos_product_<layout>)
  ::cl::Buffer partials_;
  cl::PinnedBuffer host_;
  std::size_t partial_groups_ = 0;  // what partials_ and host_ hold per dot
  std::vector<double> widened_;     // the partials as doubles
  ::cl::Buffer u_, previous_, w_, z_;
  std::size_t capacity_ = 0;
};

// One estimate (SpectrumEstimator made for it).
double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
// off-diagonal `beta` (beta.size() = alpha.size() - 1), by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta);

}  // namespace clcg::solver
