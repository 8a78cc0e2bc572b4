#pragma once
// Jacobi: M = diag(A). Set up once per matrix as 1/diag(A) on the device; the CG kernels fuse
// its apply, z = inv_diag .* r, into their own passes (kernels/cg_update.cl, cg_fused.cl).
#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

// inv_diag[i] = 1 / a_ii, or 1 where a_ii is 0 or not stored (Eigen's rule); inv_diag holds
// a.rows() elements of a.type(). Enqueued on env's queue.
void jacobi_inverse_diagonal(const cl::Env& env, const DeviceCsrMatrix& a, ::cl::Buffer& inv_diag);
// The same from an ELL SpMV's copy (its CSR arrays may be gone); the same bits.
void jacobi_inverse_diagonal(const cl::Env& env, const Spmv& ell, ::cl::Buffer& inv_diag);

class JacobiPreconditioner : public DevicePreconditioner {
 public:
  JacobiPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a);
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;  // z = inv_diag .* r
  const ::cl::Buffer* inverse_diagonal() const noexcept override { return &inv_diag_; }

 private:
  VectorOps ops_;
  std::size_t n_;
  ::cl::Buffer inv_diag_;
};

}  // namespace clcg::solver
