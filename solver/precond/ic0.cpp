#include "clcg/solver/precond/ic0.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace clcg::solver {
namespace {

// A's lower triangle (diagonal included) as CSR, diagonal entries scaled by (1 + shift).
HostCsr lower_triangle(const HostCsr& a, double shift) {
  HostCsr l;
  l.rows = l.cols = a.rows;
  l.row_ptr.assign(std::size_t(a.rows) + 1, 0);
  for (std::int32_t i = 0; i < a.rows; ++i) {
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int32_t j = a.col_idx[k];
      if (j > i) break;  // columns are sorted
      l.col_idx.push_back(j);
      l.values.push_back(j == i ? a.values[k] * (1 + shift) : a.values[k]);
    }
    l.row_ptr[std::size_t(i) + 1] = static_cast<std::int32_t>(l.col_idx.size());
  }
  return l;
}

// IC(0) in place on the lower triangle; false at the first pivot <= 0.
bool factor(HostCsr& l) {
  std::vector<std::int32_t> diagonal(std::size_t(l.rows), -1);
  for (std::int32_t i = 0; i < l.rows; ++i) {
    const std::int32_t begin = l.row_ptr[i], end = l.row_ptr[i + 1];
    for (std::int32_t e = begin; e < end; ++e) {
      const std::int32_t k = l.col_idx[e];
      // sum over j < k of l_ij l_kj: merge row i (before e) with row k (before its diagonal).
      double sum = 0;
      std::int32_t p = begin, q = l.row_ptr[k];
      const std::int32_t q_end = k == i ? e : diagonal[std::size_t(k)];
      while (p < e && q < q_end) {
        const std::int32_t cp = l.col_idx[p], cq = l.col_idx[q];
        if (cp == cq) sum += l.values[p++] * l.values[q++];
        else if (cp < cq) ++p;
        else ++q;
      }
      if (k < i) {
        if (diagonal[std::size_t(k)] < 0) return false;  // no diagonal stored in row k
        l.values[e] = (l.values[e] - sum) / l.values[diagonal[std::size_t(k)]];
      } else {
        const double pivot = l.values[e] - sum;
        if (!(pivot > 0) || !std::isfinite(pivot)) return false;
        l.values[e] = std::sqrt(pivot);
        diagonal[std::size_t(i)] = e;
      }
    }
    if (diagonal[std::size_t(i)] < 0) return false;  // no diagonal entry: not SPD
  }
  return true;
}

// The strictly triangular part of the factor: L without its diagonal, or its transpose.
HostCsr strict_part(const HostCsr& l, bool transpose) {
  HostCsr s;
  s.rows = s.cols = l.rows;
  s.row_ptr.assign(std::size_t(l.rows) + 1, 0);
  for (std::int32_t i = 0; i < l.rows; ++i)
    for (std::int32_t k = l.row_ptr[i]; k < l.row_ptr[i + 1]; ++k)
      if (l.col_idx[k] != i) ++s.row_ptr[std::size_t(transpose ? l.col_idx[k] : i) + 1];
  for (std::size_t i = 1; i < s.row_ptr.size(); ++i) s.row_ptr[i] += s.row_ptr[i - 1];
  s.col_idx.resize(std::size_t(s.row_ptr.back()));
  s.values.resize(s.col_idx.size());
  std::vector<std::int32_t> next(s.row_ptr.begin(), s.row_ptr.end() - 1);
  for (std::int32_t i = 0; i < l.rows; ++i)  // rows in order: each transposed row's columns come sorted
    for (std::int32_t k = l.row_ptr[i]; k < l.row_ptr[i + 1]; ++k) {
      const std::int32_t j = l.col_idx[k];
      if (j == i) continue;
      const std::int32_t at = next[std::size_t(transpose ? j : i)]++;
      s.col_idx[std::size_t(at)] = transpose ? i : j;
      s.values[std::size_t(at)] = l.values[k];
    }
  return s;
}

}  // namespace

IncompleteCholesky incomplete_cholesky(const HostCsr& a) {
  if (a.rows != a.cols) throw std::invalid_argument("IC(0) needs a square matrix");
  for (double shift : {0.0, 1e-3, 4e-3, 1.6e-2, 6.4e-2, 0.256, 1.024, 4.096, 10.0}) {
    IncompleteCholesky ic{lower_triangle(a, shift), shift};
    if (factor(ic.lower)) return ic;
  }
  throw PreconditionerBreakdown(
      "IC(0) breaks down (a pivot <= 0) even with a diagonal shift of 10 diag(A): A is not symmetric positive definite");
}

Ic0Preconditioner::Ic0Preconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const HostCsr& host,
                                     const Ic0Options& options)
    : env_(env), n_(std::size_t(a.rows())), sweeps_(options.sweeps), ops_(env, a.type()) {
  const auto start = std::chrono::steady_clock::now();
  const IncompleteCholesky ic = incomplete_cholesky(host);
  const double factored = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> inv_d(n_);
  for (std::size_t i = 0; i < n_; ++i)
    inv_d[i] = 1 / ic.lower.values[std::size_t(ic.lower.row_ptr[i + 1] - 1)];  // the diagonal ends each row
  inv_d_ = make_vector(env, a.type(), n_);
  y_ = make_vector(env, a.type(), n_);
  scratch_ = make_vector(env, a.type(), n_);
  upload_vector(env, inv_d, a.type(), inv_d_);
  for (bool transpose : {false, true}) strict_.emplace_back(env, strict_part(ic.lower, transpose), a.type());
  for (const DeviceCsrMatrix& s : strict_) {
    spmv_.emplace_back(env, s);
    layout_.emplace_back(env, spmv_.back());
    sweep_.emplace_back(env.kernel("ic0.cl", layout_.back().kernel_name("triangular_sweep").c_str(),
                                   layout_.back().build_options()));
  }
  env.queue().finish();
  report_.name = "ic0";
  report_.figures = {{"sweeps", double(sweeps_)}, {"shift", ic.shift}, {"factor_nnz", double(ic.lower.nnz())}};
  report_.phases = {{"factor (host)", factored}};
}

void Ic0Preconditioner::solve(std::size_t which, const ::cl::Buffer& rhs, ::cl::Buffer& out) {
  // The sweeps alternate between out and scratch: start where the last one lands in out.
  ::cl::Buffer* in = sweeps_ % 2 ? &scratch_ : &out;
  ::cl::Buffer* next = sweeps_ % 2 ? &out : &scratch_;
  ops_.diag_mul(n_, inv_d_, rhs, *in);  // the diagonal alone
  for (unsigned s = 0; s < sweeps_; ++s) {
    cl_uint arg = 0;
    RowLayout& layout = layout_[which];
    const std::size_t groups = layout.set_args(sweep_[which], arg, 64 * env_.info().compute_units);
    for (const ::cl::Buffer* v : {static_cast<const ::cl::Buffer*>(&inv_d_), &rhs, static_cast<const ::cl::Buffer*>(in)})
      sweep_[which].set(arg++, *v);
    sweep_[which].set(arg++, *next);
    layout.launch(sweep_[which], "triangular_sweep", groups);
    std::swap(in, next);
  }
}

void Ic0Preconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  if (n_ == 0) return;
  solve(0, r, y_);   // y ~ L^-1 r
  solve(1, y_, z);   // z ~ L^-T y
}

}  // namespace clcg::solver
