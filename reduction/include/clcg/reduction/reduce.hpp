#pragma once
// Two-stage reductions on the caller's buffers: each work-group reduces its slice in local
// memory and writes one partial; only the partials are read back, and the host finishes
// them in index order (compensated summation in double), so the same input on the same
// device with the same launch shape gives the same bits.
//
//   clcg::cl::Env env = clcg::cl::Env::create();            // or wrap your own context/queue
//   clcg::reduction::Reducer dot(env, Op::dot, ElementType::f64);
//   double xy = dot.run(x_buffer, 0, y_buffer, 0, n).value;
//
// The queue must be in order (the default). A Reducer holds kernel objects: use one per
// thread; Reducers on one Env share its program cache safely.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/reduction/op.hpp"
#include "clcg/reduction/variant.hpp"

namespace clcg::reduction {

struct Result {
  double value = 0;        // for argmin/argmax: the value at `index`
  std::uint64_t index = 0; // argmin/argmax only
};

struct LaunchShape {
  std::size_t work_group_size = 0;
  std::size_t groups = 0;
};

struct Options {
  std::string_view variant = {};    // empty: default_variant(device)
  std::size_t work_group_size = 0;  // 0: chosen from the device (see choose_launch_shape)
  std::size_t groups = 0;           // 0: chosen from the device and n (grid-stride layouts)
};

// The launch shape for `n` elements. Work-group size: the requested one (must be a power of
// two for tree variants, and within the device's and kernel's limits), else 1 for `blocked`
// and 256 capped to `kernel_max` (the kernel's CL_KERNEL_WORK_GROUP_SIZE) for the others.
// Groups: ceil(n / wg) for the one-element-per-work-item variants; for `blocked` the
// requested count, else cl::cpu_blocks(device, n); for grid-stride ones the requested count,
// else min(ceil(n / wg), 4 x compute units, max(ceil(n / (64 wg)), compute units)): enough
// groups to fill the device, and for small n few partials (the read-back's cost grows with them).
// Throws std::invalid_argument naming the bad value and the limit.
LaunchShape choose_launch_shape(const cl::DeviceInfo& device, const VariantInfo& variant, std::size_t n,
                                const Options& options, std::size_t kernel_max);

// Combines partials on the host in index order: Neumaier-compensated sum in double for
// sum/dot/sumsq; min/max with NaN propagating; arg ops with ties -> lowest index.
Result finish_partials(Op op, std::span<const double> values, std::span<const std::uint64_t> indices);

// results.size() reductions from their partials as read back: runs of `groups` partials of
// `type` one after another from `raw`, each finished by finish_partials. Float partials are
// widened into `widened`, which the caller keeps so that a repeated call allocates nothing.
void finish_partial_runs(Op op, const unsigned char* raw, ElementType type, std::size_t groups,
                         std::span<double> results, std::vector<double>& widened);

// A result whose partials are still being read. wait() blocks until they have arrived and
// finishes them; it may be called once.
class PendingResult {
 public:
  PendingResult() = default;
  PendingResult(PendingResult&&) noexcept = default;
  PendingResult& operator=(PendingResult&&) noexcept;
  PendingResult(const PendingResult&) = delete;
  PendingResult& operator=(const PendingResult&) = delete;
  // A result dropped without wait() still waits for its read: the device must not write
  // into host memory that has been freed.
  ~PendingResult();
  Result wait();
  const ::cl::Event& event() const noexcept { return event_; }

 private:
  friend class Reducer;
  Op op_ = Op::sum;
  ElementType type_ = ElementType::f64;
  bool atomic_ = false;
  std::size_t count_ = 0;  // partials to finish; 0 = nothing launched (n = 0)
  ::cl::Event event_;
  ::cl::CommandQueue queue_;  // atomic arg ops read the winning element from x
  ::cl::Buffer x_;
  std::size_t x_offset_ = 0;
  std::shared_ptr<std::vector<unsigned char>> values_;   // raw partials (float or double)
  std::shared_ptr<std::vector<std::uint64_t>> indices_;  // arg ops
};

class Reducer {
 public:
  Reducer(const cl::Env& env, Op op, ElementType type, Options options = {});

  // x[offset .. offset+n) of the caller's buffer (offsets and counts in elements).
  Result run(const ::cl::Buffer& x, std::size_t x_offset, std::size_t n);
  // dot: x[x_offset..) · y[y_offset..)
  Result run(const ::cl::Buffer& x, std::size_t x_offset, const ::cl::Buffer& y, std::size_t y_offset,
             std::size_t n);

  // Enqueues the kernel and a non-blocking read of the partials on `queue` (in order, same
  // context) after `wait_for`; returns at once.
  PendingResult enqueue(const ::cl::CommandQueue& queue, const ::cl::Buffer& x, std::size_t x_offset,
                        const ::cl::Buffer* y, std::size_t y_offset, std::size_t n,
                        const std::vector<::cl::Event>* wait_for = nullptr);

  LaunchShape shape(std::size_t n) const;  // the shape run/enqueue use for n elements
  const VariantInfo& variant() const noexcept { return *variant_; }
  Op op() const noexcept { return op_; }
  ElementType type() const noexcept { return type_; }

 private:
  // Checks the arguments, then enqueues the kernel (after the atomic variant's fill); returns
  // how many partials it writes (0: n = 0, nothing launched).
  std::size_t launch(const ::cl::CommandQueue& queue, const ::cl::Buffer& x, std::size_t x_offset,
                     const ::cl::Buffer* y, std::size_t y_offset, std::size_t n,
                     const std::vector<::cl::Event>* wait_for);
  Result run_blocking(const ::cl::Buffer& x, std::size_t x_offset, const ::cl::Buffer* y, std::size_t y_offset,
                      std::size_t n);
  void check_buffer(const ::cl::Buffer& buffer, std::size_t offset, std::size_t n, const char* which) const;
  void ensure_partials(std::size_t groups);

  cl::Env env_;
  Op op_;
  ElementType type_;
  Options options_;
  const VariantInfo* variant_;
  cl::CachedKernel kernel_;
  std::size_t kernel_max_work_group_ = 1;
  ::cl::Buffer partial_values_;
  ::cl::Buffer partial_indices_;
  cl::PinnedBuffer pinned_;       // where run()'s reads land
  std::vector<double> widened_;   // run()'s float partials as doubles (kept: no allocation per call)
  std::size_t partial_capacity_ = 0;
};

// One-shot conveniences (build a Reducer; programs come from env's cache).
Result reduce(const cl::Env& env, Op op, ElementType type, const ::cl::Buffer& x, std::size_t offset,
              std::size_t n, Options options = {});
double dot(const cl::Env& env, ElementType type, const ::cl::Buffer& x, std::size_t x_offset,
           const ::cl::Buffer& y, std::size_t y_offset, std::size_t n, Options options = {});

// Several dot products in one pass over up to four vectors: pairs[k] = (i, j) computes
// v[i]·v[j]. Partials of all dots land in one buffer and are read back together.
class MultiDot {
 public:
  struct Pair {
    unsigned a, b;
  };
  MultiDot(const cl::Env& env, ElementType type, std::vector<Pair> pairs, Options options = {});
  std::vector<double> run(std::span<const ::cl::Buffer> vectors, std::size_t n);
  LaunchShape shape(std::size_t n) const;

 private:
  cl::Env env_;
  ElementType type_;
  std::vector<Pair> pairs_;
  unsigned vector_count_ = 0;
  Options options_;
  ::cl::Kernel kernel_;
  std::size_t kernel_max_work_group_ = 1;
  ::cl::Buffer partials_;
  cl::PinnedBuffer pinned_;
  std::size_t partial_capacity_ = 0;
};

}  // namespace clcg::reduction
