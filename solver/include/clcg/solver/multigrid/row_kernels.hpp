#pragma once
// How the AMG set-up's kernels (kernels/aggregation.cl, sparse_product.cl) are launched: each
// takes its row count first and visits its rows with CLCG_FOR_EACH. On a profiling queue
// (cg-bench's) every launch's event is kept, so the set-up reports each kernel's device time.
// Used by multigrid/ and the distributed set-up (distributed/rank_setup.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

struct Real {  // a REAL kernel argument, converted to the kernels' type
  double value;
};

class RowKernels {
 public:
  RowKernels(const cl::Env& env, ElementType type);

  // kernel(rows, args...) over `rows` rows, grid-stride; `name` for errors and the profile.
  template <class... Args>
  void run(::cl::Kernel& kernel, const std::string& name, std::size_t rows, const Args&... args) {
    const double bytes = set_args(kernel, rows, args...);
    enqueue_grid_stride(env_, kernel, name.c_str(), rows, spmv_group, record(name, bytes));
  }
  // The same as exactly `groups` groups of `wg` work-items (kernels that give each group a row).
  template <class... Args>
  void run_groups(::cl::Kernel& kernel, const std::string& name, std::size_t groups, std::size_t wg, std::size_t rows,
                  const Args&... args) {
    const double bytes = set_args(kernel, rows, args...);
    enqueue_groups(env_, kernel, name.c_str(), groups, wg, record(name, bytes));
  }

  // Work-items a row for the kernels whose teams share rows (kernels/aggregation.cl's
  // CLCG_FOR_EACH_TEAM_ROW and _PASS): one for short rows, else the largest power of two up to
  // half the mean row, at most 32.
  static cl_uint row_team(std::int64_t rows, std::int64_t nnz);
  static constexpr std::size_t team_group = 64;  // aggregation.cl's TEAM_GROUP (a multiple of 32)
  // kernel(rows, team, args...) in groups of team_group work-items, teams of row_team a row.
  template <class... Args>
  void run_teams(::cl::Kernel& kernel, const std::string& name, std::int64_t rows, std::int64_t nnz,
                 const Args&... args) {
    run_with_team(kernel, name, rows, row_team(rows, nnz), args...);
  }
  // The same with teams of `team` (a power of two up to 32).
  template <class... Args>
  void run_with_team(::cl::Kernel& kernel, const std::string& name, std::int64_t rows, cl_uint team,
                     const Args&... args) {
    const std::size_t n = std::size_t(rows);
    const std::size_t groups =
        std::min((n * team + team_group - 1) / team_group, groups_per_unit * env_.info().compute_units);
    if (groups > 0) run_groups(kernel, name, groups, team_group, n, team, args...);
  }

  // The first `bytes` bytes (or `ints` ints) of `buffer` set to 0.
  void clear_bytes(::cl::Buffer& buffer, std::size_t bytes) const;
  void clear_ints(::cl::Buffer& buffer, std::size_t ints) const { clear_bytes(buffer, ints * sizeof(cl_int)); }

  // Device time per kernel of the launches since the last call, in the order of first launch
  // (waits for the queue); empty unless the queue profiles.
  std::vector<KernelTime> take_times();

 private:
  // Sets (rows, args...); returns the bytes of the buffers among them where the queue profiles.
  template <class... Args>
  double set_args(::cl::Kernel& kernel, std::size_t rows, const Args&... args) {
    cl_uint index = 0;
    double bytes = 0;
    kernel.setArg(index++, as_count(rows));
    const auto set = [&](const auto& arg) {
      using Arg = std::decay_t<decltype(arg)>;
      if constexpr (std::is_same_v<Arg, Real>) {
        set_real_arg(kernel, index++, type_, arg.value);
      } else {
        if constexpr (std::is_same_v<Arg, ::cl::Buffer>)
          if (profiling_) bytes += double(arg.template getInfo<CL_MEM_SIZE>());
        kernel.setArg(index++, arg);
      }
    };
    (set(args), ...);
    // (PoCL takes an argument past the kernel's last without an error; NVIDIA's OpenCL refuses it)
    if (index != kernel.getInfo<CL_KERNEL_NUM_ARGS>())
      throw std::logic_error(kernel.getInfo<CL_KERNEL_FUNCTION_NAME>() + ": " + std::to_string(index) +
                             " arguments for a kernel of " + std::to_string(kernel.getInfo<CL_KERNEL_NUM_ARGS>()));
    return bytes;
  }
  // Where the queue profiles, a new launch's event to fill; else null.
  ::cl::Event* record(const std::string& name, double bytes) {
    if (!profiling_) return nullptr;
    launches_.push_back({name, {}, bytes});
    return &launches_.back().event;
  }

  struct Launch {
    std::string name;
    ::cl::Event event;
    double bytes = 0;
  };
  cl::Env env_;
  ElementType type_;
  bool profiling_ = false;
  std::vector<Launch> launches_;
};

}  // namespace clcg::solver
