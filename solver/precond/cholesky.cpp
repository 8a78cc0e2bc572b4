#include "clcg/solver/precond/cholesky.hpp"

#include <algorithm>

#include "clcg/cl/error.hpp"
#include "clcg/solver/direct/dense_device_cholesky.hpp"

namespace clcg::solver {

CholeskyPreconditioner::CholeskyPreconditioner(const cl::Env& env, const CsrView& host, ElementType type,
                                               std::shared_ptr<SparseCholesky> analysed, bool on_device)
    : env_(env), type_(type) {
  report_.name = "cholesky";
  try {
    if (on_device) {
      dense_ = std::make_unique<DenseDeviceCholesky>(env_, std::size_t(host.rows));
      dense_->factorize(host);
      report_.figures = {{"factor_nonzeros", double(host.rows) * double(host.rows - 1) / 2},
                         {"mflops", DenseDeviceCholesky::flops(std::size_t(host.rows)) * 1e-6}};
      report_.phases = {{"dense numeric factorisation (device)", dense_->factorize_seconds()}};
      report_.kernels = dense_->take_kernel_times();
    } else {
      sparse_ = analysed ? std::move(analysed) : std::make_shared<SparseCholesky>(host);
      sparse_->factorize(host);
      const FactorEstimate& estimate = sparse_->estimate();
      report_.figures = {{"factor_nonzeros", double(estimate.factor_nonzeros)}, {"mflops", estimate.flops * 1e-6}};
      report_.phases = {{"ordering (host)", estimate.analyse_seconds},
                        {"symbolic and numeric factorisation (host)", sparse_->factorize_seconds()}};
    }
  } catch (const NotPositiveDefinite& e) {
    throw PreconditionerBreakdown(e.what());
  }
  const std::size_t n = std::size_t(host.rows);
  if (!dense_ || type_ == ElementType::f32) {
    r_.resize(n);
    z_.resize(n);
  }
  if (type_ == ElementType::f32) narrow_.resize(n);
}

CholeskyPreconditioner::~CholeskyPreconditioner() = default;

const CholeskyFactor& CholeskyPreconditioner::factor() const noexcept {
  if (dense_) return *dense_;
  return *sparse_;
}

void CholeskyPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  if (dense_ && type_ == ElementType::f64) return dense_->solve(r, z);  // r stays on the device
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
  factor().solve(r_, z_);
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
