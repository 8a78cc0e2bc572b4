#pragma once
// Host memory the device writes into directly: a CL_MEM_ALLOC_HOST_PTR buffer mapped once
// for its whole life. Reading a few KB of partials into it skips the driver's staging copy
// of ordinary (pageable) memory, which costs NVIDIA's OpenCL some 30 us per read.
// Copies share the mapping; the last one gives it up.
//
// Pinning costs NVIDIA's OpenCL 0.75 ms a buffer even at 8 bytes (and ~0.4 ms a MB; an H200's
// host), and giving one up waits for the queue. A distributed AMG set-up makes and drops dozens
// of small ones (its halos', a level at a time), so the small ones (up to small_pinned_bytes)
// go back to their Env's PinnedPool and the next request of their size class takes them; the
// work queued on one before it came back runs first. Larger ones are made and freed each time.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

class Env;

inline constexpr std::size_t small_pinned_bytes = std::size_t(1) << 20;

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const Env& env, std::size_t bytes);

  unsigned char* data() const noexcept { return mapping_ ? mapping_->pointer : nullptr; }
  std::size_t size() const noexcept { return mapping_ ? bytes_ : 0; }  // the bytes asked for

 private:
  friend class PinnedPool;
  struct Mapping {
    ::cl::CommandQueue queue;
    ::cl::Buffer buffer;
    unsigned char* pointer = nullptr;
    std::size_t bytes = 0;  // mapped (a small one: its size class)
    ::cl::Event given_back;  // a marker after the work queued on it while in use (pooled ones)
    ~Mapping();
  };
  std::shared_ptr<Mapping> mapping_;
  std::size_t bytes_ = 0;
};

// The small pinned buffers an Env's queue gave back, by size class (powers of two from 4 KB),
// at most max_kept of them; freed with the pool (the last copy of its Env).
class PinnedPool : public std::enable_shared_from_this<PinnedPool> {
 public:
  static constexpr std::size_t max_kept = 64;

 private:
  friend class PinnedBuffer;
  std::shared_ptr<PinnedBuffer::Mapping> take(const Env& env, std::size_t bytes);
  void give_back(PinnedBuffer::Mapping* mapping);
  static std::unique_ptr<PinnedBuffer::Mapping> mapped(const Env& env, std::size_t bytes);  // a new one

  std::mutex mutex_;
  std::multimap<std::size_t, std::unique_ptr<PinnedBuffer::Mapping>> kept_;  // by mapped size
};

}  // namespace clcg::cl
