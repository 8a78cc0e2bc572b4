#include "clcg/solver/sparse/csr_matrix.hpp"

#include <string>

#include "clcg/cl/error.hpp"

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

std::uint64_t bytes_needed(std::uint64_t rows, std::uint64_t nnz, ElementType type) {
  return (rows + 1) * sizeof(std::int32_t) + nnz * (sizeof(std::int32_t) + reduction::element_size(type));
}

namespace {

::cl::Buffer upload_bytes(const cl::Env& env, const void* data, std::size_t bytes, const char* what) {
  // OpenCL has no empty buffers: an empty array still gets one element's worth.
  const std::size_t size = bytes == 0 ? 8 : bytes;
  return cl::checked(std::string("uploading CSR ") + what + " (" + std::to_string(bytes) + " bytes) to " +
                         env.info().name,
                     [&] {
                       ::cl::Buffer buffer(env.context(), CL_MEM_READ_ONLY, size);
                       if (bytes != 0) env.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data);
                       return buffer;
                     });
}

}  // namespace

DeviceCsrMatrix::DeviceCsrMatrix(const cl::Env& env, const HostCsr& host, ElementType type)
    : rows_(host.rows), cols_(host.cols), nnz_(host.nnz()), type_(type) {
  if (host.row_ptr.size() != std::size_t(host.rows) + 1 || host.values.size() != host.col_idx.size() ||
      host.row_ptr.back() != host.nnz())
    throw std::invalid_argument("inconsistent CSR arrays: row_ptr has " + std::to_string(host.row_ptr.size()) +
                                " entries for " + std::to_string(host.rows) + " rows, " +
                                std::to_string(host.col_idx.size()) + " column indices, " +
                                std::to_string(host.values.size()) + " values");
  const std::uint64_t n = std::uint64_t(rows_), nnz = std::uint64_t(nnz_);
  const std::uint64_t largest =
      std::max({(n + 1) * sizeof(std::int32_t), nnz * sizeof(std::int32_t), nnz * reduction::element_size(type)});
  check_device_memory(env.info(), bytes_needed(n, nnz, type), largest, "matrix");
  for (std::int32_t i = 0; i < rows_; ++i)
    max_row_length_ = std::max(max_row_length_, host.row_ptr[std::size_t(i) + 1] - host.row_ptr[std::size_t(i)]);
  row_ptr_ = upload_bytes(env, host.row_ptr.data(), host.row_ptr.size() * sizeof(std::int32_t), "row pointers");
  col_idx_ = upload_bytes(env, host.col_idx.data(), host.col_idx.size() * sizeof(std::int32_t), "column indices");
  if (type == ElementType::f64) {
    values_ = upload_bytes(env, host.values.data(), host.values.size() * sizeof(double), "values");
  } else {
    const std::vector<float> narrow(host.values.begin(), host.values.end());
    values_ = upload_bytes(env, narrow.data(), narrow.size() * sizeof(float), "values");
  }
}

DeviceCsrMatrix::DeviceCsrMatrix(::cl::Buffer row_ptr, ::cl::Buffer col_idx, ::cl::Buffer values, std::int32_t rows,
                                 std::int32_t cols, std::int32_t nnz, ElementType type)
    : row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      rows_(rows),
      cols_(cols),
      nnz_(nnz),
      type_(type) {
  if (rows < 0 || cols < 0 || nnz < 0)
    throw std::invalid_argument("negative CSR size: rows " + std::to_string(rows) + ", cols " + std::to_string(cols) +
                                ", nnz " + std::to_string(nnz));
  auto check = [](const ::cl::Buffer& buffer, std::uint64_t needed, const char* what) {
    const std::uint64_t size = cl::checked("querying a CSR buffer's size",
                                           [&] { return buffer.getInfo<CL_MEM_SIZE>(); });
    if (size < needed)
      throw std::invalid_argument(std::string("CSR ") + what + " buffer has " + std::to_string(size) +
                                  " bytes but needs " + std::to_string(needed));
  };
  check(row_ptr_, (std::uint64_t(rows) + 1) * sizeof(std::int32_t), "row_ptr");
  check(col_idx_, std::uint64_t(nnz) * sizeof(std::int32_t), "col_idx");
  check(values_, std::uint64_t(nnz) * reduction::element_size(type), "values");
}

DeviceCsrMatrix DeviceCsrMatrix::with_values(::cl::Buffer values, ElementType type) const {
  DeviceCsrMatrix m(row_ptr_, col_idx_, std::move(values), rows_, cols_, nnz_, type);
  m.max_row_length_ = max_row_length_;
  return m;
}

HostCsr download(const cl::Env& env, const DeviceCsrMatrix& a) {
  HostCsr host;
  host.rows = a.rows();
  host.cols = a.cols();
  host.row_ptr.resize(std::size_t(a.rows()) + 1);
  host.col_idx.resize(std::size_t(a.nnz()));
  host.values.resize(std::size_t(a.nnz()));
  cl::checked("reading the matrix back", [&] {
    env.queue().enqueueReadBuffer(a.row_ptr(), CL_TRUE, 0, host.row_ptr.size() * sizeof(std::int32_t), host.row_ptr.data());
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
