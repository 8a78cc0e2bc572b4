#include "clcg/cl/pinned_buffer.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <string>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"

namespace clcg::cl {

std::unique_ptr<PinnedBuffer::Mapping> PinnedPool::mapped(const Env& env, std::size_t bytes) {
  auto m = std::make_unique<PinnedBuffer::Mapping>();
  m->queue = env.queue();
  m->bytes = bytes;
  checked("allocating " + std::to_string(bytes) + " bytes of pinned host memory on " + env.info().name, [&] {
    m->buffer = ::cl::Buffer(env.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
    m->pointer = static_cast<unsigned char*>(
        env.queue().enqueueMapBuffer(m->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
  });
  return m;
}

PinnedBuffer::PinnedBuffer(const Env& env, std::size_t bytes)
    : mapping_(env.pinned_pool().take(env, bytes)), bytes_(bytes) {}

PinnedBuffer::Mapping::~Mapping() {
  // No exceptions from a destructor: the C API, and nothing to do about a failure here.
  if (pointer) {
    clEnqueueUnmapMemObject(queue(), buffer(), pointer, 0, nullptr, nullptr);
    clFinish(queue());
  }
}

std::shared_ptr<PinnedBuffer::Mapping> PinnedPool::take(const Env& env, std::size_t bytes) {
  if (bytes > small_pinned_bytes) return mapped(env, bytes);
  const std::size_t size_class = std::bit_ceil(std::max<std::size_t>(bytes, 4096));
  std::unique_ptr<PinnedBuffer::Mapping> m;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto [first, last] = kept_.equal_range(size_class);
    if (first != last) {  // the last given back (the likeliest to be done with)
      const auto it = std::prev(last);
      m = std::move(it->second), kept_.erase(it);
    }
  }
  if (m) {
    checked("reusing pinned host memory", [&] {
      if (m->given_back()) m->given_back.wait();  // (the work queued on it before it came back)
    });
    m->given_back = ::cl::Event();
  } else {
    m = mapped(env, size_class);
  }
  // Back to this pool when the last copy goes, or freed where the pool is gone.
  std::weak_ptr<PinnedPool> pool = weak_from_this();
  return std::shared_ptr<PinnedBuffer::Mapping>(m.release(), [pool](PinnedBuffer::Mapping* given) {
    if (const std::shared_ptr<PinnedPool> alive = pool.lock()) alive->give_back(given);
    else delete given;
  });
}

void PinnedPool::give_back(PinnedBuffer::Mapping* mapping) {
  std::unique_ptr<PinnedBuffer::Mapping> m(mapping);
  // A marker behind the work queued on it (no exceptions: a deleter; where it fails, the
  // mapping is freed, which waits for the queue).
  cl_event marker = nullptr;
  if (clEnqueueMarkerWithWaitList(m->queue(), 0, nullptr, &marker) != CL_SUCCESS) return;
  m->given_back = ::cl::Event(marker);
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.size() < max_kept) kept_.emplace(m->bytes, std::move(m));
}

}  // namespace clcg::cl
