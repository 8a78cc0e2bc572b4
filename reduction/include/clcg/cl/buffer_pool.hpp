#pragma once
// Device buffers that a stretch of work hands back and takes again instead of freeing and
// allocating them: the AMG set-up makes and drops ~200 of them, GBs in all at 256^3. NVIDIA's
// OpenCL waits for the device in clReleaseMemObject (as cudaFree does) and maps a new buffer on
// its first use, and the device idles between (docs/PERFORMANCE.md: 256^3's set-up 95 -> 77 ms
// on an H100 with its buffers pooled).
//
// While a Scope is open, Env::buffer() takes from its Env's pool: a buffer the pool holds and
// nothing else does, of the same flags and exactly the size asked (so nothing kept is larger
// than it needs), or else a new one, which the pool then holds too. A buffer comes back when
// its last handle outside the pool is gone; the work queued on it before then runs first
// (each Env has one in-order queue and its own pool). When the last Scope closes, the pool
// lets go: the buffers nothing else holds are freed.
//
//   {
//     cl::BufferPool::Scope pooled(env);  // make_vector(env, ...) and the like take from the pool
//     ... build, drop, build ...
//   }
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

class Env;

class BufferPool {
 public:
  // A buffer of `bytes` bytes: a free one of the pool's while a Scope is open, else a new one.
  ::cl::Buffer take(const ::cl::Context& context, cl_mem_flags flags, std::size_t bytes);

  class Scope {
   public:
    explicit Scope(const Env& env);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BufferPool& pool_;
  };

 private:
  std::mutex mutex_;
  int open_scopes_ = 0;
  std::multimap<std::pair<cl_mem_flags, std::size_t>, ::cl::Buffer> held_;  // by flags and size
};

}  // namespace clcg::cl
