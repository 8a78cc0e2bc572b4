#pragma once
// A preconditioner applied in float for a solve in double: r is converted to float, M^-1 is
// applied by a preconditioner set up on A's values in float, and z converted back. Each apply
// then moves about half the bytes (a Chebyshev polynomial's or a V-cycle's SpMVs dominate),
// while CG's own vectors, SpMV and dots stay in double, so the solve reaches the same double
// tolerance: M only has to approximate A^-1, and float's rounding (1e-7 relative) perturbs it
// far less than the approximation itself does.
#include <cstddef>
#include <memory>

#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/conversion.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class MixedPrecisionPreconditioner : public DevicePreconditioner {
 public:
  // `inner`: set up on `a_inner` (A in the inner precision); r and z are `outer` vectors.
  MixedPrecisionPreconditioner(const cl::Env& env, ElementType outer, DeviceCsrMatrix a_inner,
                               std::shared_ptr<DevicePreconditioner> inner);
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;
  // `a`: A (outer type) with new values: converted into the inner copy, then the inner update.
  bool update_values(const DeviceCsrMatrix& a) override;

 private:
  DeviceCsrMatrix a_inner_;  // kept alive with the inner preconditioner that reads it
  std::shared_ptr<DevicePreconditioner> inner_;
  std::size_t n_;
  Conversion narrow_, widen_;
  ::cl::Buffer r_inner_, z_inner_;
};

}  // namespace clcg::solver
