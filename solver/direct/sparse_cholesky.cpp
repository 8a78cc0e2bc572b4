#include "clcg/solver/direct/sparse_cholesky.hpp"

#include "clcg/solver/direct/reverse_cuthill_mckee.hpp"

#include <Eigen/Cholesky>
#include <Eigen/SparseCore>

#include <suitesparse/amd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clcg::solver {
namespace {

// Up to this many rows the dense factor is a plain loop: Eigen's blocked LLT takes the same
// time once warm (48 rows 4.8 against 4.9 us, 64 rows 9.3 against 10.5, on 2 cores) but 50-90
// us on its first call in a process, the loop 7 (bcsstk01, 48 rows); above, Eigen's is faster
// (96 rows 25 against 37 us).
constexpr std::size_t dense_loop_up_to_rows = 64;

// The sparse factor takes reverse Cuthill-McKee's order, not AMD's, where its factor costs at
// most this many flops a nonzero of A: AMD cannot pay for itself there. AMD takes ~20 ns a
// nonzero on 2 cores (pts5ldd03: 14.5 us warm, 51 on a process's first call) and ~50 on an H100
// host's core; the numeric factor ~1-2 ns a flop. On the shared matrices it picks RCM for
// pts5ldd03, 494_bus and 1138_bus (9.7K, 13.5K and 48K flops against AMD's 6.1K, 4.3K and 9.8K),
// AMD for gr_30_30 (RCM: ~1.5 Mflop against 0.41).
constexpr double rcm_up_to_flops_per_nonzero = 20;
// RCM is tried only on matrices of at most this many nonzeros a row: with more neighbours a row
// (2D stencils of 9 points, elasticity, 3D) its levels widen and its factor passes the bound
// above, and the attempt (three or four breadth-first searches and the start of a symbolic
// factor) would be paid on top of AMD: gr_30_30 (8.6 a row) 0.13 -> 0.17 ms on 2 cores.
constexpr double rcm_up_to_row_length = 6;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string pivot_text(double pivot) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", pivot);
  return text;
}

}  // namespace

// The sparse factor is an up-looking LDL^T (row k of L from a sparse triangular solve over the
// elimination tree's reach), written here rather than taken from Eigen's SimplicialLDLT, the
// same algorithm: Eigen's permutes A into a new matrix first and, on a process's first call,
// costs 2-3x its warm time in code brought in (pts5ldd03: 52 us against 15).
struct SparseCholesky::Impl {
  bool dense = false;
  // The sparse factor. A's upper triangle permuted by the order, by columns: column k holds
  // the rows i <= k of P A P^T, each with the index of its value in A (new values, same pattern).
  std::vector<int> order;  // pivot k is A's row order[k] (RCM's or AMD's)
  std::vector<std::size_t> upper_start;
  std::vector<int> upper_row;
  std::vector<std::int64_t> upper_source;
  std::vector<int> parent;               // the elimination tree (-1: a root)
  std::vector<std::size_t> l_start;      // L by columns, unit diagonal left out
  std::vector<int> l_row;
  std::vector<double> l_value, d;
  bool symbolic = false;
  // The dense factor: L column by column (lower triangle of an n x n array), or Eigen's.
  std::vector<double> small;
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt;
  bool factorized = false;

  bool analyse_pattern(const CsrView& a, double flops_budget, FactorEstimate& estimate);
  bool order_by_rcm(const CsrView& a, FactorEstimate& estimate);
  void factor_sparse(const CsrView& a);
  void factor_small(const CsrView& a);
  void solve_sparse(std::span<const double> b, std::span<double> x) const;
  void solve_small(std::span<const double> b, std::span<double> x) const;
};

// The permuted upper triangle, the elimination tree and L's column counts (the classic row-by-row
// walk up the tree from each entry of A's column k), and from them the factor's size and flops.
// Stops (false) as soon as the flops would pass the budget.
bool SparseCholesky::Impl::analyse_pattern(const CsrView& a, double flops_budget, FactorEstimate& estimate) {
  const std::size_t n = order.size();
  std::vector<int> position(n);
  for (std::size_t k = 0; k < n; ++k) position[std::size_t(order[k])] = int(k);
  upper_start.assign(n + 1, 0);
  for (std::int32_t r = 0; r < a.rows; ++r)
    for (std::int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
      if (a.col_idx[std::size_t(p)] >= r)
        ++upper_start[std::size_t(std::max(position[std::size_t(r)], position[std::size_t(a.col_idx[std::size_t(p)])])) + 1];
  for (std::size_t k = 0; k < n; ++k) upper_start[k + 1] += upper_start[k];
  upper_row.resize(upper_start[n]);
  upper_source.resize(upper_start[n]);
  std::vector<std::size_t> next(upper_start.begin(), upper_start.end() - 1);
  for (std::int32_t r = 0; r < a.rows; ++r)
    for (std::int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
      const std::int32_t c = a.col_idx[std::size_t(p)];
      if (c < r) continue;
      const int i = position[std::size_t(r)], j = position[std::size_t(c)];
      const std::size_t at = next[std::size_t(std::max(i, j))]++;
      upper_row[at] = std::min(i, j);
      upper_source[at] = p;
    }
  parent.assign(n, -1);
  std::vector<int> flag(n);
  std::vector<std::size_t> count(n, 0);
  // The flops as AMD counts them: a column of c nonzeros costs c divisions and c (c + 1) / 2
  // multiply-subtracts, twice: c (c + 2), which grows by 2 c + 3 with each nonzero.
  std::size_t nonzeros = 0;
  double flops = 0;
  for (std::size_t k = 0; k < n; ++k) {
    flag[k] = int(k);
    for (std::size_t q = upper_start[k]; q < upper_start[k + 1]; ++q)
      for (int i = upper_row[q]; flag[std::size_t(i)] != int(k); i = parent[std::size_t(i)]) {
        if (parent[std::size_t(i)] == -1) parent[std::size_t(i)] = int(k);
        flops += 2 * double(count[std::size_t(i)]++) + 3;  // L(k, i) is a nonzero
        ++nonzeros;
        flag[std::size_t(i)] = int(k);
      }
    if (flops > flops_budget) return false;
  }
  estimate.factor_nonzeros = nonzeros;
  estimate.flops = flops;
  // Each column's rows in order: the reach then visits L's columns in an order that keeps the
  // numeric factor at Eigen's speed (bcsstk16 on 2 cores: 50 ms sorted, 59 unsorted).
  std::vector<std::pair<int, std::int64_t>> column;
  for (std::size_t k = 0; k < n; ++k) {
    const auto rows = upper_row.begin();
    if (std::is_sorted(rows + std::ptrdiff_t(upper_start[k]), rows + std::ptrdiff_t(upper_start[k + 1]))) continue;
    column.clear();
    for (std::size_t q = upper_start[k]; q < upper_start[k + 1]; ++q) column.emplace_back(upper_row[q], upper_source[q]);
    std::sort(column.begin(), column.end());
    for (std::size_t q = upper_start[k]; q < upper_start[k + 1]; ++q) std::tie(upper_row[q], upper_source[q]) = column[q - upper_start[k]];
  }
  l_start.assign(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) l_start[k + 1] = l_start[k] + count[k];
  l_row.resize(l_start[n]);
  l_value.resize(l_start[n]);
  d.resize(n);
  return true;
}

// RCM's order and the symbolic factor, where A's rows are short enough to try it and the factor
// comes within the bound; else false (and the order is AMD's to make).
bool SparseCholesky::Impl::order_by_rcm(const CsrView& a, FactorEstimate& estimate) {
  const double nnz = double(a.nnz());
  if (nnz > rcm_up_to_row_length * double(a.rows)) return false;
  order = reverse_cuthill_mckee(a);
  symbolic = analyse_pattern(a, rcm_up_to_flops_per_nonzero * nnz, estimate);
  if (symbolic) estimate.ordering = "RCM";
  return symbolic;
}

// Row k of L solves L(0:k, 0:k) D y = A(0:k, k) over the rows the tree reaches from A's column k.
void SparseCholesky::Impl::factor_sparse(const CsrView& a) {
  const std::size_t n = order.size();
  std::vector<double> y(n, 0.0);
  std::vector<int> flag(n), reach(n), path(n);
  std::vector<std::size_t> filled(l_start.begin(), l_start.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    flag[k] = int(k);
    std::size_t top = n;  // reach[top, n): the rows of L's row k, each after its descendants
    for (std::size_t q = upper_start[k]; q < upper_start[k + 1]; ++q) {
      int i = upper_row[q];
      y[std::size_t(i)] += a.values[std::size_t(upper_source[q])];
      std::size_t length = 0;
      for (; flag[std::size_t(i)] != int(k); i = parent[std::size_t(i)]) {
        path[length++] = i;
        flag[std::size_t(i)] = int(k);
      }
      while (length > 0) reach[--top] = path[--length];
    }
    double pivot = y[k];
    y[k] = 0;
    for (; top < n; ++top) {
      const std::size_t i = std::size_t(reach[top]);
      const double yi = y[i];
      y[i] = 0;
      for (std::size_t p = l_start[i]; p < filled[i]; ++p) y[std::size_t(l_row[p])] -= l_value[p] * yi;
      const double l_ki = yi / d[i];
      pivot -= l_ki * yi;
      l_row[filled[i]] = int(k);
      l_value[filled[i]++] = l_ki;
    }
    if (!(pivot > 0))
      throw NotPositiveDefinite("A is not positive definite: its LDL^T factorisation has pivot " + pivot_text(pivot) +
                                " (at position " + std::to_string(k + 1) + " of the fill-reducing order)");
    d[k] = pivot;
  }
}

// Right-looking, a column at a time: each update is a contiguous axpy.
void SparseCholesky::Impl::factor_small(const CsrView& a) {
  const std::size_t n = std::size_t(a.rows);
  small.assign(n * n, 0.0);
  for (std::int32_t r = 0; r < a.rows; ++r)  // A's upper triangle: column r of L below the diagonal
    for (std::int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
      if (a.col_idx[std::size_t(p)] >= r) small[std::size_t(r) * n + std::size_t(a.col_idx[std::size_t(p)])] = a.values[std::size_t(p)];
  for (std::size_t j = 0; j < n; ++j) {
    double* column = &small[j * n];
    if (!(column[j] > 0))
      throw NotPositiveDefinite("A is not positive definite: its dense Cholesky factorisation met pivot " +
                                pivot_text(column[j]) + " at row " + std::to_string(j + 1));
    const double diagonal = std::sqrt(column[j]);
    column[j] = diagonal;
    for (std::size_t i = j + 1; i < n; ++i) column[i] /= diagonal;
    for (std::size_t k = j + 1; k < n; ++k) {
      double* later = &small[k * n];
      const double f = column[k];
      for (std::size_t i = k; i < n; ++i) later[i] -= f * column[i];
    }
  }
}

void SparseCholesky::Impl::solve_sparse(std::span<const double> b, std::span<double> x) const {
  const std::size_t n = order.size();
  std::vector<double> z(n);
  for (std::size_t k = 0; k < n; ++k) z[k] = b[std::size_t(order[k])];
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = l_start[j]; p < l_start[j + 1]; ++p) z[std::size_t(l_row[p])] -= l_value[p] * z[j];
  for (std::size_t j = 0; j < n; ++j) z[j] /= d[j];
  for (std::size_t j = n; j-- > 0;)
    for (std::size_t p = l_start[j]; p < l_start[j + 1]; ++p) z[j] -= l_value[p] * z[std::size_t(l_row[p])];
  for (std::size_t k = 0; k < n; ++k) x[std::size_t(order[k])] = z[k];
}

void SparseCholesky::Impl::solve_small(std::span<const double> b, std::span<double> x) const {
  const std::size_t n = b.size();
  std::vector<double> z(b.begin(), b.end());
  for (std::size_t j = 0; j < n; ++j) {  // L z = b
    const double* column = &small[j * n];
    z[j] /= column[j];
    for (std::size_t i = j + 1; i < n; ++i) z[i] -= column[i] * z[j];
  }
  for (std::size_t j = n; j-- > 0;) {  // L^T x = z
    const double* column = &small[j * n];
    for (std::size_t i = j + 1; i < n; ++i) z[j] -= column[i] * z[i];
    z[j] /= column[j];
  }
  std::copy(z.begin(), z.end(), x.begin());
}

SparseCholesky::SparseCholesky(const CsrView& a) : impl_(std::make_unique<Impl>()) {
  if (a.rows != a.cols)
    throw std::invalid_argument("a Cholesky factorisation needs a square matrix, got " + std::to_string(a.rows) +
                                " x " + std::to_string(a.cols));
  const auto start = std::chrono::steady_clock::now();
  rows_ = std::size_t(a.rows);
  nnz_ = std::size_t(a.nnz());
  impl_->dense = rows_ > 0 && rows_ <= dense_up_to_rows && double(nnz_) >= dense_from_fill * double(rows_) * double(rows_);
  if (impl_->dense) {
    estimate_.ordering = "dense";
    for (std::size_t j = 0; j < rows_; ++j) {  // column j of L below the diagonal
      const double c = double(rows_ - 1 - j);
      estimate_.factor_nonzeros += std::size_t(c);
      estimate_.flops += (c + 1) * (c + 1);
    }
  } else if (rows_ > 0 && !impl_->order_by_rcm(a, estimate_)) {  // AMD on A's full pattern (CSR is its own transpose's CSC)
    impl_->order.resize(rows_);
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    const int status = amd_order(a.rows, a.row_ptr.data(), a.col_idx.data(), impl_->order.data(), control, info);
    if (status == AMD_OUT_OF_MEMORY) throw std::bad_alloc();
    if (status < AMD_OK) throw std::invalid_argument("AMD ordering rejected the pattern (status " + std::to_string(status) + ")");
    estimate_.factor_nonzeros = std::size_t(info[AMD_LNZ]);
    estimate_.flops = info[AMD_NDIV] + 2 * info[AMD_NMULTSUBS_LDL];
    estimate_.ordering = "AMD";
  }
  estimate_.analyse_seconds = seconds_since(start);
}

SparseCholesky::~SparseCholesky() = default;
SparseCholesky::SparseCholesky(SparseCholesky&&) noexcept = default;
SparseCholesky& SparseCholesky::operator=(SparseCholesky&&) noexcept = default;

bool SparseCholesky::factorized() const noexcept { return impl_->factorized; }

void SparseCholesky::factorize(const CsrView& a) {
  if (std::size_t(a.rows) != rows_ || std::size_t(a.nnz()) != nnz_)
    throw std::invalid_argument("factorize: the matrix (" + std::to_string(a.rows) + " rows, " +
                                std::to_string(a.nnz()) + " nonzeros) is not the analysed one (" +
                                std::to_string(rows_) + " rows, " + std::to_string(nnz_) + " nonzeros)");
  const auto start = std::chrono::steady_clock::now();
  impl_->factorized = false;
  if (impl_->dense && rows_ <= dense_loop_up_to_rows) {
    impl_->factor_small(a);
  } else if (impl_->dense) {
    // Eigen reads the lower triangle of A's columns: A's upper triangle, as the loops above.
    impl_->llt.compute(Eigen::MatrixXd(Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>>(
        a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data())));
    if (impl_->llt.info() != Eigen::Success || !impl_->llt.matrixLLT().diagonal().allFinite())
      throw NotPositiveDefinite("A is not positive definite: its dense Cholesky factorisation met a pivot <= 0");
  } else {
    if (!impl_->symbolic) {  // AMD's order: the symbolic factor on the first values
      FactorEstimate exact;
      impl_->analyse_pattern(a, INFINITY, exact);
      impl_->symbolic = true;
    }
    impl_->factor_sparse(a);
  }
  impl_->factorized = true;
  factorize_seconds_ = seconds_since(start);
}

void SparseCholesky::solve(std::span<const double> b, std::span<double> x) const {
  if (!impl_->factorized) throw std::logic_error("SparseCholesky::solve before a successful factorize");
  if (b.size() != rows_ || x.size() != rows_)
    throw std::invalid_argument("SparseCholesky::solve: vectors of " + std::to_string(b.size()) + " and " +
                                std::to_string(x.size()) + " entries for " + std::to_string(rows_) + " rows");
  if (rows_ == 0) return;
  if (!impl_->dense) return impl_->solve_sparse(b, x);  // (each works on a copy: b and x may alias)
  if (rows_ <= dense_loop_up_to_rows) return impl_->solve_small(b, x);
  const Eigen::Map<const Eigen::VectorXd> bv(b.data(), Eigen::Index(rows_));
  Eigen::Map<Eigen::VectorXd> xv(x.data(), Eigen::Index(rows_));
  xv = impl_->llt.solve(bv);  // solve() evaluates into a temporary
}

}  // namespace clcg::solver
