#pragma once
// The OpenCL runtime clcg works in: the caller's context, device and queue (or ones clcg
// creates), the device facts, a program cache, and a buffer pool and a pool of small pinned
// buffers for the queue. Copies share the cache, and the pools too where they share the queue.
#include <memory>
#include <string>
#include <string_view>

#include "clcg/cl/buffer_pool.hpp"
#include "clcg/cl/device.hpp"
#include "clcg/cl/opencl.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/cl/program_cache.hpp"

namespace clcg::cl {

class Env {
 public:
  // Wraps objects the caller owns (retained, not copied). `queue` must belong to `context`
  // and `device`.
  Env(::cl::Context context, ::cl::Device device, ::cl::CommandQueue queue);
  // Creates a context and an in-order queue on the device `selector` picks.
  // `profiling` enables CL_QUEUE_PROFILING_ENABLE (benchmarks).
  static Env create(const DeviceSelector& selector = DeviceSelector::from_environment(),
                    bool profiling = false);

  // Same context, device and program cache, another queue (e.g. one per thread).
  Env with_queue(::cl::CommandQueue queue) const;
  // A new in-order queue on the same context and device.
  ::cl::CommandQueue make_queue(bool profiling = false) const;

  const ::cl::Context& context() const noexcept { return context_; }
  const ::cl::Device& device() const noexcept { return device_; }
  const ::cl::CommandQueue& queue() const noexcept { return queue_; }
  const DeviceInfo& info() const noexcept { return *info_; }
  ProgramCache& programs() const noexcept { return *cache_; }

  // The cached program for embedded source `source_name` built with `options` (plus the
  // device class's, launch_policy.hpp).
  ::cl::Program program(std::string_view source_name, const std::string& options = {}) const;
  // A fresh kernel object (kernels hold arguments, so each user keeps its own).
  ::cl::Kernel kernel(std::string_view source_name, const char* kernel_name,
                      const std::string& options = {}) const;

  // A device buffer of `bytes` bytes (buffer_pool.hpp: from the pool while a Scope is open).
  // `what` names it in the error where allocating fails.
  ::cl::Buffer buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what) const;
  BufferPool& buffer_pool() const noexcept { return *pool_; }
  PinnedPool& pinned_pool() const noexcept { return *pinned_; }  // (PinnedBuffer's)

 private:
  Env(::cl::Context context, ::cl::Device device, ::cl::CommandQueue queue,
      std::shared_ptr<const DeviceInfo> info, std::shared_ptr<ProgramCache> cache);

  ::cl::Context context_;
  ::cl::Device device_;
  ::cl::CommandQueue queue_;
  std::shared_ptr<const DeviceInfo> info_;
  std::shared_ptr<ProgramCache> cache_;
  std::shared_ptr<BufferPool> pool_;  // a new one with every queue
  std::shared_ptr<PinnedPool> pinned_;  // (also)
};

}  // namespace clcg::cl
