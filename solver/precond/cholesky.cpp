#include "clcg/solver/precond/cholesky.hpp"

#include <algorithm>

#include "clcg/cl/error.hpp"

namespace clcg::solver {

CholeskyPreconditioner::CholeskyPreconditioner(const cl::Env& env, const CsrView& host, ElementType type,
                                               std::shared_ptr<SparseCholesky> analysed)
    : env_(env), type_(type), factor_(analysed ? std::move(analysed) : std::make_shared<SparseCholesky>(host)) {
  try {
    factor_->factorize(host);
  } catch (const NotPositiveDefinite& e) {
    throw PreconditionerBreakdown(e.what());
  }
  const std::size_t n = factor_->rows();
  r_.resize(n);
  z_.resize(n);
  if (type_ == ElementType::f32) narrow_.resize(n);
  const FactorEstimate& estimate = factor_->estimate();
  report_.name = "cholesky";
  report_.figures = {{"factor_nonzeros", double(estimate.factor_nonzeros)}, {"mflops", estimate.flops * 1e-6}};
  report_.phases = {{"ordering and symbolic analysis (host)", estimate.analyse_seconds},
                    {"numeric factorisation (host)", factor_->factorize_seconds()}};
}

void CholeskyPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  const std::size_t n = r_.size();
  if (n == 0) return;
  cl::checked("reading r back for the host Cholesky solve", [&] {
    if (type_ == ElementType::f64) {
      env_.queue().enqueueReadBuffer(r, CL_TRUE, 0, n * sizeof(double), r_.data());
    } else {
      env_.queue().enqueueReadBuffer(r, CL_TRUE, 0, n * sizeof(float), narrow_.data());
      std::copy(narrow_.begin(), narrow_.end(), r_.begin());
    }
  });
  factor_->solve(r_, z_);
  cl::checked("writing z after the host Cholesky solve", [&] {
    if (type_ == ElementType::f64) {
      env_.queue().enqueueWriteBuffer(z, CL_TRUE, 0, n * sizeof(double), z_.data());
    } else {
      std::copy(z_.begin(), z_.end(), narrow_.begin());
      env_.queue().enqueueWriteBuffer(z, CL_TRUE, 0, n * sizeof(float), narrow_.data());
    }
  });
}

}  // namespace clcg::solver
