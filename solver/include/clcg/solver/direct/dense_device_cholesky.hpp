#pragma once
// A dense Cholesky factor A = L L^T on the device, in double (kernels/dense_cholesky.cl): for
// the few-thousand-row matrices whose sparse factor is expensive (bcsstk13: 2,003 rows, a sparse
// factor of 55 Mflop, 22 ms on one host core) while the n^3 / 3 flops of a dense one are a
// millisecond of a GPU. The planner (krylov/plan.hpp) decides where it pays.
// A is stored column-major with its rows padded to a multiple of 64 (the identity below and to
// the right), so every kernel works on whole 64 x 64 tiles; the factor keeps the inverses of its
// diagonal blocks for the triangular solves.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/direct/cholesky_factor.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

class DenseDeviceCholesky final : public CholeskyFactor {
 public:
  static constexpr std::size_t block = 64;  // NB of the kernels

  // Device memory for a factor of `rows` rows (needs fp64: DeviceCapabilityError without it).
  DenseDeviceCholesky(const cl::Env& env, std::size_t rows);

  // Factors `a` (square, `rows` rows, full storage: only its lower triangle is read). Throws
  // NotPositiveDefinite naming the first column whose pivot is <= 0.
  void factorize(const CsrView& a);
  void solve(std::span<const double> b, std::span<double> x) const override;
  std::string_view kind() const noexcept override { return "dense LL^T on the device"; }
  // The same on device vectors of `rows` doubles.
  void solve(const ::cl::Buffer& b, const ::cl::Buffer& x) const;

  std::size_t rows() const noexcept { return rows_; }
  double factorize_seconds() const noexcept { return factorize_seconds_; }
  // The factorisation's flops and device bytes for `rows` rows (the padded size's).
  static double flops(std::size_t rows) noexcept;
  // Device time per kernel of the factorisations since the last call (waits for the queue);
  // empty unless the queue profiles (cg-bench's kernel table).
  std::vector<KernelTime> take_kernel_times();
  static std::uint64_t device_bytes(std::size_t rows) noexcept;

 private:
  void enqueue_solve() const;  // z_ (the right-hand side) -> x_
  ::cl::Event* record(const char* name);  // a factor launch's event to fill where the queue profiles

  cl::Env env_;
  std::size_t rows_ = 0, padded_ = 0;
  ::cl::Buffer a_, winv_, failed_;
  mutable ::cl::Buffer z_, y_, x_;  // a solve's vectors, padded: b (reduced), L^-1 b, x
  mutable ::cl::Kernel scatter_, factor_diagonal_, panel_, update_, forward_, backward_;
  double factorize_seconds_ = 0;
  bool profiling_ = false;
  std::vector<std::pair<std::string, ::cl::Event>> launches_;
};

}  // namespace clcg::solver
