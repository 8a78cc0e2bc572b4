#include <algorithm>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/reduction/reduce.hpp"

namespace clcg::reduction {

MultiDot::MultiDot(const cl::Env& env, ElementType type, std::vector<Pair> pairs, Options options)
    : env_(env), type_(type), pairs_(std::move(pairs)), options_(options) {
  if (pairs_.empty() || pairs_.size() > 4) throw std::invalid_argument("MultiDot computes 1 to 4 dot products");
  std::string build_options = op_build_options(Op::sum, type) + " -D NUM_DOTS=" + std::to_string(pairs_.size());
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    if (pairs_[k].a > 3 || pairs_[k].b > 3) throw std::invalid_argument("MultiDot takes at most four vectors");
    vector_count_ = std::max({vector_count_, pairs_[k].a + 1, pairs_[k].b + 1});
    build_options += " -D DOT_A" + std::to_string(k) + "=" + std::to_string(pairs_[k].a) + " -D DOT_B" +
                     std::to_string(k) + "=" + std::to_string(pairs_[k].b);
  }
  build_options += " -D NUM_VECTORS=" + std::to_string(vector_count_);
  if (type == ElementType::f64 && !env.info().fp64)
    throw cl::DeviceCapabilityError("multi-dot", "device " + env.info().name + " has no double precision (cl_khr_fp64)");
  kernel_ = env.kernel("multi_dot.cl", "multi_dot_partials", build_options);
  kernel_max_work_group_ = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device());
  shape(1);  // rejects a bad work-group size now
}

LaunchShape MultiDot::shape(std::size_t n) const {
  // The kernel's loop is CLCG_FOR_EACH: grid-stride on a GPU, blocked on a CPU.
  const VariantInfo& layout = find_variant(cl::contiguous_blocks(env_.info()) ? "blocked" : "grid_stride");
  return choose_launch_shape(env_.info(), layout, n, options_, kernel_max_work_group_);
}

std::vector<double> MultiDot::run(std::span<const ::cl::Buffer> vectors, std::size_t n) {
  if (vectors.size() < vector_count_)
    throw std::invalid_argument("MultiDot needs " + std::to_string(vector_count_) + " vectors, got " +
                                std::to_string(vectors.size()));
  const std::size_t bytes = n * element_size(type_);
  for (const ::cl::Buffer& v : vectors)
    if (v.getInfo<CL_MEM_SIZE>() < bytes)
      throw std::invalid_argument("MultiDot input holds fewer than n = " + std::to_string(n) + " elements");
  const LaunchShape launch = shape(n);
  std::vector<double> dots(pairs_.size(), 0.0);
  if (launch.groups == 0) return dots;
  const std::size_t count = launch.groups * pairs_.size();
  if (count > partial_capacity_) {
    partials_ = ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, count * element_size(type_));
    pinned_ = cl::PinnedBuffer(env_, count * element_size(type_));
    partial_capacity_ = count;
  }
  unsigned char* raw = pinned_.data();
  cl::checked("multi-dot n=" + std::to_string(n) + " on " + env_.info().name, [&] {
    for (unsigned v = 0; v < 4; ++v) kernel_.setArg(v, vectors[std::min<std::size_t>(v, vectors.size() - 1)]);
    kernel_.setArg(4, static_cast<cl_ulong>(n));
    kernel_.setArg(5, partials_);
    kernel_.setArg(6, ::cl::Local(launch.work_group_size * element_size(type_)));
    env_.queue().enqueueNDRangeKernel(kernel_, ::cl::NullRange, ::cl::NDRange(launch.groups * launch.work_group_size),
                                      ::cl::NDRange(launch.work_group_size));
    env_.queue().enqueueReadBuffer(partials_, CL_TRUE, 0, count * element_size(type_), raw);
  });
  std::vector<double> widened;
  finish_partial_runs(Op::sum, raw, type_, launch.groups, dots, widened);
  return dots;
}

}  // namespace clcg::reduction
