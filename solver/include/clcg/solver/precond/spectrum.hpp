#pragma once
// The largest eigenvalue of D^-1 A (D = diag(A)), estimated on the device by Lanczos on the
// symmetric D^-1/2 A D^-1/2 from a fixed pseudo-random start: `steps` SpMVs and 2 reductions a
// step through clcg::reduction, then the largest eigenvalue of the small tridiagonal matrix on
// the host. A Ritz value never exceeds lambda_max; callers scale it up by a safety factor.
#include <cstddef>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps);

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
// off-diagonal `beta` (beta.size() = alpha.size() - 1), by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta);

}  // namespace clcg::solver
