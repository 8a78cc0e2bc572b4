#pragma once
// The reduction algorithms clcg implements. One line per variant in reduce/variants.cpp; tests,
// benchmarks and the CLI iterate variants().
#include <span>
#include <string_view>

#include "clcg/cl/device.hpp"

namespace clcg::reduction {

enum class Finish { host, device };  // who combines the per-group partials
enum class Layout {
  element_per_work_item,  // global size = n rounded up to the group: one partial per wg elements
  grid_stride,            // a fixed number of groups, each work-item loops over a strided slice
  contiguous_block,       // CPU-shaped: groups of one work-item, each taking one contiguous block
};

struct VariantInfo {
  std::string_view name;    // the contract name: serial, interleaved, ...
  std::string_view source;  // kernels/<source>
  Layout layout;
  Finish finish;
  bool deterministic;       // same input, device and shape -> same bits
  bool needs_power_of_two;  // work-group size must be a power of two
  bool fixed_size_tree;     // tree unrolled at compile time for the work-group size
  std::string_view description;
};

std::span<const VariantInfo> variants() noexcept;
// The variant called `name`; std::invalid_argument listing the names otherwise.
const VariantInfo& find_variant(std::string_view name);
// The variant used when none is named: the fastest deterministic one on that class of device
// (`unrolled` on a GPU, `blocked` on a CPU: clcg/cl/launch_policy.hpp).
const VariantInfo& default_variant(const cl::DeviceInfo& device) noexcept;

}  // namespace clcg::reduction
