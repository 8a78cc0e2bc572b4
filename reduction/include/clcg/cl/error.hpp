#pragma once
// OpenCL failures as exceptions that say what was being done, which call failed and why.
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

// "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" for codes not in the table.
std::string_view error_name(cl_int code) noexcept;
// "CL_OUT_OF_RESOURCES (-5)"
std::string describe_error(cl_int code);

// An OpenCL call failed. what(): "<task>: <call> failed: CL_OUT_OF_RESOURCES (-5)".
class Error : public std::runtime_error {
 public:
  Error(cl_int code, std::string call, std::string task);
  cl_int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& task() const noexcept { return task_; }

 protected:
  Error(cl_int code, std::string call, std::string task, const std::string& message);

 private:
  cl_int code_;
  std::string call_;
  std::string task_;
};

// A program failed to build: carries the device's build log and the options used.
class BuildError : public Error {
 public:
  BuildError(cl_int code, std::string source_name, std::string options, std::string log,
             std::string device_name);
  const std::string& source_name() const noexcept { return source_name_; }
  const std::string& options() const noexcept { return options_; }
  const std::string& build_log() const noexcept { return log_; }

 private:
  std::string source_name_;
  std::string options_;
  std::string log_;
};

// No device matched a selection; what() lists every platform and device seen.
class DeviceNotFound : public Error {
 public:
  explicit DeviceNotFound(const std::string& message);
};

// The device lacks a capability the work needs (fp64, 64-bit atomics, ...).
class DeviceCapabilityError : public Error {
 public:
  DeviceCapabilityError(const std::string& task, const std::string& message);
};

// Runs f(), turning the bindings' cl::Error into clcg::cl::Error naming `task`.
template <class F>
decltype(auto) checked(std::string_view task, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const ::cl::Error& e) {
    throw Error(e.err(), e.what() ? e.what() : "OpenCL call", std::string(task));
  }
}

// The same for hot paths: the task is described (describe() -> std::string) only on failure.
template <class Describe, class F>
  requires std::is_invocable_r_v<std::string, Describe>
decltype(auto) checked(Describe&& describe, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const ::cl::Error& e) {
    throw Error(e.err(), e.what() ? e.what() : "OpenCL call", describe());
  }
}

}  // namespace clcg::cl
