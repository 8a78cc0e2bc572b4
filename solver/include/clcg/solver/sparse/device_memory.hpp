#pragma once
// Checks that what a solve asks of the device fits it, before anything is allocated: a
// DeviceMemoryError saying needed vs available bytes is clearer than CL_MEM_OBJECT_ALLOCATION_FAILURE
// halfway through.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "clcg/cl/device.hpp"
#include "clcg/cl/error.hpp"

namespace clcg::solver {

// The device has too little memory (global, or for one allocation) for what was asked.
class DeviceMemoryError : public std::runtime_error {
 public:
  DeviceMemoryError(const std::string& message, std::uint64_t needed, std::uint64_t available)
      : std::runtime_error(message), needed_(needed), available_(available) {}
  std::uint64_t needed() const noexcept { return needed_; }
  std::uint64_t available() const noexcept { return available_; }

 private:
  std::uint64_t needed_;
  std::uint64_t available_;
};

// Throws DeviceMemoryError when `total` exceeds device.global_memory_bytes ("<what> needs N
// bytes on <device> but only M are available (global memory)") or `largest_buffer` exceeds
// device.max_allocation_bytes. DeviceInfo honours CLCG_DEVICE_MEMORY_LIMIT.
void check_device_memory(const cl::DeviceInfo& device, std::uint64_t total, std::uint64_t largest_buffer,
                         std::string_view what);

// Called in a handler of an OpenCL error met while building `what`, whose need is known only as
// it grows (the AMG set-up): an allocation failure (CL_MEM_OBJECT_ALLOCATION_FAILURE,
// CL_OUT_OF_RESOURCES) becomes a DeviceMemoryError that says the device ran out of memory,
// with its size and `hint`; any other error is rethrown as it is.
[[noreturn]] void rethrow_allocation_failure(const cl::Error& error, const cl::DeviceInfo& device,
                                             std::string_view what, std::string_view hint);

}  // namespace clcg::solver
