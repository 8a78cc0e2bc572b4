#pragma once
// Host memory the device writes into directly: a CL_MEM_ALLOC_HOST_PTR buffer mapped once
// for its whole life. Reading a few KB of partials into it skips the driver's staging copy
// of ordinary (pageable) memory, which costs NVIDIA's OpenCL some 30 us per read.
// Copies share the mapping; the last one unmaps it.
#include <cstddef>
#include <memory>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

class Env;

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const Env& env, std::size_t bytes);

  unsigned char* data() const noexcept { return mapping_ ? mapping_->pointer : nullptr; }
  std::size_t size() const noexcept { return mapping_ ? mapping_->bytes : 0; }

 private:
  struct Mapping {
    ::cl::CommandQueue queue;
    ::cl::Buffer buffer;
    unsigned char* pointer = nullptr;
    std::size_t bytes = 0;
    ~Mapping();
  };
  std::shared_ptr<Mapping> mapping_;
};

}  // namespace clcg::cl
