#pragma once
// IC(0): incomplete Cholesky with zero fill, A ~ L L^T with L on A's lower pattern, factored on
// the host (a diagonal shift A + alpha diag(A) where a pivot would not be positive). On the
// device z = M^-1 r is applied without sequential triangular solves: each of L y = r and
// L^T z = y is approximated by `sweeps` Jacobi sweeps (ic0.cl), which gives
// M^-1 = P^T P with P = sum_{j <= sweeps} (-D^-1 N)^j D^-1 (L = D + N): SPD by construction
// (P is triangular with a positive diagonal), and exact IC(0) as sweeps grow. Chosen over
// level-scheduled solves, which need one launch per level (2n - 1 levels on an n x n grid):
// docs/PERFORMANCE.md has the measurement.
#include <cstddef>
#include <optional>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

// The factor L (lower triangular, diagonal included, columns sorted) of A ~ L L^T and the
// shift that made every pivot positive (0 when none was needed).
struct IncompleteCholesky {
  HostCsr lower;
  double shift = 0;
};
// Throws std::invalid_argument when A is not square, PreconditionerBreakdown when no shift up
// to 10 diag(A) makes every pivot positive (A is not SPD).
IncompleteCholesky incomplete_cholesky(const HostCsr& a);

class Ic0Preconditioner : public DevicePreconditioner {
 public:
  // `host`: A on the host (full storage); `a`: the same matrix on the device.
  Ic0Preconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const HostCsr& host, const Ic0Options& options);
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;

 private:
  // One triangle's sweeps: out = P_triangle rhs, `sweeps` passes after the diagonal one.
  void solve(std::size_t which, const ::cl::Buffer& rhs, ::cl::Buffer& out);

  cl::Env env_;
  std::size_t n_;
  unsigned sweeps_;
  VectorOps ops_;
  ::cl::Buffer inv_d_, y_, scratch_;
  std::vector<DeviceCsrMatrix> strict_;  // N (lower) and N^T (upper), without the diagonal
  std::vector<Spmv> spmv_;
  std::vector<RowLayout> layout_;
  std::vector<cl::CachedKernel> sweep_;
};

}  // namespace clcg::solver
