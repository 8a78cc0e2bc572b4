#include "clcg/cl/env.hpp"

#include <utility>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"

namespace clcg::cl {

Env::Env(::cl::Context context, ::cl::Device device, ::cl::CommandQueue queue)
    : Env(std::move(context), device, std::move(queue),
          std::make_shared<const DeviceInfo>(query_device_info(device)), std::make_shared<ProgramCache>()) {}

Env::Env(::cl::Context context, ::cl::Device device, ::cl::CommandQueue queue,
         std::shared_ptr<const DeviceInfo> info, std::shared_ptr<ProgramCache> cache)
    : context_(std::move(context)),
      device_(std::move(device)),
      queue_(std::move(queue)),
      info_(std::move(info)),
      cache_(std::move(cache)),
      pool_(std::make_shared<BufferPool>()),
      pinned_(std::make_shared<PinnedPool>()) {}

Env Env::create(const DeviceSelector& selector, bool profiling) {
  const std::vector<DeviceEntry> devices = list_devices();
  const DeviceEntry& chosen = select_device(devices, selector);
  const std::string task = "creating a context on " + chosen.info.name;
  ::cl::Context context = checked(task, [&] { return ::cl::Context(chosen.device); });
  const cl_command_queue_properties properties = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
  ::cl::CommandQueue queue = checked(task, [&] { return ::cl::CommandQueue(context, chosen.device, properties); });
  return Env(std::move(context), chosen.device, std::move(queue), std::make_shared<const DeviceInfo>(chosen.info),
             std::make_shared<ProgramCache>());
}

Env Env::with_queue(::cl::CommandQueue queue) const { return Env(context_, device_, std::move(queue), info_, cache_); }

::cl::CommandQueue Env::make_queue(bool profiling) const {
  const cl_command_queue_properties properties = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
  return checked("creating a command queue on " + info_->name,
                 [&] { return ::cl::CommandQueue(context_, device_, properties); });
}

::cl::Program Env::program(std::string_view source_name, const std::string& options) const {
  const std::string device_class = device_class_options(*info_);
  return cache_->get(context_, device_, source_name, device_class.empty() ? options : options + " " + device_class);
}

::cl::Kernel Env::kernel(std::string_view source_name, const char* kernel_name, const std::string& options) const {
  ::cl::Program built = program(source_name, options);
  return checked("creating kernel " + std::string(kernel_name) + " from " + std::string(source_name),
                 [&] { return ::cl::Kernel(built, kernel_name); });
}

::cl::Buffer Env::buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what) const {
  return checked(what + " on " + info_->name, [&] { return pool_->take(context_, flags, bytes); });
}

}  // namespace clcg::cl
