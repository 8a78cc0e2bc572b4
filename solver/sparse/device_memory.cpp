#include "clcg/solver/sparse/device_memory.hpp"

#include <cstdio>

namespace clcg::solver {

void check_device_memory(const cl::DeviceInfo& device, std::uint64_t total, std::uint64_t largest_buffer,
                         std::string_view what) {
  if (total > device.global_memory_bytes)
    throw DeviceMemoryError(std::string(what) + " needs " + std::to_string(total) + " bytes on " + device.name +
                                " but only " + std::to_string(device.global_memory_bytes) +
                                " are available (global memory)",
                            total, device.global_memory_bytes);
  if (largest_buffer > device.max_allocation_bytes)
    throw DeviceMemoryError(std::string(what) + " needs a single buffer of " + std::to_string(largest_buffer) +
                                " bytes on " + device.name + " but only " +
                                std::to_string(device.max_allocation_bytes) +
                                " are available (max allocation size)",
                            largest_buffer, device.max_allocation_bytes);
}

void rethrow_allocation_failure(const cl::Error& error, const cl::DeviceInfo& device, std::string_view what,
                                std::string_view hint) {
  if (error.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE && error.code() != CL_OUT_OF_RESOURCES) throw;
  char size[32];
  std::snprintf(size, sizeof size, "%.1f GB", double(device.global_memory_bytes) / 1e9);
  throw DeviceMemoryError(std::string(what) + " ran out of memory on " + device.name + " (" + size + "): " +
                              std::string(hint) + " [" + error.what() + "]",
                          0, device.global_memory_bytes);
}

}  // namespace clcg::solver
