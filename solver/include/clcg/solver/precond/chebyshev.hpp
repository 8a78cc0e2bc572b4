#pragma once
// Chebyshev polynomial preconditioning: M^-1 = p(D^-1 A) D^-1, where p is the degree-k
// Chebyshev polynomial that best approximates 1/lambda on [lower, upper] (D = diag(A)). Its
// apply is k passes of SpMV + vector updates, no reduction and no host sync. With upper above
// the largest eigenvalue of D^-1 A, p is positive on the whole spectrum, so M is SPD; upper
// comes from a Lanczos estimate on the device (spectrum.hpp) times a safety factor. The same
// polynomial smooths every level of the multigrid V-cycle.
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

// The polynomial on one matrix: keeps references to nothing (copies of the device handles).
class ChebyshevSmoother {
 public:
  // inv_diag: 1/diag(A); the polynomial targets [lower, upper] of D^-1 A.
  ChebyshevSmoother(const cl::Env& env, const Spmv& spmv, const ::cl::Buffer& inv_diag, double lower, double upper,
                    unsigned degree);
  // x += p(D^-1 A) D^-1 (b - A x); with zero_guess, x = p(D^-1 A) D^-1 b (x is only written).
  // b and x are different buffers of rows() elements.
  void apply(const ::cl::Buffer& b, ::cl::Buffer& x, bool zero_guess);
  // New values of the matrix on the same pattern (`spmv` updated, inv_diag refilled in place):
  // the interval again, the work vectors and kernels kept.
  void update_values(const Spmv& spmv, double lower, double upper);
  unsigned degree() const noexcept { return degree_; }
  // For a rank's rows of a distributed matrix, whose columns run past its rows into the ghosts:
  // around each product, `start` sends a vector's rows and `finish` fills its ghosts (after its
  // rows); the rows of `interior`, which read no ghost, are computed between the two
  // (rows_around). x then needs room for the ghosts too.
  struct Exchange {
    std::function<void(::cl::Buffer&)> start, finish;
    RowRange interior;
  };
  void set_exchange(Exchange exchange) { exchange_ = std::move(exchange); }

 private:
  void step(double c_d, double c_r, const ::cl::Buffer& b, const ::cl::Buffer& src, ::cl::Buffer& dst, RowRange rows);
  void set_interval(double lower, double upper);

  cl::Env env_;
  RowLayout layout_;
  VectorOps ops_;
  std::size_t n_;
  ::cl::Buffer inv_diag_, d_, scratch_;
  double theta_ = 0, delta_ = 0;
  unsigned degree_;
  cl::CachedKernel step_, start_;
  std::optional<Exchange> exchange_;
};

class ChebyshevPreconditioner : public DevicePreconditioner {
 public:
  ChebyshevPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const ChebyshevOptions& options);
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;  // z = p(D^-1 A) D^-1 r
  const Spmv* matrix_spmv() const noexcept override { return &spmv_; }

 private:
  Spmv spmv_;
  ::cl::Buffer inv_diag_;
  std::optional<ChebyshevSmoother> polynomial_;
};

}  // namespace clcg::solver
