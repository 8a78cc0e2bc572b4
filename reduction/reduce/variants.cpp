#include <array>
#include <stdexcept>
#include <string>

#include "clcg/cl/launch_policy.hpp"
#include "clcg/reduction/variant.hpp"

namespace clcg::reduction {
namespace {

using enum Layout;
using enum Finish;

// One line per variant. Fields: name, source, layout, finish, deterministic,
// needs_power_of_two, fixed_size_tree, description.
constexpr std::array<VariantInfo, 7> registry{{
    {"serial", "reduce_serial.cl", element_per_work_item, host, true, false, false,
     "one element per work-item; work-item 0 sums the group alone (pi article, kernel 1)"},
    {"interleaved", "reduce_interleaved.cl", element_per_work_item, host, true, true, false,
     "one element per work-item; tree with mask addressing (OSU ArrayMultReduce)"},
    {"sequential", "reduce_sequential.cl", element_per_work_item, host, true, true, false,
     "one element per work-item; tree with halving stride (dournac sumGPU)"},
    {"grid_stride", "reduce_grid_stride.cl", Layout::grid_stride, host, true, true, false,
     "strided slice per work-item in registers, then a tree (PCL global-stride)"},
    {"unrolled", "reduce_unrolled.cl", Layout::grid_stride, host, true, true, true,
     "grid_stride with the loop unrolled and the tree unrolled for a compile-time group size (PCL)"},
    {"atomic", "reduce_atomic.cl", Layout::grid_stride, device, false, true, false,
     "grid_stride, then each group folds its partial into one result with a compare-and-swap loop"},
    {"blocked", "reduce_blocked.cl", contiguous_block, host, true, true, false,
     "one contiguous block per work-item in a plain loop, groups of one (for CPUs)"},
}};

}  // namespace

std::span<const VariantInfo> variants() noexcept { return registry; }

const VariantInfo& find_variant(std::string_view name) {
  std::string known;
  for (const VariantInfo& variant : registry) {
    if (variant.name == name) return variant;
    known += known.empty() ? "" : ", ";
    known += variant.name;
  }
  throw std::invalid_argument("unknown reduction variant '" + std::string(name) + "' (known: " + known + ")");
}

const VariantInfo& default_variant(const cl::DeviceInfo& device) noexcept {
  return cl::contiguous_blocks(device) ? registry[6] : registry[4];
}

}  // namespace clcg::reduction
