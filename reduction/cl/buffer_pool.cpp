#include "clcg/cl/buffer_pool.hpp"

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"

namespace clcg::cl {

::cl::Buffer BufferPool::take(const ::cl::Context& context, cl_mem_flags flags, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_scopes_ > 0) {
    const auto [first, last] = held_.equal_range({flags, bytes});
    for (auto it = first; it != last; ++it)  // (the count is exact here: only the pool could add to it)
      if (it->second.getInfo<CL_MEM_REFERENCE_COUNT>() == 1) return it->second;
  }
  ::cl::Buffer made(context, flags, bytes);
  if (open_scopes_ > 0) held_.emplace(std::make_pair(flags, bytes), made);
  return made;
}

BufferPool::Scope::Scope(const Env& env) : pool_(env.buffer_pool()) {
  std::lock_guard<std::mutex> lock(pool_.mutex_);
  ++pool_.open_scopes_;
}

BufferPool::Scope::~Scope() {
  std::lock_guard<std::mutex> lock(pool_.mutex_);
  if (--pool_.open_scopes_ == 0) pool_.held_.clear();
}

}  // namespace clcg::cl
