#pragma once
// Finding OpenCL devices and the facts clcg needs about them, queried once.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

struct DeviceInfo {
  std::string name;
  std::string vendor;
  std::string version;         // CL_DEVICE_VERSION
  std::string driver_version;  // part of any on-disk cache key
  std::string platform_name;
  std::string platform_version;
  cl_device_type type = 0;
  bool fp64 = false;
  bool int64_atomics = false;  // cl_khr_int64_base_atomics (64-bit compare-and-swap)
  std::size_t max_work_group_size = 1;
  std::size_t preferred_work_group_multiple = 1;  // warp/wavefront/SIMD width, 1 if unknown
  std::uint64_t local_memory_bytes = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t max_allocation_bytes = 0;
  unsigned compute_units = 1;

  bool is_gpu() const noexcept { return (type & CL_DEVICE_TYPE_GPU) != 0; }
  bool is_cpu() const noexcept { return (type & CL_DEVICE_TYPE_CPU) != 0; }
  std::string type_name() const;
};

// Queries every fact above. CLCG_DEVICE_MEMORY_LIMIT=<bytes> caps the memory sizes reported,
// so that "too large for the device" paths can be tested on any machine.
DeviceInfo query_device_info(const ::cl::Device& device);

struct DeviceEntry {
  std::size_t index = 0;           // position in list_devices(): the <index> of --device
  std::size_t platform_index = 0;
  ::cl::Platform platform;
  ::cl::Device device;
  DeviceInfo info;
};

// Every device of every platform, platforms in ICD order. No ICD / no platform -> empty.
std::vector<DeviceEntry> list_devices();

// What the user asked for: --device auto|gpu|cpu|<index> and --platform <substring>.
struct DeviceSelector {
  enum class Kind { automatic, gpu, cpu, index };
  Kind kind = Kind::automatic;
  std::size_t index = 0;
  std::string platform_substring;  // case-insensitive match on the platform name; empty = any

  // Parses "auto", "gpu", "cpu" or a non-negative index; std::invalid_argument otherwise.
  static DeviceSelector parse(const std::string& device, const std::string& platform = {});
  // CLCG_DEVICE / CLCG_PLATFORM, defaulting to auto / any.
  static DeviceSelector from_environment();
  std::string describe() const;
};

// The entry `selector` picks from `devices`. auto = first GPU with fp64, else any GPU, else
// a CPU device, else anything. Throws DeviceNotFound listing every platform and device.
// `turn` > 0 takes the turn-th of the devices the rule picks from instead of the first
// (wrapping around: the GPUs with fp64, say), so that ranks sharing a node spread over them; an
// index picks its device whatever the turn.
const DeviceEntry& select_device(const std::vector<DeviceEntry>& devices, const DeviceSelector& selector,
                                 std::size_t turn = 0);

// Human-readable listing of every platform/device and its facts, marking the one the
// current selection picks (`selected`, may be null).
std::string format_device_list(const std::vector<DeviceEntry>& devices, const DeviceEntry* selected);

}  // namespace clcg::cl
