#pragma once
// How the SpMV, level-1 and preconditioner kernels are launched: grid-stride loops over n
// items, so any number of groups covers any n, and the group count depends only on the device
// and n (the same launch, the same bits).
#include <cstddef>
#include <string>

#include "clcg/cl/env.hpp"

namespace clcg::solver {

inline constexpr std::size_t vector_ops_group = 256;  // work-items per group for the level-1 kernels
inline constexpr std::size_t spmv_group = 128;        // work-items per group for the CSR kernels
inline constexpr std::size_t groups_per_unit = 64;    // cap on groups per compute unit (grid-stride)

// The kernel's CL_KERNEL_WORK_GROUP_SIZE on env's device.
std::size_t kernel_max_group(const cl::Env& env, const ::cl::Kernel& kernel);

// n as a kernel's uint count; std::length_error beyond the 32-bit index range.
cl_uint as_count(std::size_t n);

// Enqueues `groups` groups of `wg` work-items, groups = min(ceil(n / wg), max_groups); nothing
// for n = 0. OpenCL errors name the kernel, n and the shape.
void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n, std::size_t wg,
                         std::size_t max_groups);

// The same with the default cap (groups_per_unit per compute unit) and wg = min(preferred,
// the kernel's limit).
void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n,
                         std::size_t preferred_wg);

}  // namespace clcg::solver
