#pragma once
// The OpenCL environment device tests run on: the device CLCG_DEVICE / CLCG_PLATFORM pick
// (auto by default). Created once per process so each program is built once per process.
// If no device is found every device test fails with the list of platforms seen; a device
// test never skips silently.
#include <gtest/gtest.h>

#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/op.hpp"

namespace clcg::test {

inline const cl::Env& test_env() {
  static const cl::Env env = cl::Env::create(cl::DeviceSelector::from_environment());
  return env;
}

// A DeviceInfo of `type` with an H100's 132 compute units, for the host-only tests of the
// rules that depend on the kind of device (krylov/plan.hpp).
inline cl::DeviceInfo device_info_of_type(cl_device_type type) {
  cl::DeviceInfo info;
  info.type = type;
  info.compute_units = 132;
  return info;
}

// A GPU's DeviceInfo with fp64 (the dense factor on the device is then a plan).
inline cl::DeviceInfo fp64_gpu_info() {
  cl::DeviceInfo info = device_info_of_type(CL_DEVICE_TYPE_GPU);
  info.fp64 = true;
  return info;
}

// True when the test device has fp64; double tests use it to fail loudly, never to skip.
inline bool device_has_fp64() { return test_env().info().fp64; }

// The element types the test device computes in: float, and double where it has fp64.
inline std::vector<reduction::ElementType> device_types() {
  std::vector<reduction::ElementType> types{reduction::ElementType::f32};
  if (device_has_fp64()) types.push_back(reduction::ElementType::f64);
  return types;
}

}  // namespace clcg::test
