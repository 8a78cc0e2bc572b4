#pragma once
// A kernel whose arguments are set only when they change. On NVIDIA's OpenCL each
// clSetKernelArg costs ~0.3 us of host time, and between two host syncs that time leaves the
// GPU idle: re-setting a CG step's 17 arguments cost ~4 us a step on the H100 (cg-bench
// --breakdown, "host: enqueue single step"). Buffers compare by handle, values by their bytes.
// The cache assumes nothing else sets arguments on this cl_kernel: clcg creates one per user,
// and the class is move-only.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

class CachedKernel {
 public:
  CachedKernel() = default;
  explicit CachedKernel(::cl::Kernel kernel) : kernel_(std::move(kernel)) {}
  // Move-only: a copy would share the cl_kernel but not the record of its arguments.
  CachedKernel(CachedKernel&&) noexcept = default;
  CachedKernel& operator=(CachedKernel&&) noexcept = default;
  CachedKernel(const CachedKernel&) = delete;
  CachedKernel& operator=(const CachedKernel&) = delete;

  ::cl::Kernel& kernel() noexcept { return kernel_; }

  void set(cl_uint index, const ::cl::Buffer& buffer) { set_if_changed(index, buffer(), buffer); }
  void set(cl_uint index, ::cl::LocalSpaceArg local) { set_if_changed(index, local.size_, local); }
  template <class T>
    requires(std::is_arithmetic_v<T> && sizeof(T) <= sizeof(std::uint64_t))
  void set(cl_uint index, T value) {
    set_if_changed(index, value, value);
  }
  // Whether argument `index` holds `buffer` now.
  bool holds(cl_uint index, const ::cl::Buffer& buffer) const {
    return index < last_.size() && last_[index].set && last_[index].bits == bits_of(buffer());
  }

 private:
  struct Last {
    bool set = false;
    std::uint64_t bits = 0;
  };
  template <class T>
  static std::uint64_t bits_of(const T& value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
  }
  // Sets the argument unless it already holds `key`'s bits; records them once it is set.
  template <class Key, class Arg>
  void set_if_changed(cl_uint index, const Key& key, const Arg& arg) {
    if (index >= last_.size()) last_.resize(index + 1);
    const std::uint64_t bits = bits_of(key);
    if (last_[index].set && last_[index].bits == bits) return;
    last_[index].set = false;
    kernel_.setArg(index, arg);
    last_[index] = {true, bits};
  }

  ::cl::Kernel kernel_;
  std::vector<Last> last_;
};

}  // namespace clcg::cl
