#include "clcg/solver/sparse/launch.hpp"

#include <algorithm>
#include <stdexcept>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

std::size_t kernel_max_group(const cl::Env& env, const ::cl::Kernel& kernel) {
  return cl::checked("querying CL_KERNEL_WORK_GROUP_SIZE",
                     [&] { return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device()); });
}

cl_uint as_count(std::size_t n) {
  if (n > max_csr_index) throw std::length_error("vector of " + std::to_string(n) + " elements is too long for clcg");
  return static_cast<cl_uint>(n);
}

void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n, std::size_t wg,
                         std::size_t max_groups, std::size_t work, ::cl::Event* event) {
  if (n == 0) return;
  std::size_t groups = std::max<std::size_t>(1, std::min((n + wg - 1) / wg, max_groups));
  if (cl::contiguous_blocks(env.info()))  // one block per work-item
    wg = 1, groups = cl::cpu_blocks(env.info(), n, work ? work : n);
  cl::checked(std::string("running ") + name + " (n " + std::to_string(n) + ", work-group " + std::to_string(wg) +
                  ", groups " + std::to_string(groups) + ") on " + env.info().name,
              [&] {
                env.queue().enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(groups * wg), ::cl::NDRange(wg),
                                                 nullptr, event);
              });
}

void enqueue_groups(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t groups, std::size_t wg,
                    ::cl::Event* event) {
  if (groups == 0) return;
  cl::checked(std::string("running ") + name + " (work-group " + std::to_string(wg) + ", groups " +
                  std::to_string(groups) + ") on " + env.info().name,
              [&] {
                env.queue().enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(groups * wg), ::cl::NDRange(wg),
                                                 nullptr, event);
              });
}

void enqueue_grid_stride(const cl::Env& env, ::cl::Kernel& kernel, const char* name, std::size_t n,
                         std::size_t preferred_wg, ::cl::Event* event) {
  enqueue_grid_stride(env, kernel, name, n, std::min(preferred_wg, kernel_max_group(env, kernel)),
                      groups_per_unit * env.info().compute_units, 0, event);
}

void add_times(std::vector<KernelTime>& into, const std::vector<KernelTime>& more) {
  for (const KernelTime& k : more) {
    auto same = std::find_if(into.begin(), into.end(), [&](const KernelTime& t) { return t.name == k.name; });
    if (same == into.end()) {
      into.push_back(k);
      continue;
    }
    same->launches += k.launches;
    same->seconds += k.seconds;
    same->bytes += k.bytes;
  }
}

}  // namespace clcg::solver
