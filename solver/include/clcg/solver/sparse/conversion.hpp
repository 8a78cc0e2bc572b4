#pragma once
// Vectors and matrix values from one element type to the other, on the device: what a
// preconditioner applied in float for a solve in double needs (precond/mixed_precision.hpp).
#include <cstddef>

#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// y = x converted from `from` to `to` (n elements; enqueued, nothing blocks).
class Conversion {
 public:
  Conversion(const cl::Env& env, ElementType from, ElementType to);
  void enqueue(std::size_t n, const ::cl::Buffer& x, ::cl::Buffer& y);

 private:
  cl::Env env_;
  ::cl::Kernel convert_;
};

// A with its values in `type`: shares A's row pointers and column indices (no copy), converts
// the values on the device. Checks the device memory for the new values first.
DeviceCsrMatrix with_value_type(const cl::Env& env, const DeviceCsrMatrix& a, ElementType type);

}  // namespace clcg::solver
