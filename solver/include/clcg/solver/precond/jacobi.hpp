#pragma once
// Jacobi: M = diag(A). Set up once per matrix as 1/diag(A) on the device; applied as
// z = inv_diag .* r, which the CG kernels fuse into their own passes (kernels/cg_update.cl,
// kernels/cg_fused.cl) rather than launching it alone.
#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// inv_diag[i] = 1 / a_ii, or 1 where a_ii is 0 or not stored (Eigen's rule); inv_diag holds
// a.rows() elements of a.type(). Enqueued on env's queue.
void jacobi_inverse_diagonal(const cl::Env& env, const DeviceCsrMatrix& a, ::cl::Buffer& inv_diag);

}  // namespace clcg::solver
