// Device selection rules on hand-made device lists (no OpenCL device needed).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/cl/device.hpp"
#include "clcg/cl/error.hpp"

namespace {

using clcg::cl::DeviceEntry;
using clcg::cl::DeviceSelector;

DeviceEntry make_device(std::size_t index, std::size_t platform, const std::string& platform_name,
                        const std::string& name, cl_device_type type, bool fp64) {
  DeviceEntry entry;
  entry.index = index;
  entry.platform_index = platform;
  entry.info.name = name;
  entry.info.platform_name = platform_name;
  entry.info.type = type;
  entry.info.fp64 = fp64;
  return entry;
}

// PoCL first (as on the GPU machine), then a GPU without fp64, then one with it.
std::vector<DeviceEntry> machine() {
  return {make_device(0, 0, "Portable Computing Language", "pthread-cpu", CL_DEVICE_TYPE_CPU, true),
          make_device(1, 1, "Small GPUs", "tiny-gpu", CL_DEVICE_TYPE_GPU, false),
          make_device(2, 2, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU, true)};
}

const std::string& selected(const std::vector<DeviceEntry>& devices, const std::string& device,
                            const std::string& platform = {}) {
  return clcg::cl::select_device(devices, DeviceSelector::parse(device, platform)).info.name;
}

// Ranks sharing a node take turns: the turn-th device of those the rule picks from (wrapping
// around); an index pins whatever the turn.
TEST(DeviceSelect, TurnsSpreadOverTheDevicesOfTheKindAskedFor) {
  auto devices = machine();
  devices.push_back(make_device(3, 2, "NVIDIA CUDA", "second H100", CL_DEVICE_TYPE_GPU, true));
  const auto turn = [&](const std::string& device, std::size_t t) {
    return clcg::cl::select_device(devices, DeviceSelector::parse(device), t).info.name;
  };
  EXPECT_EQ(turn("auto", 0), "NVIDIA H100 80GB HBM3");  // GPUs with fp64 first, in turn
  EXPECT_EQ(turn("auto", 1), "second H100");
  EXPECT_EQ(turn("auto", 2), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(turn("gpu", 1), "NVIDIA H100 80GB HBM3");  // every GPU: tiny, H100, second H100
  EXPECT_EQ(turn("gpu", 2), "second H100");
  EXPECT_EQ(turn("gpu", 3), "tiny-gpu");
  EXPECT_EQ(turn("cpu", 5), "pthread-cpu");
  EXPECT_EQ(turn("2", 1), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(clcg::cl::select_device(devices, DeviceSelector::parse("gpu", "NVIDIA"), 1).info.name, "second H100");
}

TEST(DeviceSelect, AutoPrefersAGpuWithFp64) {
  EXPECT_EQ(selected(machine(), "auto"), "NVIDIA H100 80GB HBM3");
}

TEST(DeviceSelect, AutoTakesAnyGpuWhenNoneHasFp64) {
  auto devices = machine();
  devices.pop_back();
  EXPECT_EQ(selected(devices, "auto"), "tiny-gpu");
}

TEST(DeviceSelect, AutoFallsBackToCpu) {
  auto devices = machine();
  devices.resize(1);
  EXPECT_EQ(selected(devices, "auto"), "pthread-cpu");
}

TEST(DeviceSelect, ByTypeIndexAndPlatform) {
  EXPECT_EQ(selected(machine(), "cpu"), "pthread-cpu");
  EXPECT_EQ(selected(machine(), "gpu"), "tiny-gpu");
  EXPECT_EQ(selected(machine(), "2"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(selected(machine(), "0"), "pthread-cpu");
  EXPECT_EQ(selected(machine(), "gpu", "nvidia"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(selected(machine(), "auto", "portable"), "pthread-cpu");
  EXPECT_EQ(selected(machine(), "AUTO", "CUDA"), "NVIDIA H100 80GB HBM3");
}

TEST(DeviceSelect, NoMatchListsEveryPlatformAndDevice) {
  for (const auto& [device, platform] : std::vector<std::pair<std::string, std::string>>{
           {"7", ""}, {"gpu", "portable"}, {"auto", "intel"}}) {
    try {
      selected(machine(), device, platform);
      FAIL() << device << " / " << platform << " matched";
    } catch (const clcg::cl::DeviceNotFound& e) {
      const std::string what = e.what();
      for (const char* expected : {"Portable Computing Language", "pthread-cpu", "Small GPUs", "tiny-gpu",
                                   "NVIDIA CUDA", "NVIDIA H100 80GB HBM3"})
        EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(e.code(), CL_DEVICE_NOT_FOUND);
    }
  }
}

TEST(DeviceSelect, EmptyMachineSaysNoPlatformWasFound) {
  try {
    selected({}, "auto");
    FAIL();
  } catch (const clcg::cl::DeviceNotFound& e) {
    EXPECT_NE(std::string(e.what()).find("no OpenCL platform or device was found"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelect, RejectsMalformedDeviceSpecs) {
  for (const char* spec : {"-1", "gpu0", "1.5", "fast", " 1"})
    EXPECT_THROW(DeviceSelector::parse(spec), std::invalid_argument) << spec;
}

TEST(DeviceSelect, ReadsTheEnvironment) {
  ::setenv("CLCG_DEVICE", "cpu", 1);
  ::setenv("CLCG_PLATFORM", "portable", 1);
  const DeviceSelector selector = DeviceSelector::from_environment();
  ::unsetenv("CLCG_DEVICE");
  ::unsetenv("CLCG_PLATFORM");
  EXPECT_EQ(selector.kind, DeviceSelector::Kind::cpu);
  EXPECT_EQ(selector.platform_substring, "portable");
  EXPECT_EQ(DeviceSelector::from_environment().kind, DeviceSelector::Kind::automatic);
}

TEST(DeviceSelect, ListingMarksTheSelectedDevice) {
  const auto devices = machine();
  const std::string listing = clcg::cl::format_device_list(devices, &devices[2]);
  EXPECT_NE(listing.find("* device 2: NVIDIA H100 80GB HBM3 [GPU]  <- selected"), std::string::npos) << listing;
  EXPECT_NE(listing.find("platform 1: Small GPUs"), std::string::npos) << listing;
}

}  // namespace
