#include "clcg/cl/device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "clcg/cl/error.hpp"

namespace clcg::cl {
namespace {

// Vendor/version queries that a 1.2 header may not define.
constexpr cl_device_info device_warp_size_nv = 0x4003;                  // cl_nv_device_attribute_query
constexpr cl_device_info device_preferred_work_group_multiple = 0x1067;  // OpenCL 3.0

std::size_t optional_size_query(const ::cl::Device& device, cl_device_info what) {
  cl_uint value = 0;
  if (clGetDeviceInfo(device(), what, sizeof(value), &value, nullptr) != CL_SUCCESS) return 0;
  return value;
}

std::size_t optional_size_t_query(const ::cl::Device& device, cl_device_info what) {
  std::size_t value = 0;
  if (clGetDeviceInfo(device(), what, sizeof(value), &value, nullptr) != CL_SUCCESS) return 0;
  return value;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::string DeviceInfo::type_name() const {
  if (is_gpu()) return "GPU";
  if (is_cpu()) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

DeviceInfo query_device_info(const ::cl::Device& device) {
  return checked("querying OpenCL device facts", [&] {
    DeviceInfo info;
    info.name = device.getInfo<CL_DEVICE_NAME>();
    info.vendor = device.getInfo<CL_DEVICE_VENDOR>();
    info.version = device.getInfo<CL_DEVICE_VERSION>();
    info.driver_version = device.getInfo<CL_DRIVER_VERSION>();
    const ::cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
    info.platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    info.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
    info.type = device.getInfo<CL_DEVICE_TYPE>();
    const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
    info.fp64 = device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0 || extensions.find("cl_khr_fp64") != std::string::npos;
    info.int64_atomics = extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
    info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    info.local_memory_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.max_allocation_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    // The SIMD width without building a kernel: NVIDIA's attribute, else OpenCL 3.0's query.
    std::size_t multiple = optional_size_query(device, device_warp_size_nv);
    if (multiple == 0) multiple = optional_size_t_query(device, device_preferred_work_group_multiple);
    info.preferred_work_group_multiple = multiple == 0 ? 1 : multiple;
    if (const std::string cap = env_or_empty("CLCG_DEVICE_MEMORY_LIMIT"); !cap.empty()) {
      std::uint64_t limit = 0;
      const auto [end, error] = std::from_chars(cap.data(), cap.data() + cap.size(), limit);
      if (error != std::errc() || end != cap.data() + cap.size())
        throw std::invalid_argument("CLCG_DEVICE_MEMORY_LIMIT must be a number of bytes, got '" + cap + "'");
      info.global_memory_bytes = std::min(info.global_memory_bytes, limit);
      info.max_allocation_bytes = std::min(info.max_allocation_bytes, limit);
    }
    return info;
  });
}

std::vector<DeviceEntry> list_devices() {
  std::vector<::cl::Platform> platforms;
  // With no ICD installed (or none registered) clGetPlatformIDs fails: that is "no devices".
  if (cl_uint count = 0; clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
  checked("listing OpenCL platforms", [&] { ::cl::Platform::get(&platforms); });
  std::vector<DeviceEntry> entries;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<::cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const ::cl::Error& e) {
      if (e.err() != CL_DEVICE_NOT_FOUND) throw Error(e.err(), e.what(), "listing OpenCL devices");
    }
    for (const ::cl::Device& device : devices)
      entries.push_back(DeviceEntry{entries.size(), p, platforms[p], device, query_device_info(device)});
  }
  return entries;
}

DeviceSelector DeviceSelector::parse(const std::string& device, const std::string& platform) {
  DeviceSelector selector;
  selector.platform_substring = platform;
  const std::string spec = lower(device);
  if (spec.empty() || spec == "auto") {
    selector.kind = Kind::automatic;
  } else if (spec == "gpu") {
    selector.kind = Kind::gpu;
  } else if (spec == "cpu") {
    selector.kind = Kind::cpu;
  } else {
    const auto [end, error] = std::from_chars(spec.data(), spec.data() + spec.size(), selector.index);
    if (error != std::errc() || end != spec.data() + spec.size())
      throw std::invalid_argument("device must be auto, gpu, cpu or a device index, got '" + device + "'");
    selector.kind = Kind::index;
  }
  return selector;
}

DeviceSelector DeviceSelector::from_environment() {
  return parse(env_or_empty("CLCG_DEVICE"), env_or_empty("CLCG_PLATFORM"));
}

std::string DeviceSelector::describe() const {
  std::string text;
  switch (kind) {
    case Kind::automatic: text = "device auto"; break;
    case Kind::gpu: text = "device gpu"; break;
    case Kind::cpu: text = "device cpu"; break;
    case Kind::index: text = "device " + std::to_string(index); break;
  }
  if (!platform_substring.empty()) text += " on a platform matching '" + platform_substring + "'";
  return text;
}

const DeviceEntry& select_device(const std::vector<DeviceEntry>& devices, const DeviceSelector& selector,
                                 std::size_t turn) {
  const std::string wanted_platform = lower(selector.platform_substring);
  std::vector<const DeviceEntry*> candidates;
  for (const DeviceEntry& entry : devices)
    if (lower(entry.info.platform_name).find(wanted_platform) != std::string::npos) candidates.push_back(&entry);

  // The turn-th (wrapping around) of the candidates the predicate takes; null where it takes none.
  const auto first = [&](auto predicate) -> const DeviceEntry* {
    std::vector<const DeviceEntry*> taken;
    for (const DeviceEntry* entry : candidates)
      if (predicate(*entry)) taken.push_back(entry);
    return taken.empty() ? nullptr : taken[turn % taken.size()];
  };
  const DeviceEntry* chosen = nullptr;
  switch (selector.kind) {
    case DeviceSelector::Kind::automatic:
      chosen = first([](const DeviceEntry& e) { return e.info.is_gpu() && e.info.fp64; });
      if (!chosen) chosen = first([](const DeviceEntry& e) { return e.info.is_gpu(); });
      if (!chosen) chosen = first([](const DeviceEntry& e) { return e.info.is_cpu(); });
      if (!chosen) chosen = first([](const DeviceEntry&) { return true; });
      break;
    case DeviceSelector::Kind::gpu:
      chosen = first([](const DeviceEntry& e) { return e.info.is_gpu(); });
      break;
    case DeviceSelector::Kind::cpu:
      chosen = first([](const DeviceEntry& e) { return e.info.is_cpu(); });
      break;
    case DeviceSelector::Kind::index:
      chosen = first([&](const DeviceEntry& e) { return e.index == selector.index; });
      break;
  }
  if (chosen) return *chosen;
  std::string message = "no OpenCL device matches " + selector.describe() + "; ";
  message += devices.empty() ? "no OpenCL platform or device was found (is an ICD such as pocl-opencl-icd installed?)"
                             : "devices seen:\n" + format_device_list(devices, nullptr);
  throw DeviceNotFound(message);
}

std::string format_device_list(const std::vector<DeviceEntry>& devices, const DeviceEntry* selected) {
  std::ostringstream out;
  std::size_t last_platform = static_cast<std::size_t>(-1);
  for (const DeviceEntry& entry : devices) {
    if (entry.platform_index != last_platform) {
      out << "platform " << entry.platform_index << ": " << entry.info.platform_name << " ("
          << entry.info.platform_version << ")\n";
      last_platform = entry.platform_index;
    }
    const DeviceInfo& info = entry.info;
    out << (selected == &entry ? "  * " : "    ") << "device " << entry.index << ": " << info.name << " ["
        << info.type_name() << "]" << (selected == &entry ? "  <- selected" : "") << "\n"
        << "        " << info.version << ", driver " << info.driver_version << "\n"
        << "        fp64 " << (info.fp64 ? "yes" : "no") << ", compute units " << info.compute_units
        << ", max work-group " << info.max_work_group_size << ", preferred multiple "
        << info.preferred_work_group_multiple << "\n"
        << "        local memory " << info.local_memory_bytes / 1024 << " KiB, global memory "
        << info.global_memory_bytes / (1024 * 1024) << " MiB, max allocation "
        << info.max_allocation_bytes / (1024 * 1024) << " MiB\n";
  }
  return out.str();
}

}  // namespace clcg::cl
