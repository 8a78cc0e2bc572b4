#include "clcg/solver/multigrid/row_kernels.hpp"

#include <algorithm>

namespace clcg::solver {

RowKernels::RowKernels(const cl::Env& env, ElementType type) : env_(env), type_(type) {
  profiling_ = cl::checked("querying the queue's properties", [&] {
    return (env.queue().getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0;
  });
}

cl_uint RowKernels::row_team(std::int64_t rows, std::int64_t nnz) {
  const double half = rows > 0 ? 0.5 * double(nnz) / double(rows) : 0.0;
  cl_uint team = 1;
  if (half > 6)
    while (team < 32 && 2.0 * team <= half) team *= 2;
  return team;
}

void RowKernels::clear_bytes(::cl::Buffer& buffer, std::size_t bytes) const {
  if (bytes > 0)
    cl::checked("clearing a device buffer", [&] { env_.queue().enqueueFillBuffer(buffer, cl_uchar(0), 0, bytes); });
}

std::vector<KernelTime> RowKernels::take_times() {
  std::vector<KernelTime> times;
  if (launches_.empty()) return times;
  cl::checked("waiting for the set-up's kernels", [&] { env_.queue().finish(); });
  for (const Launch& launch : launches_) {
    const double ns = cl::checked("reading a kernel's profiling times", [&] {
      return double(launch.event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                    launch.event.getProfilingInfo<CL_PROFILING_COMMAND_START>());
    });
    add_times(times, {KernelTime{launch.name, 1, 1e-9 * ns, launch.bytes}});
  }
  launches_.clear();
  return times;
}

}  // namespace clcg::solver
