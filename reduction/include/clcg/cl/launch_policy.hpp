#pragma once
// How clcg lays out a streaming kernel (one that walks n items) on each class of device; the
// kernels stay the same, only their loop macro and launch shape change (as CUB keeps its
// tuning policies apart from its algorithms).
//   GPU  groups of up to 256 work-items, each taking every (global size)-th item, so that
//        neighbouring work-items read neighbouring addresses (coalesced); a group combines its
//        values in a local-memory tree.
//   CPU  groups of one work-item, each taking one contiguous block of about n / groups items:
//        a plain loop that the compiler vectorises and the prefetchers follow, and no tree or
//        barrier (PoCL runs a group's work-items as a loop that every barrier splits). The
//        runtime builds every program with -D CLCG_CONTIGUOUS there (common.cl's
//        CLCG_FOR_EACH). Measured on PoCL: docs/PERFORMANCE.md, "On a CPU".
#include <cstddef>
#include <string>

#include "clcg/cl/device.hpp"

namespace clcg::cl {

// True where work-items take contiguous blocks (CPU devices).
bool contiguous_blocks(const DeviceInfo& device) noexcept;

// The build option the runtime adds to every program on `device` ("" or "-D CLCG_CONTIGUOUS").
std::string device_class_options(const DeviceInfo& device);

// Blocks per compute unit on a CPU: enough for PoCL to balance its threads, few enough that
// each block is long (and few partials come back).
inline constexpr std::size_t cpu_blocks_per_unit = 2;
// No block shorter than this: below it a thread's start costs more than its share of the work.
inline constexpr std::size_t cpu_min_block = 4096;

struct StreamingShape {
  std::size_t work_group = 1;
  std::size_t groups = 0;  // 0 only for n = 0
};

// The launch of a streaming kernel over n items. GPU: `gpu_group` work-items a group (capped
// at the kernel's limit `kernel_max`, a power of two when gpu_group is one) and at most
// `gpu_groups_per_unit` groups per compute unit, never more groups than items need. CPU: one
// work-item a group and min(n / cpu_min_block, cpu_blocks_per_unit * compute units) groups,
// at least one.
StreamingShape streaming_shape(const DeviceInfo& device, std::size_t n, std::size_t gpu_group,
                               std::size_t gpu_groups_per_unit, std::size_t kernel_max);

// The number of CPU blocks for n items whose total work is `work` units (an SpMV's rows weigh
// their nonzeros): min(work / cpu_min_block, cpu_blocks_per_unit * compute units, n), at least 1.
std::size_t cpu_blocks(const DeviceInfo& device, std::size_t n, std::size_t work);
inline std::size_t cpu_blocks(const DeviceInfo& device, std::size_t n) { return cpu_blocks(device, n, n); }

}  // namespace clcg::cl
