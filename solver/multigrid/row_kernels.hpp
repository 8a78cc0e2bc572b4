#pragma once
// How the AMG set-up's kernels (kernels/aggregation.cl, sparse_product.cl) are launched: each
// takes its row count first and visits its rows with CLCG_FOR_EACH. Private to multigrid/.
#include <cstddef>
#include <type_traits>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

struct Real {  // a REAL kernel argument, converted to the kernels' type
  double value;
};

// kernel(rows, args...) over `rows` rows, grid-stride.
template <class... Args>
void run_rows(const cl::Env& env, ElementType type, ::cl::Kernel& kernel, const char* name, std::size_t rows,
              const Args&... args) {
  cl_uint index = 0;
  kernel.setArg(index++, as_count(rows));
  const auto set = [&](const auto& arg) {
    if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, Real>)
      set_real_arg(kernel, index++, type, arg.value);
    else
      kernel.setArg(index++, arg);
  };
  (set(args), ...);
  enqueue_grid_stride(env, kernel, name, rows, spmv_group);
}

// The first `ints` ints of `buffer` set to 0.
inline void clear_ints(const cl::Env& env, ::cl::Buffer& buffer, std::size_t ints) {
  if (ints > 0)
    cl::checked("clearing a device buffer",
                [&] { env.queue().enqueueFillBuffer(buffer, cl_int(0), 0, ints * sizeof(cl_int)); });
}

}  // namespace clcg::solver
