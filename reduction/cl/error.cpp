#include "clcg/cl/error.hpp"

#include <utility>

namespace clcg::cl {

std::string_view error_name(cl_int code) noexcept {
  switch (code) {
#define CLCG_ERROR_CASE(name) \
  case name:                  \
    return #name;
    CLCG_ERROR_CASE(CL_SUCCESS)
    CLCG_ERROR_CASE(CL_DEVICE_NOT_FOUND)
    CLCG_ERROR_CASE(CL_DEVICE_NOT_AVAILABLE)
    CLCG_ERROR_CASE(CL_COMPILER_NOT_AVAILABLE)
    CLCG_ERROR_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLCG_ERROR_CASE(CL_OUT_OF_RESOURCES)
    CLCG_ERROR_CASE(CL_OUT_OF_HOST_MEMORY)
    CLCG_ERROR_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLCG_ERROR_CASE(CL_MEM_COPY_OVERLAP)
    CLCG_ERROR_CASE(CL_IMAGE_FORMAT_MISMATCH)
    CLCG_ERROR_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLCG_ERROR_CASE(CL_BUILD_PROGRAM_FAILURE)
    CLCG_ERROR_CASE(CL_MAP_FAILURE)
    CLCG_ERROR_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLCG_ERROR_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLCG_ERROR_CASE(CL_COMPILE_PROGRAM_FAILURE)
    CLCG_ERROR_CASE(CL_LINKER_NOT_AVAILABLE)
    CLCG_ERROR_CASE(CL_LINK_PROGRAM_FAILURE)
    CLCG_ERROR_CASE(CL_DEVICE_PARTITION_FAILED)
    CLCG_ERROR_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLCG_ERROR_CASE(CL_INVALID_VALUE)
    CLCG_ERROR_CASE(CL_INVALID_DEVICE_TYPE)
    CLCG_ERROR_CASE(CL_INVALID_PLATFORM)
    CLCG_ERROR_CASE(CL_INVALID_DEVICE)
    CLCG_ERROR_CASE(CL_INVALID_CONTEXT)
    CLCG_ERROR_CASE(CL_INVALID_QUEUE_PROPERTIES)
    CLCG_ERROR_CASE(CL_INVALID_COMMAND_QUEUE)
    CLCG_ERROR_CASE(CL_INVALID_HOST_PTR)
    CLCG_ERROR_CASE(CL_INVALID_MEM_OBJECT)
    CLCG_ERROR_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLCG_ERROR_CASE(CL_INVALID_IMAGE_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_SAMPLER)
    CLCG_ERROR_CASE(CL_INVALID_BINARY)
    CLCG_ERROR_CASE(CL_INVALID_BUILD_OPTIONS)
    CLCG_ERROR_CASE(CL_INVALID_PROGRAM)
    CLCG_ERROR_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    CLCG_ERROR_CASE(CL_INVALID_KERNEL_NAME)
    CLCG_ERROR_CASE(CL_INVALID_KERNEL_DEFINITION)
    CLCG_ERROR_CASE(CL_INVALID_KERNEL)
    CLCG_ERROR_CASE(CL_INVALID_ARG_INDEX)
    CLCG_ERROR_CASE(CL_INVALID_ARG_VALUE)
    CLCG_ERROR_CASE(CL_INVALID_ARG_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_KERNEL_ARGS)
    CLCG_ERROR_CASE(CL_INVALID_WORK_DIMENSION)
    CLCG_ERROR_CASE(CL_INVALID_WORK_GROUP_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_WORK_ITEM_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_GLOBAL_OFFSET)
    CLCG_ERROR_CASE(CL_INVALID_EVENT_WAIT_LIST)
    CLCG_ERROR_CASE(CL_INVALID_EVENT)
    CLCG_ERROR_CASE(CL_INVALID_OPERATION)
    CLCG_ERROR_CASE(CL_INVALID_GL_OBJECT)
    CLCG_ERROR_CASE(CL_INVALID_BUFFER_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_MIP_LEVEL)
    CLCG_ERROR_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
    CLCG_ERROR_CASE(CL_INVALID_PROPERTY)
    CLCG_ERROR_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
    CLCG_ERROR_CASE(CL_INVALID_COMPILER_OPTIONS)
    CLCG_ERROR_CASE(CL_INVALID_LINKER_OPTIONS)
    CLCG_ERROR_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLCG_ERROR_CASE
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

std::string describe_error(cl_int code) {
  return std::string(error_name(code)) + " (" + std::to_string(code) + ")";
}

Error::Error(cl_int code, std::string call, std::string task)
    : Error(code, call, task, task + ": " + call + " failed: " + describe_error(code)) {}

Error::Error(cl_int code, std::string call, std::string task, const std::string& message)
    : std::runtime_error(message), code_(code), call_(std::move(call)), task_(std::move(task)) {}

BuildError::BuildError(cl_int code, std::string source_name, std::string options, std::string log,
                       std::string device_name)
    : Error(code, "clBuildProgram", "building " + source_name,
            "building OpenCL program '" + source_name + "' for " + device_name + " with options '" +
                options + "' failed: " + describe_error(code) + "\nbuild log:\n" + log),
      source_name_(std::move(source_name)),
      options_(std::move(options)),
      log_(std::move(log)) {}

DeviceNotFound::DeviceNotFound(const std::string& message)
    : Error(CL_DEVICE_NOT_FOUND, "device selection", "selecting an OpenCL device", message) {}

DeviceCapabilityError::DeviceCapabilityError(const std::string& task, const std::string& message)
    : Error(CL_INVALID_OPERATION, "device capability check", task, task + ": " + message) {}

}  // namespace clcg::cl
