#pragma once
// A sparse matrix in CSR form on an OpenCL device: row_ptr[rows + 1] and col_idx[nnz] as
// 32-bit ints, values[nnz] as float or double. A product of the AMG set-up with more than
// 2^31 - 1 nonzeros (A P past ~630^3) has 64-bit row offsets instead (RowOffsets::wide): only
// the sparse products read those (row_offsets()); every other kernel takes row_ptr(), which
// refuses them. Uploaded from any Eigen sparse matrix (row-
// or column-major, full storage or one stored triangle of a symmetric matrix, expanded on
// the way), or wrapped around buffers the caller already owns.
//
//   auto a = clcg::solver::DeviceCsrMatrix::upload(env, eigen_matrix, ElementType::f64);
//
// Sizes that do not fit 32-bit indices are rejected (std::length_error), never wrapped; the
// memory needed is checked against the device's global and max-allocation sizes before any
// allocation (DeviceMemoryError saying needed vs available bytes).
#include <Eigen/SparseCore>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/staged_upload.hpp"
#include "clcg/reduction/op.hpp"
#include "clcg/solver/sparse/device_memory.hpp"

namespace clcg::solver {

using reduction::ElementType;

// Which part of an Eigen matrix holds A: all of it, or one triangle of a symmetric A (the
// other triangle is mirrored from it and whatever is stored there ignored, as Eigen's
// selfadjointView<Lower/Upper> does).
enum class Storage { full, lower, upper };

// Largest row count and nonzero count clcg's 32-bit CSR indices can address.
inline constexpr std::uint64_t max_csr_index = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());

// The width of a device matrix's row offsets.
enum class RowOffsets { narrow, wide };  // 32-bit ints, 64-bit longs

// Throws std::length_error naming the count and the limit when rows, cols or nnz exceed
// max_csr_index (row_ptr must hold nnz, so nnz is limited too).
void check_index_range(std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz);

// Bytes the device CSR arrays need: (rows + 1) * 4 (8 for wide offsets) + nnz * (4 + sizeof(value)).
std::uint64_t bytes_needed(std::uint64_t rows, std::uint64_t nnz, ElementType type,
                           RowOffsets offsets = RowOffsets::narrow);

// A CSR matrix on the host with 32-bit indices: what is uploaded.
struct HostCsr {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::vector<std::int32_t> row_ptr{0};
  std::vector<std::int32_t> col_idx;
  std::vector<double> values;
  std::int32_t nnz() const noexcept { return static_cast<std::int32_t>(col_idx.size()); }
};

// A CSR matrix in arrays someone else owns (a HostCsr, a compressed row-major Eigen matrix,
// NumPy arrays), read in place: what is uploaded, with no copy on the host.
struct CsrView {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::span<const std::int32_t> row_ptr;
  std::span<const std::int32_t> col_idx;
  std::span<const double> values;

  CsrView() = default;
  CsrView(std::int32_t rows_, std::int32_t cols_, std::span<const std::int32_t> row_ptr_,
          std::span<const std::int32_t> col_idx_, std::span<const double> values_)
      : rows(rows_), cols(cols_), row_ptr(row_ptr_), col_idx(col_idx_), values(values_) {}
  CsrView(const HostCsr& a) : CsrView(a.rows, a.cols, a.row_ptr, a.col_idx, a.values) {}  // NOLINT: implicit on purpose
  std::int32_t nnz() const noexcept { return static_cast<std::int32_t>(col_idx.size()); }
};

// The arrays of a compressed row-major matrix with int indices (what the Matrix Market
// reader and the generators return) as a view; std::invalid_argument when it is not
// compressed or its sizes exceed 32-bit indices.
CsrView csr_view(const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& a);

// A copy of the view's arrays: for host set-ups (IC(0), AMG) that keep their own.
HostCsr to_host_csr(const CsrView& a);

// Expands any Eigen sparse matrix or expression into HostCsr with sorted columns. Checks the index range
// (in 64 bits) before allocating anything. Explicitly stored zeros are kept.
template <class Derived>
HostCsr to_host_csr(const Eigen::SparseMatrixBase<Derived>& matrix, Storage storage = Storage::full);

class DeviceCsrMatrix {
 public:
  DeviceCsrMatrix() = default;
  // Uploads `host` (values converted to `type`) on env's queue through pinned staging
  // (cl::StagedUpload: `staging` if given, else its own) and waits until the device holds it.
  // Checks the arrays' consistency and the device's memory first.
  DeviceCsrMatrix(const cl::Env& env, const CsrView& host, ElementType type, cl::StagedUpload* staging = nullptr);
  // Wraps buffers the caller owns (not copied): row_ptr (rows + 1 ints, or longs where
  // `offsets` is wide), col_idx (nnz ints) and values (nnz elements of `type`), with the same
  // layout as above. Sizes are checked against the buffers' sizes (std::invalid_argument), and
  // nnz against 32-bit offsets (std::length_error). `max_row_length`: the longest row where the
  // caller knows it (0: unknown).
  DeviceCsrMatrix(::cl::Buffer row_ptr, ::cl::Buffer col_idx, ::cl::Buffer values, std::int32_t rows,
                  std::int32_t cols, std::int64_t nnz, ElementType type, std::int32_t max_row_length = 0,
                  RowOffsets offsets = RowOffsets::narrow);

  // to_host_csr + upload.
  template <class Derived>
  static DeviceCsrMatrix upload(const cl::Env& env, const Eigen::SparseMatrixBase<Derived>& matrix, ElementType type,
                                Storage storage = Storage::full) {
    return DeviceCsrMatrix(env, to_host_csr(matrix, storage), type);
  }

  // The same shape (rows, columns, nonzeros, type, longest row) holding no arrays: what a holder
  // keeps of a matrix it no longer reads (Spmv::release_csr, beside its ELL copy); with `type`,
  // that of its values in another precision (an ELL copy converted from another's).
  DeviceCsrMatrix shape_only() const;
  DeviceCsrMatrix shape_only(ElementType type) const;
  bool has_arrays() const noexcept { return col_idx_() != nullptr; }
  // The same sparsity (row pointers and column indices shared, not copied) with other values:
  // nnz() elements of `type` (checked against the buffer's size).
  DeviceCsrMatrix with_values(::cl::Buffer values, ElementType type) const;
  // New values for the same pattern (nnz() of them, converted to type()) uploaded into
  // values() as the constructor uploads them; waits until the device holds them.
  void upload_values(const cl::Env& env, std::span<const double> values, cl::StagedUpload* staging = nullptr);

  // The 32-bit row pointers; std::length_error where the offsets are wide (a kernel that reads
  // ints would read them wrong).
  const ::cl::Buffer& row_ptr() const;
  // The row offsets of either width (for the sparse products' kernels, built for both).
  const ::cl::Buffer& row_offsets() const noexcept { return row_ptr_; }
  RowOffsets offsets() const noexcept { return offsets_; }
  const ::cl::Buffer& col_idx() const noexcept { return col_idx_; }
  const ::cl::Buffer& values() const noexcept { return values_; }
  std::int32_t rows() const noexcept { return rows_; }
  std::int32_t cols() const noexcept { return cols_; }
  std::int64_t nnz() const noexcept { return nnz_; }
  ElementType type() const noexcept { return type_; }
  double mean_row_length() const noexcept { return rows_ == 0 ? 0.0 : double(nnz_) / double(rows_); }
  // The longest row, known when uploaded from the host; for wrapped buffers as given (0: unknown).
  std::int32_t max_row_length() const noexcept { return max_row_length_; }
  std::uint64_t bytes() const noexcept {  // its arrays' (0 for a shape_only() one)
    return has_arrays() ? bytes_needed(std::uint64_t(rows_), std::uint64_t(nnz_), type_, offsets_) : 0;
  }

 private:
  void write_values(cl::StagedUpload& staging, std::span<const double> values);  // enqueued

  ::cl::Buffer row_ptr_;
  ::cl::Buffer col_idx_;
  ::cl::Buffer values_;
  std::int32_t rows_ = 0;
  std::int32_t cols_ = 0;
  std::int64_t nnz_ = 0;
  std::int32_t max_row_length_ = 0;
  ElementType type_ = ElementType::f64;
  RowOffsets offsets_ = RowOffsets::narrow;
};

// The device matrix read back to the host (values in double): for host set-ups (IC(0), AMG)
// when the matrix came as the caller's buffers. Wide offsets are read as they are and narrowed
// (std::length_error where nnz exceeds 32-bit indices).
HostCsr download(const cl::Env& env, const DeviceCsrMatrix& a);

// ---- implementation of the template ------------------------------------------------------
template <class Derived>
HostCsr to_host_csr(const Eigen::SparseMatrixBase<Derived>& matrix, Storage storage) {
  const auto& a = matrix.derived();
  using Index = Eigen::Index;
  check_index_range(std::uint64_t(a.rows()), std::uint64_t(a.cols()), 0);
  if (storage != Storage::full && a.rows() != a.cols())
    throw std::invalid_argument("a matrix stored as one triangle must be square, got " + std::to_string(a.rows()) +
                                " x " + std::to_string(a.cols()));
  // Calls f(row, col, value) for every entry of the expanded matrix. Through Eigen's
  // evaluator, so any sparse expression (0.5 * (A + A), a Map, a Ref, a block) is read as is.
  const Eigen::internal::evaluator<Derived> entries(a);
  auto for_each_entry = [&](auto&& f) {
    for (Index outer = 0; outer < a.outerSize(); ++outer)
      for (typename Eigen::internal::evaluator<Derived>::InnerIterator it(entries, outer); it; ++it) {
        const Index i = it.row(), j = it.col();
        const double v = static_cast<double>(it.value());
        if (storage == Storage::full) {
          f(i, j, v);
        } else if ((storage == Storage::lower && i >= j) || (storage == Storage::upper && i <= j)) {
          f(i, j, v);
          if (i != j) f(j, i, v);
        }
      }
  };
  HostCsr csr;
  csr.rows = static_cast<std::int32_t>(a.rows());
  csr.cols = static_cast<std::int32_t>(a.cols());
  std::vector<std::uint64_t> counts(std::size_t(a.rows()) + 1, 0);
  for_each_entry([&](Index i, Index, double) { ++counts[std::size_t(i) + 1]; });
  for (std::size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
  check_index_range(std::uint64_t(a.rows()), std::uint64_t(a.cols()), counts.back());
  csr.row_ptr.assign(counts.begin(), counts.end());
  csr.col_idx.resize(counts.back());
  csr.values.resize(counts.back());
  std::vector<std::uint64_t> next(counts.begin(), counts.end() - 1);
  for_each_entry([&](Index i, Index j, double v) {
    const std::uint64_t at = next[std::size_t(i)]++;
    csr.col_idx[at] = static_cast<std::int32_t>(j);
    csr.values[at] = v;
  });
  // Sort each row by column (column-major input and mirrored entries arrive out of order).
  std::vector<std::pair<std::int32_t, double>> row;
  for (std::int32_t i = 0; i < csr.rows; ++i) {
    const auto begin = csr.row_ptr[i], end = csr.row_ptr[i + 1];
    if (std::is_sorted(csr.col_idx.begin() + begin, csr.col_idx.begin() + end)) continue;
    row.clear();
    for (auto k = begin; k < end; ++k) row.emplace_back(csr.col_idx[k], csr.values[k]);
    std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto k = begin; k < end; ++k) std::tie(csr.col_idx[k], csr.values[k]) = row[std::size_t(k - begin)];
  }
  return csr;
}

}  // namespace clcg::solver
