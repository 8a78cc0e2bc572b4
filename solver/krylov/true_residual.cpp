#include "clcg/solver/krylov/true_residual.hpp"

#include <cmath>

namespace clcg::solver {

using reduction::Op;

TrueResidual::TrueResidual(const cl::Env& env, const Spmv& spmv, const reduction::Options& options)
    : env_(env),
      spmv_(spmv),
      ops_(env, spmv.matrix().type()),
      n_(std::size_t(spmv.matrix().rows())),
      type_(env.info().fp64 ? ElementType::f64 : spmv.matrix().type()),
      sumsq_(env, Op::sumsq, type_, options) {}  // built now: a solve builds no program

double TrueResidual::relative(const ::cl::Buffer& b, const ::cl::Buffer& x, double bb) {
  const bool fp64 = env_.info().fp64;
  if (!residual_()) residual_ = make_vector(env_, type_, n_);
  if (fp64) {
    spmv_.residual_f64(x, b, residual_);               // r = b - A x, in double
  } else {
    spmv_.enqueue(x, residual_);                       // r = A x
    ops_.axpby_to(n_, 1.0, b, -1.0, residual_, residual_);  // r = b - r
  }
  const double rr = sumsq_.run(residual_, 0, n_).value;
  return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

}  // namespace clcg::solver
