#include "clcg/solver/precond/mixed_precision.hpp"

#include <stdexcept>
#include <string>
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

bool MixedPrecisionPreconditioner::update_values(const DeviceCsrMatrix& a) {
  if (a.rows() != a_inner_.rows() || a.nnz() != a_inner_.nnz())
    throw std::invalid_argument("update_values: the matrix has " + std::to_string(a.rows()) + " rows and " +
                                std::to_string(a.nnz()) + " nonzeros, the preconditioner's " +
                                std::to_string(a_inner_.rows()) + " and " + std::to_string(a_inner_.nnz()));
  ::cl::Buffer values = a_inner_.values();
  narrow_.enqueue(std::size_t(a.nnz()), a.values(), values);  // the vector conversion serves the values too
  if (!inner_->update_values(a_inner_)) return false;
  const std::string precision = report_.precision;
  report_ = inner_->report();
  report_.precision = precision;
  return true;
}

void MixedPrecisionPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  narrow_.enqueue(n_, r, r_inner_);
  inner_->apply(r_inner_, z_inner_);
  widen_.enqueue(n_, z_inner_, z);
}

}  // namespace clcg::solver
