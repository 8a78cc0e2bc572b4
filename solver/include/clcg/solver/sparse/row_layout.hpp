#pragma once
// How a kernel that walks a matrix's rows and fuses work into them (the fused CG passes, the
// Chebyshev steps, the V-cycle's residual and prolongation) reads the matrix: in the layout
// its Spmv chose (scalar CSR, vector CSR, or the ELL copy), through kernels/spmv_rows.cl's
// macros. Such kernels come in three builds, <base>_scalar, <base>_vector and <base>_ell,
// whose first arguments are the layout's matrix arguments; this class names the build to use,
// sets those arguments and says how many groups to launch.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

// Rows [first, end) of a matrix.
struct RowRange {
  std::size_t first = 0, end = 0;
  std::size_t size() const noexcept { return end - first; }
};

class RowLayout {
 public:
  // Work-items per group of the fused kernels on a GPU (1 on a CPU: launch_policy.hpp).
  static constexpr std::size_t gpu_group = 256;

  RowLayout(const cl::Env& env, const Spmv& spmv);

  std::string kernel_name(std::string_view base) const;  // base + "_scalar" | "_vector" | "_ell"
  std::string build_options() const;                     // -D REAL=... -D WG_SIZE=...
  std::size_t work_group() const noexcept { return wg_; }
  std::size_t rows() const noexcept { return rows_; }
  std::size_t rows_per_group() const noexcept { return vector_size_ ? wg_ / vector_size_ : wg_; }
  cl_uint arg_count() const noexcept;  // first, rows, (vector size | ELL stride and width), the arrays
  // Sets the matrix arguments from `arg` on (advancing it), for the pass over `range` (all the
  // rows where none is given). Returns the groups to launch: one per rows_per_group() rows of
  // it, at most gpu_groups_cap on a GPU; CPU blocks on a CPU.
  std::size_t set_args(cl::CachedKernel& kernel, cl_uint& arg, std::size_t gpu_groups_cap) const {
    return set_args(kernel, arg, gpu_groups_cap, RowRange{0, rows_});
  }
  std::size_t set_args(cl::CachedKernel& kernel, cl_uint& arg, std::size_t gpu_groups_cap, RowRange range) const;
  // Groups for an element-wise kernel over the rows (one row a work-item on a GPU, capped).
  std::size_t row_groups() const;
  ElementType type() const noexcept { return a_.type(); }
  // Enqueues `groups` groups on env's queue; OpenCL errors name `name` and the shape.
  void launch(cl::CachedKernel& kernel, const std::string& name, std::size_t groups) const;

 private:
  cl::Env env_;
  DeviceCsrMatrix a_;
  std::size_t rows_;
  std::size_t wg_;
  unsigned vector_size_ = 0;  // 0 unless the vector CSR layout
  bool ell_ = false;
  ::cl::Buffer ell_col_, ell_val_;
  unsigned ell_width_ = 0;
};

// A pass over rows [0, rows) beside a halo exchange: start(), the pass over `interior` (rows
// that read no ghost), finish() (the ghosts in), the pass over the rest. Every row once, by the
// same kernel as one pass over all: the same bits.
void rows_around(std::size_t rows, RowRange interior, const std::function<void()>& start,
                 const std::function<void()>& finish, const std::function<void(RowRange)>& pass);

}  // namespace clcg::solver
