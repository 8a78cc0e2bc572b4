#include "viennacl_peer.hpp"

#define VIENNACL_WITH_OPENCL
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

ViennaclResult viennacl_cg(const clcg::cl::Env& env, const clcg::solver::HostMatrix& a, const Eigen::VectorXd& b,
                           int iterations, int repeats) {
  // ViennaCL context 7 wraps clcg's objects, so both run on the same device and queue.
  viennacl::ocl::setup_context(7, env.context()(), env.device()(), env.queue()());
  viennacl::ocl::switch_context(7);
  const std::size_t n = static_cast<std::size_t>(a.rows()), nnz = static_cast<std::size_t>(a.nonZeros());
  std::vector<unsigned int> row_ptr(a.outerIndexPtr(), a.outerIndexPtr() + n + 1);
  std::vector<unsigned int> cols(a.innerIndexPtr(), a.innerIndexPtr() + nnz);
  viennacl::compressed_matrix<double> matrix(n, n);
  matrix.set(row_ptr.data(), cols.data(), a.valuePtr(), n, n, nnz);
  viennacl::vector<double> rhs(n);
  viennacl::copy(b.data(), b.data() + n, rhs.begin());
  viennacl::backend::finish();

  const auto timed = [&](double tolerance, unsigned limit, std::size_t* steps) {
    viennacl::backend::finish();
    const auto start = std::chrono::steady_clock::now();
    viennacl::linalg::cg_tag tag(tolerance, limit);
    viennacl::vector<double> x = viennacl::linalg::solve(matrix, rhs, tag);
    viennacl::backend::finish();
    if (steps) *steps = tag.iters();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  ViennaclResult result;
  std::size_t steps = 0;
  timed(1e-300, static_cast<unsigned>(iterations), &steps);  // warm-up: ViennaCL builds its kernels
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) times.push_back(timed(1e-300, static_cast<unsigned>(iterations), &steps));
  std::sort(times.begin(), times.end());
  result.ms_per_iteration = times[times.size() / 2] / static_cast<double>(std::max<std::size_t>(1, steps));
  result.solve_ms = timed(1e-8, 100000, &result.solve_iterations);
  return result;
}
