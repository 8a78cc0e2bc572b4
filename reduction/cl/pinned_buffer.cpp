#include "clcg/cl/pinned_buffer.hpp"

#include <string>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"

namespace clcg::cl {

PinnedBuffer::PinnedBuffer(const Env& env, std::size_t bytes) : mapping_(std::make_shared<Mapping>()) {
  const std::string task = "allocating " + std::to_string(bytes) + " bytes of pinned host memory on " + env.info().name;
  mapping_->queue = env.queue();
  mapping_->bytes = bytes;
  checked(task, [&] {
    mapping_->buffer = ::cl::Buffer(env.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes == 0 ? 1 : bytes);
    mapping_->pointer = static_cast<unsigned char*>(env.queue().enqueueMapBuffer(
        mapping_->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes == 0 ? 1 : bytes));
  });
}

PinnedBuffer::Mapping::~Mapping() {
  // No exceptions from a destructor: the C API, and nothing to do about a failure here.
  if (pointer) {
    clEnqueueUnmapMemObject(queue(), buffer(), pointer, 0, nullptr, nullptr);
    clFinish(queue());
  }
}

}  // namespace clcg::cl
