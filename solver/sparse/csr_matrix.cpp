#include "clcg/solver/sparse/csr_matrix.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::solver {

void check_index_range(std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz) {
  auto reject = [](const char* what, std::uint64_t count) {
    throw std::length_error("matrix has " + std::to_string(count) + " " + what +
                            ", more than clcg's 32-bit CSR indices can address (at most " +
                            std::to_string(max_csr_index) + ")");
  };
  if (rows > max_csr_index) reject("rows", rows);
  if (cols > max_csr_index) reject("columns", cols);
  if (nnz > max_csr_index) reject("nonzeros (after expanding symmetric storage)", nnz);
}

namespace {
std::uint64_t offset_bytes(RowOffsets offsets) {
  return offsets == RowOffsets::wide ? sizeof(std::int64_t) : sizeof(std::int32_t);
}
}  // namespace

std::uint64_t bytes_needed(std::uint64_t rows, std::uint64_t nnz, ElementType type, RowOffsets offsets) {
  return (rows + 1) * offset_bytes(offsets) + nnz * (sizeof(std::int32_t) + reduction::element_size(type));
}

CsrView csr_view(const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& a) {
  if (!a.isCompressed()) throw std::invalid_argument("csr_view: the matrix is not compressed (call makeCompressed())");
  check_index_range(std::uint64_t(a.rows()), std::uint64_t(a.cols()), std::uint64_t(a.nonZeros()));
  const std::size_t rows = std::size_t(a.rows()), nnz = std::size_t(a.nonZeros());
  return CsrView(static_cast<std::int32_t>(a.rows()), static_cast<std::int32_t>(a.cols()), {a.outerIndexPtr(), rows + 1},
                 {a.innerIndexPtr(), nnz}, {a.valuePtr(), nnz});
}

HostCsr to_host_csr(const CsrView& a) {
  HostCsr copy;
  copy.rows = a.rows;
  copy.cols = a.cols;
  copy.row_ptr.assign(a.row_ptr.begin(), a.row_ptr.end());
  copy.col_idx.assign(a.col_idx.begin(), a.col_idx.end());
  copy.values.assign(a.values.begin(), a.values.end());
  return copy;
}

namespace {

// OpenCL has no empty buffers: an empty array still gets one element's worth.
::cl::Buffer allocate(const cl::Env& env, std::size_t bytes, const char* what) {
  return cl::checked(std::string("allocating CSR ") + what + " (" + std::to_string(bytes) + " bytes) on " +
                         env.info().name,
                     [&] { return ::cl::Buffer(env.context(), CL_MEM_READ_ONLY, bytes == 0 ? 8 : bytes); });
}

// The longest row, on the host threads io's passes use (a pass over row_ptr: 64 MB for 16M rows).
std::int32_t longest_row(std::span<const std::int32_t> row_ptr) {
  const std::size_t rows = row_ptr.size() - 1;
  std::vector<std::int32_t> longest(threads_for(rows, std::size_t(1) << 18), 0);
  parallel_ranges(rows, unsigned(longest.size()), [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t i = begin; i < end; ++i) longest[t] = std::max(longest[t], row_ptr[i + 1] - row_ptr[i]);
  });
  return *std::max_element(longest.begin(), longest.end());
}

}  // namespace

DeviceCsrMatrix::DeviceCsrMatrix(const cl::Env& env, const CsrView& host, ElementType type, cl::StagedUpload* staging)
    : rows_(host.rows), cols_(host.cols), nnz_(host.nnz()), type_(type) {
  if (host.row_ptr.size() != std::size_t(host.rows) + 1 || host.values.size() != host.col_idx.size() ||
      host.row_ptr.back() != host.nnz())
    throw std::invalid_argument("inconsistent CSR arrays: row_ptr has " + std::to_string(host.row_ptr.size()) +
                                " entries for " + std::to_string(host.rows) + " rows, " +
                                std::to_string(host.col_idx.size()) + " column indices, " +
                                std::to_string(host.values.size()) + " values");
  const std::uint64_t n = std::uint64_t(rows_), nnz = std::uint64_t(nnz_);
  const std::size_t value_bytes = std::size_t(nnz) * reduction::element_size(type);
  const std::uint64_t largest =
      std::max({(n + 1) * sizeof(std::int32_t), nnz * sizeof(std::int32_t), std::uint64_t(value_bytes)});
  check_device_memory(env.info(), bytes_needed(n, nnz, type), largest, "matrix");
  max_row_length_ = longest_row(host.row_ptr);
  row_ptr_ = allocate(env, host.row_ptr.size_bytes(), "row pointers");
  col_idx_ = allocate(env, host.col_idx.size_bytes(), "column indices");
  values_ = allocate(env, value_bytes, "values");
  std::optional<cl::StagedUpload> own;
  if (!staging) staging = &own.emplace(env);
  cl::checked("uploading a CSR matrix (" + std::to_string(bytes()) + " bytes) to " + env.info().name, [&] {
    // The largest array first, so the pinned staging is allocated once at its final size.
    write_values(*staging, host.values);
    staging->write(col_idx_, host.col_idx.data(), host.col_idx.size_bytes());
    staging->write(row_ptr_, host.row_ptr.data(), host.row_ptr.size_bytes());
    staging->finish();
  });
}

DeviceCsrMatrix::DeviceCsrMatrix(::cl::Buffer row_ptr, ::cl::Buffer col_idx, ::cl::Buffer values, std::int32_t rows,
                                 std::int32_t cols, std::int64_t nnz, ElementType type, std::int32_t max_row_length,
                                 RowOffsets offsets)
    : row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      rows_(rows),
      cols_(cols),
      nnz_(nnz),
      max_row_length_(max_row_length),
      type_(type),
      offsets_(offsets) {
  if (rows < 0 || cols < 0 || nnz < 0)
    throw std::invalid_argument("negative CSR size: rows " + std::to_string(rows) + ", cols " + std::to_string(cols) +
                                ", nnz " + std::to_string(nnz));
  if (offsets == RowOffsets::narrow) check_index_range(std::uint64_t(rows), std::uint64_t(cols), std::uint64_t(nnz));
  auto check = [](const ::cl::Buffer& buffer, std::uint64_t needed, const char* what) {
    const std::uint64_t size = cl::checked("querying a CSR buffer's size",
                                           [&] { return buffer.getInfo<CL_MEM_SIZE>(); });
    if (size < needed)
      throw std::invalid_argument(std::string("CSR ") + what + " buffer has " + std::to_string(size) +
                                  " bytes but needs " + std::to_string(needed));
  };
  check(row_ptr_, (std::uint64_t(rows) + 1) * offset_bytes(offsets), "row_ptr");
  check(col_idx_, std::uint64_t(nnz) * sizeof(std::int32_t), "col_idx");
  check(values_, std::uint64_t(nnz) * reduction::element_size(type), "values");
}

void DeviceCsrMatrix::write_values(cl::StagedUpload& staging, std::span<const double> values) {
  if (type_ == ElementType::f64) staging.write(values_, values.data(), values.size_bytes());
  else staging.write_narrowed(values_, values.data(), values.size());
}

void DeviceCsrMatrix::upload_values(const cl::Env& env, std::span<const double> values, cl::StagedUpload* staging) {
  if (values.size() != std::size_t(nnz_))
    throw std::invalid_argument("new values: " + std::to_string(values.size()) + " of them for a matrix of " +
                                std::to_string(nnz_) + " nonzeros");
  std::optional<cl::StagedUpload> own;
  if (!staging) staging = &own.emplace(env);
  cl::checked("uploading a CSR matrix's values to " + env.info().name, [&] {
    write_values(*staging, values);
    staging->finish();
  });
}

const ::cl::Buffer& DeviceCsrMatrix::row_ptr() const {
  if (offsets_ == RowOffsets::wide)
    throw std::length_error("a matrix of " + std::to_string(nnz_) +
                            " nonzeros has 64-bit row offsets, which only the sparse products read");
  return row_ptr_;
}

DeviceCsrMatrix DeviceCsrMatrix::shape_only() const {
  DeviceCsrMatrix shape = *this;
  shape.row_ptr_ = shape.col_idx_ = shape.values_ = ::cl::Buffer();
  return shape;
}

DeviceCsrMatrix DeviceCsrMatrix::shape_only(ElementType type) const {
  DeviceCsrMatrix shape = shape_only();
  shape.type_ = type;
  return shape;
}

DeviceCsrMatrix DeviceCsrMatrix::with_values(::cl::Buffer values, ElementType type) const {
  return DeviceCsrMatrix(row_ptr_, col_idx_, std::move(values), rows_, cols_, nnz_, type, max_row_length_, offsets_);
}

HostCsr download(const cl::Env& env, const DeviceCsrMatrix& a) {
  check_index_range(std::uint64_t(a.rows()), std::uint64_t(a.cols()), std::uint64_t(a.nnz()));
  HostCsr host;
  host.rows = a.rows();
  host.cols = a.cols();
  host.row_ptr.resize(std::size_t(a.rows()) + 1);
  host.col_idx.resize(std::size_t(a.nnz()));
  host.values.resize(std::size_t(a.nnz()));
  cl::checked("reading the matrix back", [&] {
    if (a.offsets() == RowOffsets::wide) {
      std::vector<std::int64_t> wide(host.row_ptr.size());
      env.queue().enqueueReadBuffer(a.row_offsets(), CL_TRUE, 0, wide.size() * sizeof(std::int64_t), wide.data());
      host.row_ptr.assign(wide.begin(), wide.end());  // (below 2^31: checked above)
    } else {
      env.queue().enqueueReadBuffer(a.row_ptr(), CL_TRUE, 0, host.row_ptr.size() * sizeof(std::int32_t),
                                    host.row_ptr.data());
    }
    if (a.nnz() == 0) return;
    env.queue().enqueueReadBuffer(a.col_idx(), CL_TRUE, 0, host.col_idx.size() * sizeof(std::int32_t), host.col_idx.data());
    if (a.type() == ElementType::f64) {
      env.queue().enqueueReadBuffer(a.values(), CL_TRUE, 0, host.values.size() * sizeof(double), host.values.data());
    } else {
      std::vector<float> narrow(host.values.size());
      env.queue().enqueueReadBuffer(a.values(), CL_TRUE, 0, narrow.size() * sizeof(float), narrow.data());
      host.values.assign(narrow.begin(), narrow.end());
    }
  });
  return host;
}

}  // namespace clcg::solver
