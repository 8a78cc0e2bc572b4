#include "clcg/solver/precond/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

double largest_tridiagonal_eigenvalue(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const std::size_t k = alpha.size();
  if (k == 0) return 0;
  if (beta.size() + 1 != k) throw std::invalid_argument("tridiagonal: beta must be one shorter than alpha");
  // Gershgorin interval, then bisection: count(x) = eigenvalues below x (Sturm sequence).
  double lo = alpha[0], hi = alpha[0];
  for (std::size_t i = 0; i < k; ++i) {
    const double radius = (i > 0 ? std::abs(beta[i - 1]) : 0.0) + (i + 1 < k ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - radius);
    hi = std::max(hi, alpha[i] + radius);
  }
  const auto below = [&](double x) {
    std::size_t count = 0;
    double d = 1;
    for (std::size_t i = 0; i < k; ++i) {
      d = alpha[i] - x - (i > 0 ? beta[i - 1] * beta[i - 1] / d : 0.0);
      if (d == 0) d = -1e-300;
      if (d < 0) ++count;
    }
    return count;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) == k ? hi : lo) = mid;  // all k below mid: the largest is below mid
  }
  return hi;
}

SpectrumEstimator::SpectrumEstimator(const cl::Env& env, ElementType type) : env_(env), type_(type) {}

// Lanczos on M = D^-1/2 A D^-1/2 (similar to D^-1 A) with unnormalised vectors û_j = beta_j v_j,
// carried as u_j = D^-1/2 û_j: one pass gives z = A u and the partials of û.Mû = u.z and
// û.û = u.Du, so alpha_j = u.z / u.Du and beta_j = |û_j| come with a single read-back a step;
// the update forms D^-1/2 of M v_j - alpha_j v_j - beta_j v_j-1 from D^-1 z.
double SpectrumEstimator::lambda_max(Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  return lambda_max_each({Problem{&spmv, &inv_diag}}, steps).front();
}

// Each problem's kernels, arguments and host arithmetic are those of an estimate alone, in the
// same order; only the problems' commands interleave, and the last read-back of a step (a
// blocking one, on the in-order queue) waits for all of them.
std::vector<double> SpectrumEstimator::lambda_max_each(const std::vector<Problem>& problems, unsigned steps) {
  struct Run {
    std::size_t n = 0;
    std::optional<RowLayout> layout;
    cl::CachedKernel* product = nullptr;
    ::cl::Buffer u, w;  // swapped each step
    std::vector<double> alpha, beta;
    std::size_t groups = 0;
    bool active = false;
  };
  std::vector<Run> runs(problems.size());
  if (slots_.size() < problems.size()) slots_.resize(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    const DeviceCsrMatrix& a = problems[p].spmv->matrix();
    Run& run = runs[p];
    Slot& slot = slots_[p];
    run.n = std::size_t(a.rows());
    if (run.n == 0) continue;
    if (a.type() != type_) throw std::invalid_argument("SpectrumEstimator: the matrix is not of the estimator's type");
    run.active = true;
    if (run.n > slot.capacity) {
      for (::cl::Buffer* v : {&slot.u, &slot.previous, &slot.w, &slot.z}) *v = make_vector(env_, type_, run.n);
      slot.capacity = run.n;
    }
    run.layout.emplace(env_, *problems[p].spmv);
    if (options_.empty()) {
      options_ = run.layout->build_options();
      start_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_start", options_));
      next_ = cl::CachedKernel(env_.kernel("lanczos.cl", "lanczos_next", options_));
    }
    const std::string name = run.layout->kernel_name("lanczos_product");
    auto found = products_.find(name);
    if (found == products_.end())
      found = products_.emplace(name, cl::CachedKernel(env_.kernel("lanczos.cl", name.c_str(), options_))).first;
    run.product = &found->second;
    run.u = slot.u;
    run.w = slot.w;
    cl_uint arg = 0;
    start_.set(arg++, cl_uint(run.n));
    start_.set(arg++, cl_ulong(0x5eedc0de));
    start_.set(arg++, *problems[p].inv_diag);
    start_.set(arg++, run.u);
    start_.set(arg++, slot.previous);
    run.layout->launch(start_, "lanczos_start", run.layout->row_groups());
  }
  for (unsigned j = 0; j < std::max(1u, steps); ++j) {
    std::size_t last = runs.size();  // the last active run: its read-back blocks
    for (std::size_t p = 0; p < runs.size(); ++p) {
      Run& run = runs[p];
      if (!run.active) continue;
      cl_uint arg = 0;
      run.groups = run.layout->set_args(*run.product, arg, product_groups_per_unit * env_.info().compute_units);
      run.product->set(arg++, *problems[p].inv_diag);
      run.product->set(arg++, run.u);
      run.product->set(arg++, slots_[p].z);
      run.product->set(arg++, partials_for(p, run.groups));
      run.layout->launch(*run.product, "lanczos_product", run.groups);
      last = p;
    }
    if (last == runs.size()) break;
    for (std::size_t p = 0; p <= last; ++p)
      if (runs[p].active) read_partials(p, runs[p].groups, p == last);
    for (std::size_t p = 0; p <= last; ++p) {
      Run& run = runs[p];
      if (!run.active) continue;
      const auto [uau, udu] = finish_dots(p, run.groups);
      const double b_j = std::sqrt(udu);
      if (j > 0) {
        if (!(b_j > 1e-12 * std::abs(run.alpha.back()))) {  // an invariant subspace
          run.active = false;
          continue;
        }
        run.beta.push_back(b_j);
      } else if (!(b_j > 0)) {
        run.active = false;
        run.alpha.clear();  // 0, as for n = 0
        continue;
      }
      const double a_j = uau / udu;
      run.alpha.push_back(a_j);
      if (j + 1 == steps) {
        run.active = false;
        continue;
      }
      // w = (M v_j - alpha_j v_j - beta_j v_j-1) scaled back, and v_j (the next step's v_j-1) into previous
      cl_uint arg = 0;
      next_.set(arg++, cl_uint(run.n));
      set_real_arg(next_, arg++, type_, 1 / b_j);
      next_.set(arg++, *problems[p].inv_diag);
      next_.set(arg++, slots_[p].z);
      set_real_arg(next_, arg++, type_, -a_j / b_j);
      next_.set(arg++, run.u);
      set_real_arg(next_, arg++, type_, j > 0 ? -b_j : 0.0);
      next_.set(arg++, slots_[p].previous);
      set_real_arg(next_, arg++, type_, 1 / b_j);
      next_.set(arg++, run.w);
      run.layout->launch(next_, "lanczos_next", run.layout->row_groups());
      std::swap(run.u, run.w);
    }
  }
  std::vector<double> results;
  for (const Run& run : runs) results.push_back(largest_tridiagonal_eigenvalue(run.alpha, run.beta));
  return results;
}

const ::cl::Buffer& SpectrumEstimator::partials_for(std::size_t p, std::size_t groups) {
  Slot& slot = slots_[p];
  if (groups > slot.partial_groups) {
    slot.partials = make_vector(env_, type_, 2 * groups);
    slot.host = cl::PinnedBuffer(env_, 2 * groups * reduction::element_size(type_));
    slot.partial_groups = groups;
  }
  return slot.partials;
}

void SpectrumEstimator::read_partials(std::size_t p, std::size_t groups, bool blocking) {
  const std::size_t size = reduction::element_size(type_);
  cl::checked("reading the Lanczos dot partials", [&] {
    env_.queue().enqueueReadBuffer(slots_[p].partials, blocking ? CL_TRUE : CL_FALSE, 0, 2 * groups * size,
                                   slots_[p].host.data());
  });
}

std::pair<double, double> SpectrumEstimator::finish_dots(std::size_t p, std::size_t groups) {
  double dots[2];
  reduction::finish_partial_runs(reduction::Op::sum, slots_[p].host.data(), type_, groups, dots, widened_);
  return {dots[0], dots[1]};
}

void SpectrumEstimator::release_vectors() {
  for (Slot& slot : slots_) {
    for (::cl::Buffer* v : {&slot.u, &slot.previous, &slot.w, &slot.z}) *v = ::cl::Buffer();
    slot.capacity = 0;
  }
}

double estimate_lambda_max(const cl::Env& env, Spmv& spmv, const ::cl::Buffer& inv_diag, unsigned steps) {
  return SpectrumEstimator(env, spmv.matrix().type()).lambda_max(spmv, inv_diag, steps);
}

}  // namespace clcg::solver
