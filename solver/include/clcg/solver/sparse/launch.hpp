#pragma once
// How the SpMV, level-1 and preconditioner kernels are launched: their CLCG_FOR_EACH loops
// cover any n with any number of groups, and the shape depends only on the device and n (the
// same launch, the same bits).
#include <cstddef>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"

namespace clcg::solver {

// A kernel's device time from OpenCL profiling events (on a profiling queue only): the set-ups'
// kernel tables (AMG's, the dense factor's).
struct KernelTime {
  std::string name;
  std::size_t launches = 0;
  double seconds = 0;
  double bytes = 0;  // the sizes of the buffers given to its launches, summed: at least what it moves
};

// `more` added to `into`, kernel by kernel (by name).
void add_times(std::vector<KernelTime>& into, const std::vector<KernelTime>& more);

inline constexpr std::size_t vector_ops_group = 256;  // work-items per group for the level-1 kernels
inline constexpr std::size_t spmv_group = 128;        // work-items per group for the CSR kernels
inline constexpr std::size_t groups_per_unit = 64;    // cap on groups per compute unit (grid-stride)

// The kernel's CL_KERNEL_WORK_GROUP_SIZE on env's device.
std::size_t kernel_max_group(const cl::Env& env, const ::cl::Kernel& kernel);

// n as a kernel's uint count; std::length_error beyond the 32-bit index range.
cl_uint as_count(std::size_t n);

// Enqueues `groups` groups of `wg` work-items, groups = min(ceil(n / wg), max_groups); on a CPU
// groups of one work-item taking contiguous blocks instead (clcg/cl/launch_policy.hpp); nothing
// for n = 0. OpenCL errors name the kernel, n and the shape.
// `work`: the total work of the n items for the CPU's block count (an SpMV: its nonzeros);
// 0 counts one unit an item. `event`, where given, receives the launch's event (profiling).
void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n, std::size_t wg,
                         std::size_t max_groups, std::size_t work = 0, ::cl::Event* event = nullptr);

// Exactly `groups` groups of `wg` work-items on every device, for kernels that lay out their
// own work by group (the vector CSR SpMV); nothing for groups = 0.
void enqueue_groups(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t groups, std::size_t wg,
                    ::cl::Event* event = nullptr);

// The same with the default cap (groups_per_unit per compute unit) and wg = min(preferred,
// the kernel's limit).
void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n,
                         std::size_t preferred_wg, ::cl::Event* event = nullptr);

}  // namespace clcg::solver
