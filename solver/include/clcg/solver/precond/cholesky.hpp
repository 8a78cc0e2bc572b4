#pragma once
// The exact preconditioner: M = A through a Cholesky factor, on the host (a sparse LDL^T,
// direct/sparse_cholesky.hpp) or on the device (a dense LL^T in double, direct/
// dense_device_cholesky.hpp). On the host an apply reads r back, solves in double and writes z:
// two blocking transfers of n values, which on a GPU cost about what a few CG steps of a small
// matrix cost, so it pays where A is small or its factor cheap; on the device r never leaves it (a float
// solve's r does: the dense factor works in double).
// CG with it ends in one or two steps (the second where rounding leaves the first short of the
// tolerance). Also the factor of the planner's direct method (krylov/direct_solve.hpp).
#include <memory>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/direct/cholesky_factor.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class DenseDeviceCholesky;

class CholeskyPreconditioner : public DevicePreconditioner {
 public:
  // Factors `host` (full storage) for vectors of `type` on env's queue: on the device where
  // `on_device`, else on the host, where `analysed`, when given, is its symbolic analysis done
  // already (the planner's). Throws PreconditionerBreakdown when A is not positive definite.
  CholeskyPreconditioner(const cl::Env& env, const CsrView& host, ElementType type,
                         std::shared_ptr<SparseCholesky> analysed = nullptr, bool on_device = false);
  ~CholeskyPreconditioner() override;
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;
  const CholeskyFactor& factor() const noexcept;
  bool on_device() const noexcept { return dense_ != nullptr; }

 private:
  cl::Env env_;
  ElementType type_;
  std::shared_ptr<SparseCholesky> sparse_;       // on the host, or
  std::unique_ptr<DenseDeviceCholesky> dense_;   // on the device
  std::vector<double> r_, z_;                    // the host side of an apply
  std::vector<float> narrow_;                    // float vectors' transfers
};

}  // namespace clcg::solver
