#include "clcg/solver/sparse/row_layout.hpp"

#include <algorithm>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

RowLayout::RowLayout(const cl::Env& env, const Spmv& spmv)
    : env_(env),
      a_(spmv.matrix()),
      rows_(std::size_t(spmv.matrix().rows())),
      wg_(cl::contiguous_blocks(env.info()) ? 1 : std::min(gpu_group, floor_power_of_two(env.info().max_work_group_size))),
      vector_size_(spmv.kernel() == SpmvKernel::vector ? spmv.vector_size() : 0),
      ell_(spmv.kernel() == SpmvKernel::ell) {
  // The vector layout keeps wg / vector_size rows per pass.
  vector_size_ = std::min<unsigned>(vector_size_, static_cast<unsigned>(wg_));
  if (ell_) ell_col_ = spmv.ell_columns(), ell_val_ = spmv.ell_values(), ell_width_ = spmv.ell_width();
}

std::string RowLayout::kernel_name(std::string_view base) const {
  return std::string(base) + (ell_ ? "_ell" : vector_size_ ? "_vector" : "_scalar");
}

std::string RowLayout::build_options() const {
  return real_build_options(a_.type()) + " -D WG_SIZE=" + std::to_string(wg_);
}

cl_uint RowLayout::arg_count() const noexcept { return ell_ || vector_size_ ? 6 : 5; }

std::size_t RowLayout::set_args(cl::CachedKernel& k, cl_uint& arg, std::size_t gpu_groups_cap, RowRange range) const {
  k.set(arg++, static_cast<cl_uint>(range.first));
  k.set(arg++, static_cast<cl_uint>(range.end));
  if (ell_) {
    k.set(arg++, static_cast<cl_uint>(rows_));
    k.set(arg++, static_cast<cl_uint>(ell_width_));
    k.set(arg++, ell_col_);
    k.set(arg++, ell_val_);
  } else {
    if (vector_size_) k.set(arg++, static_cast<cl_uint>(vector_size_));
    k.set(arg++, a_.row_ptr());
    k.set(arg++, a_.col_idx());
    k.set(arg++, a_.values());
  }
  const std::size_t rows = range.size();
  if (cl::contiguous_blocks(env_.info())) {  // (a part's entries as the whole matrix's mean has them)
    const std::size_t nnz = std::size_t(a_.nnz());
    const std::size_t entries =
        rows == rows_ ? nnz : std::size_t(double(nnz) * double(rows) / double(std::max<std::size_t>(rows_, 1)));
    return cl::cpu_blocks(env_.info(), rows, rows + entries);
  }
  return std::clamp<std::size_t>((rows + rows_per_group() - 1) / rows_per_group(), 1,
                                 std::max<std::size_t>(gpu_groups_cap, 1));
}

std::size_t RowLayout::row_groups() const {
  if (cl::contiguous_blocks(env_.info())) return cl::cpu_blocks(env_.info(), rows_);
  return std::clamp<std::size_t>((rows_ + wg_ - 1) / wg_, 1, std::max<std::size_t>(1, 64 * env_.info().compute_units));
}

void RowLayout::launch(cl::CachedKernel& kernel, const std::string& name, std::size_t groups) const {
  const auto task = [&] {
    return name + " rows=" + std::to_string(rows_) + " wg=" + std::to_string(wg_) + " groups=" +
           std::to_string(groups) + " on " + env_.info().name;
  };
  cl::checked(task, [&] {
    env_.queue().enqueueNDRangeKernel(kernel.kernel(), ::cl::NullRange, ::cl::NDRange(groups * wg_), ::cl::NDRange(wg_));
  });
}

void rows_around(std::size_t rows, RowRange interior, const std::function<void()>& start,
                 const std::function<void()>& finish, const std::function<void(RowRange)>& pass) {
  start();
  if (interior.size() == 0) {  // every row waits for the ghosts
    finish();
    if (rows > 0) pass({0, rows});
    return;
  }
  pass(interior);
  finish();
  if (interior.first > 0) pass({0, interior.first});
  if (interior.end < rows) pass({interior.end, rows});
}

}  // namespace clcg::solver
