#include "clcg/solver/sparse/conversion.hpp"

#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

Conversion::Conversion(const cl::Env& env, ElementType from, ElementType to) : env_(env) {
  const char* other = to == ElementType::f64 ? " -D OTHER_REAL=double" : " -D OTHER_REAL=float";
  convert_ = env.kernel("blas1.cl", "convert", real_build_options(from) + other);
}

void Conversion::enqueue(std::size_t n, const ::cl::Buffer& x, ::cl::Buffer& y) {
  convert_.setArg(0, as_count(n));
  convert_.setArg(1, x);
  convert_.setArg(2, y);
  enqueue_grid_stride(env_, convert_, "convert", n, vector_ops_group);
}

DeviceCsrMatrix with_value_type(const cl::Env& env, const DeviceCsrMatrix& a, ElementType type) {
  if (type == a.type()) return a;
  const std::uint64_t bytes = std::uint64_t(a.nnz()) * reduction::element_size(type);
  check_device_memory(env.info(), bytes, bytes, "matrix values in the preconditioner's precision");
  ::cl::Buffer values = make_vector(env, type, std::size_t(a.nnz()));
  Conversion(env, a.type(), type).enqueue(std::size_t(a.nnz()), a.values(), values);
  return a.with_values(values, type);
}

}  // namespace clcg::solver
