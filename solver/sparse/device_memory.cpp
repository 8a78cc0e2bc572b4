#include "clcg/solver/sparse/device_memory.hpp"

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

}  // namespace clcg::solver
