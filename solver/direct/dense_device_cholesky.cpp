#include "clcg/solver/direct/dense_device_cholesky.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/sparse/launch.hpp"

namespace clcg::solver {
namespace {

constexpr std::size_t tile_items = 256;        // TILE_ITEMS of the kernels
constexpr std::size_t scatter_items = 128;
constexpr std::size_t solve_items = 64;  // a group of a solve's launch: many groups, each a slice of rows

std::size_t padded_rows(std::size_t rows) {
  return (rows + DenseDeviceCholesky::block - 1) / DenseDeviceCholesky::block * DenseDeviceCholesky::block;
}

}  // namespace

double DenseDeviceCholesky::flops(std::size_t rows) noexcept {
  const double n = double(padded_rows(rows));
  return n * n * n / 3;
}

std::uint64_t DenseDeviceCholesky::device_bytes(std::size_t rows) noexcept {
  const std::uint64_t n = padded_rows(rows);
  return (n * n + n * block + 3 * n) * sizeof(double);
}

DenseDeviceCholesky::DenseDeviceCholesky(const cl::Env& env, std::size_t rows)
    : env_(env), rows_(rows), padded_(padded_rows(rows)) {
  if (!env_.info().fp64)
    throw cl::DeviceCapabilityError("a dense Cholesky factor on the device",
                                    "the device has no double precision (cl_khr_fp64)");
  cl::checked("setting up a dense Cholesky factor on the device", [&] {
    const std::size_t n = std::max<std::size_t>(padded_, 1);
    a_ = env_.buffer(CL_MEM_READ_WRITE, n * n * sizeof(double), "the dense Cholesky factor");
    winv_ = env_.buffer(CL_MEM_READ_WRITE, n * block * sizeof(double), "the factor's diagonal block inverses");
    failed_ = env_.buffer(CL_MEM_READ_WRITE, sizeof(cl_uint), "the factor's pivot flag");
    z_ = env_.buffer(CL_MEM_READ_WRITE, n * sizeof(double), "a dense solve's right-hand side");
    y_ = env_.buffer(CL_MEM_READ_WRITE, n * sizeof(double), "a dense solve's forward result");
    x_ = env_.buffer(CL_MEM_READ_WRITE, n * sizeof(double), "a dense solve's solution");
    const std::string options = "-D REAL=double";
    scatter_ = env_.kernel("dense_cholesky.cl", "scatter", options);
    factor_diagonal_ = env_.kernel("dense_cholesky.cl", "factor_diagonal", options);
    panel_ = env_.kernel("dense_cholesky.cl", "panel", options);
    update_ = env_.kernel("dense_cholesky.cl", "update", options);
    profiling_ = (env_.queue().getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0;
    forward_ = env_.kernel("dense_cholesky.cl", "forward", options);
    backward_ = env_.kernel("dense_cholesky.cl", "backward", options);
  });
}

void DenseDeviceCholesky::factorize(const CsrView& a) {
  if (std::size_t(a.rows) != rows_ || a.cols != a.rows)
    throw std::invalid_argument("factorize: the matrix is " + std::to_string(a.rows) + " x " +
                                std::to_string(a.cols) + ", the dense factor's " + std::to_string(rows_) +
                                " x " + std::to_string(rows_));
  const auto start = std::chrono::steady_clock::now();
  factorize_seconds_ = 0;
  if (rows_ == 0) return;
  const cl_uint lda = cl_uint(padded_);
  cl_uint failed = 0;
  cl::checked("factoring A dense on the device", [&] {
    const ::cl::CommandQueue& queue = env_.queue();
    const auto upload = [&](const auto& values, const char* what) {
      ::cl::Buffer buffer = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(values.size_bytes(), 1), what);
      if (!values.empty()) queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, values.size_bytes(), values.data());
      return buffer;
    };
    const ::cl::Buffer row_ptr = upload(a.row_ptr, "A's row pointers"), col_idx = upload(a.col_idx, "A's columns"),
                       values = upload(a.values, "A's values");
    queue.enqueueFillBuffer(a_, 0.0, 0, padded_ * padded_ * sizeof(double));
    queue.enqueueFillBuffer(failed_, cl_uint(0), 0, sizeof(cl_uint));
    scatter_.setArg(0, cl_uint(rows_));
    scatter_.setArg(1, lda);
    scatter_.setArg(2, row_ptr);
    scatter_.setArg(3, col_idx);
    scatter_.setArg(4, values);
    scatter_.setArg(5, a_);
    enqueue_groups(env_, scatter_, "scatter", (padded_ + scatter_items - 1) / scatter_items, scatter_items,
                   record("scatter"));
    factor_diagonal_.setArg(0, lda);
    factor_diagonal_.setArg(1, a_);
    factor_diagonal_.setArg(2, winv_);
    factor_diagonal_.setArg(3, failed_);
    enqueue_groups(env_, factor_diagonal_, "factor_diagonal", 1, block, record("factor_diagonal"));
    for (std::size_t k0 = 0; k0 + block < padded_; k0 += block) {
      const std::size_t tiles = (padded_ - k0) / block - 1;  // the row tiles below the diagonal block
      panel_.setArg(0, lda);
      panel_.setArg(1, cl_uint(k0));
      panel_.setArg(2, a_);
      panel_.setArg(3, winv_);
      enqueue_groups(env_, panel_, "panel", tiles, tile_items, record("panel"));
      update_.setArg(0, lda);
      update_.setArg(1, cl_uint(k0));
      update_.setArg(2, a_);
      update_.setArg(3, winv_);
      update_.setArg(4, failed_);
      enqueue_groups(env_, update_, "update (and the next diagonal block)", tiles * (tiles + 1) / 2, tile_items,
                     record("update (and the next diagonal block)"));
    }
    queue.enqueueReadBuffer(failed_, CL_TRUE, 0, sizeof(cl_uint), &failed);
  });
  factorize_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (failed != 0)
    throw NotPositiveDefinite("A is not positive definite: its dense Cholesky factorisation on the device met a pivot "
                              "<= 0 in column " + std::to_string(failed - 1));
}

::cl::Event* DenseDeviceCholesky::record(const char* name) {
  if (!profiling_) return nullptr;
  launches_.emplace_back(name, ::cl::Event());
  return &launches_.back().second;
}

std::vector<KernelTime> DenseDeviceCholesky::take_kernel_times() {
  std::vector<KernelTime> times;
  if (launches_.empty()) return times;
  cl::checked("reading the dense factor's kernel times", [&] {
    env_.queue().finish();
    for (const auto& [name, event] : launches_)
      add_times(times, {KernelTime{name, 1,
                                   1e-9 * double(event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                                 event.getProfilingInfo<CL_PROFILING_COMMAND_START>()),
                                   0}});
  });
  launches_.clear();
  return times;
}

void DenseDeviceCholesky::enqueue_solve() const {
  const cl_uint lda = cl_uint(padded_);
  const std::size_t groups = (padded_ + solve_items - 1) / solve_items;
  for (std::size_t k0 = 0; k0 < padded_; k0 += block) {
    forward_.setArg(0, lda);
    forward_.setArg(1, cl_uint(k0));
    forward_.setArg(2, a_);
    forward_.setArg(3, winv_);
    forward_.setArg(4, z_);
    forward_.setArg(5, y_);
    enqueue_groups(env_, forward_, "forward", groups, solve_items);
  }
  for (std::size_t k0 = padded_; k0 > 0; k0 -= block) {
    backward_.setArg(0, lda);
    backward_.setArg(1, cl_uint(k0 - block));
    backward_.setArg(2, a_);
    backward_.setArg(3, winv_);
    backward_.setArg(4, y_);
    backward_.setArg(5, x_);
    enqueue_groups(env_, backward_, "backward", groups, solve_items);
  }
}

void DenseDeviceCholesky::solve(const ::cl::Buffer& b, const ::cl::Buffer& x) const {
  if (rows_ == 0) return;
  cl::checked("solving with the dense Cholesky factor on the device", [&] {
    const ::cl::CommandQueue& queue = env_.queue();
    queue.enqueueFillBuffer(z_, 0.0, 0, padded_ * sizeof(double));
    queue.enqueueCopyBuffer(b, z_, 0, 0, rows_ * sizeof(double));
    enqueue_solve();
    queue.enqueueCopyBuffer(x_, x, 0, 0, rows_ * sizeof(double));
  });
}

void DenseDeviceCholesky::solve(std::span<const double> b, std::span<double> x) const {
  if (rows_ == 0) return;
  cl::checked("solving with the dense Cholesky factor on the device", [&] {
    const ::cl::CommandQueue& queue = env_.queue();
    queue.enqueueFillBuffer(z_, 0.0, 0, padded_ * sizeof(double));
    queue.enqueueWriteBuffer(z_, CL_FALSE, 0, rows_ * sizeof(double), b.data());
    enqueue_solve();
    queue.enqueueReadBuffer(x_, CL_TRUE, 0, rows_ * sizeof(double), x.data());
  });
}

}  // namespace clcg::solver
