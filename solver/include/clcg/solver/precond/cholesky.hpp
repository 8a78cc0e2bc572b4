#pragma once
// The exact preconditioner: M = A through a sparse LDL^T factor on the host (direct/
// sparse_cholesky.hpp). An apply reads r back, solves on the host in double and writes z: two
// blocking transfers of n values, which on a GPU cost about what a few CG steps of a small
// matrix cost, so it pays where A is small or its factor cheap. CG with it ends in one or two
// steps (the second where rounding leaves the first short of the tolerance). Also AMG's
// coarsest-level solve.
#include <memory>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class CholeskyPreconditioner : public DevicePreconditioner {
 public:
  // Factors `host` (full storage) for vectors of `type` on env's queue; `analysed`, when given,
  // is its symbolic analysis done already (the planner's). Throws PreconditionerBreakdown
  // when A is not positive definite.
  CholeskyPreconditioner(const cl::Env& env, const CsrView& host, ElementType type,
                         std::shared_ptr<SparseCholesky> analysed = nullptr);
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;
  const SparseCholesky& factor() const noexcept { return *factor_; }

 private:
  cl::Env env_;
  ElementType type_;
  std::shared_ptr<SparseCholesky> factor_;
  std::vector<double> r_, z_;        // the host side of an apply
  std::vector<float> narrow_;        // float vectors' transfers
};

}  // namespace clcg::solver
