#pragma once
// A sparse LDL^T factorisation of an SPD matrix with a fill-reducing ordering, on the host: an
// up-looking LDL^T (the algorithm of Eigen's SimplicialLDLT, which it replaced: the same time
// warm, 1.2-3x less on a process's first call, where a small matrix's whole solve is spent).
// The ordering is reverse Cuthill-McKee's where its factor is cheap enough that AMD could not
// pay for itself (at most 20 flops a nonzero of A, tried on at most 6 nonzeros a row: thin and
// banded matrices, power networks), else SuiteSparse's AMD. The analysis is a step of its own
// and predicts the factor's size and flops before any number is computed (what the planner
// needs, krylov/plan.hpp, at 0.01-0.5 ms for the matrices it analyses): RCM and the symbolic
// factor (elimination tree, column counts) where RCM is taken, else AMD alone, the symbolic
// factor following with the first values. A matrix with the same pattern and new values keeps
// both.
// A small matrix that is dense_from_fill full or more (AMG's coarsest operators: 128^3's 329
// rows are 25% full) is factored dense instead (a loop up to 64 rows, Eigen's blocked LLT
// above), as its factor fills in anyway: on 2 cores, analysis and factor 5.3 -> 1.6 ms and a
// solve 0.105 -> 0.022 ms there; its estimate is the dense factor's.
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>

#include "clcg/solver/direct/cholesky_factor.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// The factorisation met a pivot <= 0 (or a zero one): A is not positive definite (or not
// symmetric, for a general matrix whose upper triangle alone was factored).
class NotPositiveDefinite : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t dense_up_to_rows = 1000;
inline constexpr double dense_from_fill = 0.1;  // nnz / rows^2

// What the symbolic analysis predicts for the numeric factorisation.
struct FactorEstimate {
  std::size_t factor_nonzeros = 0;  // nnz(L), the unit diagonal left out
  double flops = 0;                 // AMD's count for LDL^T: divisions + 2 x multiply-subtracts
  double analyse_seconds = 0;       // the ordering (and with RCM's, the symbolic factor)
  const char* ordering = "none";    // "RCM", "AMD", or "dense" (none needed)
};

class SparseCholesky final : public CholeskyFactor {
 public:
  // Symbolic analysis of `a` (square, full storage, sorted columns; only the upper triangle is
  // read, so a general matrix is factored as the symmetric matrix of its upper triangle: the
  // direct method's residual check against the whole A then says it was not symmetric).
  explicit SparseCholesky(const CsrView& a);
  ~SparseCholesky();
  SparseCholesky(SparseCholesky&&) noexcept;
  SparseCholesky& operator=(SparseCholesky&&) noexcept;

  // Numeric factorisation of a matrix with the analysed pattern (new values allowed). Throws
  // NotPositiveDefinite naming the first pivot <= 0, std::invalid_argument for another pattern.
  void factorize(const CsrView& a);
  bool factorized() const noexcept;
  // x = A^-1 b with the last factorisation (b and x may alias).
  void solve(std::span<const double> b, std::span<double> x) const override;
  std::string_view kind() const noexcept override { return "sparse LDL^T"; }

  const FactorEstimate& estimate() const noexcept { return estimate_; }
  std::size_t rows() const noexcept { return rows_; }
  double factorize_seconds() const noexcept { return factorize_seconds_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  FactorEstimate estimate_;
  std::size_t rows_ = 0, nnz_ = 0;
  double factorize_seconds_ = 0;
};

}  // namespace clcg::solver
