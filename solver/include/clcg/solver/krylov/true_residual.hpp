#pragma once
// ||b - A x|| / ||b|| on the device, after a solve or to confirm convergence: r = b - A x in
// double where the device has fp64 (in the matrix's precision otherwise), then a sum of
// squares through clcg::reduction.
#include <cstddef>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

class TrueResidual {
 public:
  TrueResidual(const cl::Env& env, const Spmv& spmv, const reduction::Options& options);
  double relative(const ::cl::Buffer& b, const ::cl::Buffer& x, double bb);  // bb = ||b||^2

 private:
  cl::Env env_;
  Spmv spmv_;  // shares the solver's kernel objects; used from the same thread
  VectorOps ops_;
  std::size_t n_;
  ElementType type_;       // of the residual: double where the device has fp64
  ::cl::Buffer residual_;  // allocated on first use
  reduction::Reducer sumsq_;
};

}  // namespace clcg::solver
