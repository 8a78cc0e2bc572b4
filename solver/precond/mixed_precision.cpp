#include "clcg/solver/precond/mixed_precision.hpp"

#include <utility>

#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

MixedPrecisionPreconditioner::MixedPrecisionPreconditioner(const cl::Env& env, ElementType outer,
                                                           DeviceCsrMatrix a_inner,
                                                           std::shared_ptr<DevicePreconditioner> inner)
    : a_inner_(std::move(a_inner)),
      inner_(std::move(inner)),
      n_(std::size_t(a_inner_.rows())),
      narrow_(env, outer, a_inner_.type()),
      widen_(env, a_inner_.type(), outer),
      r_inner_(make_vector(env, a_inner_.type(), n_)),
      z_inner_(make_vector(env, a_inner_.type(), n_)) {
  report_ = inner_->report();
  report_.precision = std::string(reduction::type_name(a_inner_.type()));
}

void MixedPrecisionPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  narrow_.enqueue(n_, r, r_inner_);
  inner_->apply(r_inner_, z_inner_);
  widen_.enqueue(n_, z_inner_, z);
}

}  // namespace clcg::solver
