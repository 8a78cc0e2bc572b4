#pragma once
// The OpenCL environment device tests run on: the device CLCG_DEVICE / CLCG_PLATFORM pick
// (auto by default). Created once per process so each program is built once per process.
// If no device is found every device test fails with the list of platforms seen; a device
// test never skips silently.
#include <gtest/gtest.h>

#include "clcg/cl/env.hpp"

namespace clcg::test {

inline const cl::Env& test_env() {
  static const cl::Env env = cl::Env::create(cl::DeviceSelector::from_environment());
  return env;
}

// True when the test device has fp64; double tests use it to fail loudly, never to skip.
inline bool device_has_fp64() { return test_env().info().fp64; }

}  // namespace clcg::test
