#include "clcg/solver/sparse/symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

SymmetryReport device_symmetry(const cl::Env& env, const DeviceCsrMatrix& a, const CsrView& host,
                               double relative_tolerance) {
  if (a.type() != ElementType::f64) throw std::invalid_argument("device_symmetry: the matrix must be in double");
  if (a.rows() != a.cols()) throw std::invalid_argument("device_symmetry: the matrix must be square");
  SymmetryReport report;
  const std::size_t nnz = std::size_t(a.nnz());
  if (nnz == 0) return report;
  check_device_memory(env.info(), nnz * sizeof(double), nnz * sizeof(double), "symmetry check");
  ::cl::Buffer mismatch = make_vector(env, ElementType::f64, nnz);
  ::cl::Kernel kernel = env.kernel("symmetry.cl", "csr_symmetry_mismatch", real_build_options(ElementType::f64));
  kernel.setArg(0, as_count(std::size_t(a.rows())));
  kernel.setArg(1, a.row_ptr());
  kernel.setArg(2, a.col_idx());
  kernel.setArg(3, a.values());
  kernel.setArg(4, mismatch);
  enqueue_grid_stride(env, kernel, "csr_symmetry_mismatch", std::size_t(a.rows()), spmv_group);
  using reduction::Op;
  const reduction::Result largest = reduction::Reducer(env, Op::argmax, ElementType::f64).run(mismatch, 0, nnz);
  const double high = reduction::Reducer(env, Op::max, ElementType::f64).run(a.values(), 0, nnz).value;
  const double low = reduction::Reducer(env, Op::min, ElementType::f64).run(a.values(), 0, nnz).value;
  report.max_abs_entry = std::max(std::abs(high), std::abs(low));
  report.max_abs_mismatch = largest.value;
  if (largest.value > 0) {  // argmax takes the lowest index on ties: the first in row-major order
    const auto k = static_cast<std::int32_t>(largest.index);
    report.row = int(std::upper_bound(host.row_ptr.begin(), host.row_ptr.end(), k) - host.row_ptr.begin() - 1);
    report.col = host.col_idx[std::size_t(k)];
  }
  report.symmetric = report.max_abs_mismatch <= relative_tolerance * report.max_abs_entry;
  return report;
}

}  // namespace clcg::solver
