#include "clcg/cl/launch_policy.hpp"

#include <algorithm>

namespace clcg::cl {

bool contiguous_blocks(const DeviceInfo& device) noexcept { return device.is_cpu(); }

std::string device_class_options(const DeviceInfo& device) {
  return contiguous_blocks(device) ? "-D CLCG_CONTIGUOUS" : "";
}

std::size_t cpu_blocks(const DeviceInfo& device, std::size_t n, std::size_t work) {
  const std::size_t most = std::min(n, cpu_blocks_per_unit * std::max<std::size_t>(1, device.compute_units));
  return std::clamp<std::size_t>(work / cpu_min_block, 1, std::max<std::size_t>(most, 1));
}

StreamingShape streaming_shape(const DeviceInfo& device, std::size_t n, std::size_t gpu_group,
                               std::size_t gpu_groups_per_unit, std::size_t kernel_max) {
  if (n == 0) return {1, 0};
  if (contiguous_blocks(device)) return {1, cpu_blocks(device, n)};
  const std::size_t wg = std::max<std::size_t>(1, std::min(gpu_group, kernel_max));
  const std::size_t cap = std::max<std::size_t>(1, gpu_groups_per_unit * device.compute_units);
  return {wg, std::clamp<std::size_t>((n + wg - 1) / wg, 1, cap)};
}

}  // namespace clcg::cl
