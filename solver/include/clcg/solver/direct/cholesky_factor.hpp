#pragma once
// What the direct method (krylov/direct_solve.hpp) needs of a factor of A: x = A^-1 b. Two kinds
// hold one: the sparse LDL^T on the host (sparse_cholesky.hpp) and the dense LL^T on the device
// (dense_device_cholesky.hpp); the planner (krylov/plan.hpp) picks which.
#include <span>
#include <string_view>

namespace clcg::solver {

class CholeskyFactor {
 public:
  virtual ~CholeskyFactor() = default;
  // x = A^-1 b with the last factorisation (b and x may alias).
  virtual void solve(std::span<const double> b, std::span<double> x) const = 0;
  // What it is, for messages: "sparse LDL^T" or "dense LL^T on the device".
  virtual std::string_view kind() const noexcept = 0;
};

}  // namespace clcg::solver
