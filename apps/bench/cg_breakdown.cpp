#include "cg_breakdown.hpp"

#include <algorithm>
#include <chrono>
#include <functional>

#include "common/bench_timing.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/krylov/fused_ops.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace {

namespace solver = clcg::solver;
using clcg::reduction::ElementType;
constexpr int launches = 20, repeats = 5;

using clcg::apps::median;

// Device microseconds per call of `op`, from the profiling timestamps of two markers.
double device_us(const clcg::cl::Env& env, const std::function<void()>& op) {
  op();  // warm-up
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    cl::Event before, after;
    env.queue().enqueueMarkerWithWaitList(nullptr, &before);
    for (int k = 0; k < launches; ++k) op();
    env.queue().enqueueMarkerWithWaitList(nullptr, &after);
    env.queue().finish();  // (waiting on the marker event alone hangs PoCL 3.1)
    const double ns = double(after.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                             before.getProfilingInfo<CL_PROFILING_COMMAND_END>());
    samples.push_back(ns * 1e-3 / launches);
  }
  return median(samples);
}

// Host microseconds per call of `op` (which blocks), as a solver waits for it.
double host_us(const std::function<void()>& op) {
  op();
  std::vector<double> samples;
  for (int r = 0; r < repeats * launches; ++r) {
    const auto start = std::chrono::steady_clock::now();
    op();
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return median(samples);
}

}  // namespace

std::vector<BreakdownRow> cg_breakdown(const clcg::cl::Env& env, const std::string& name, const solver::HostMatrix& a) {
  const std::size_t n = std::size_t(a.rows());
  const double rows = double(n), nnz = double(a.nonZeros()), s = 8;
  const auto device_a = solver::DeviceCsrMatrix::upload(env, a, ElementType::f64);
  solver::Spmv spmv(env, device_a);
  solver::VectorOps ops(env, ElementType::f64);
  solver::FusedOps fused(env, spmv);
  clcg::reduction::Reducer dot(env, clcg::reduction::Op::dot, ElementType::f64);
  std::vector<cl::Buffer> v;
  for (int i = 0; i < 8; ++i) {
    v.push_back(solver::make_vector(env, ElementType::f64, n));
    ops.fill(n, 1.0 / (i + 1), v.back());
  }
  cl::Buffer &p = v[0], &q = v[1], &x = v[2], &r = v[3], &z = v[4], &w = v[5], &nv = v[6], &t = v[7];
  const double spmv_bytes = 12 * nnz + 4 * (rows + 1) + 2 * s * rows;  // x gathered once, y written
  const std::string layout = spmv.kernel() == solver::SpmvKernel::vector
                                 ? "vector/" + std::to_string(spmv.vector_size())
                                 : std::string(solver::spmv_kernel_name(spmv.kernel()));
  std::vector<BreakdownRow> rows_out{
      {name, "spmv " + layout, device_us(env, [&] { spmv.enqueue(p, q); }), spmv_bytes},
      {name, "fused pass 1: p = z + beta p', q = A p, x += a p', p.q partials",
       device_us(env, [&] { fused.spmv_step(0.5, 1e-3, {&z, &w, &p, &q, &x}); }), spmv_bytes + 4 * s * rows},
      {name, "dot kernel (reduction)", device_us(env, [&] { dot.enqueue(env.queue(), p, 0, &q, 0, n); }), 2 * s * rows},
      {name, "update x, r (textbook)", device_us(env, [&] { ops.cg_update_xr(n, 1e-3, p, q, x, r); }), 6 * s * rows},
      {name, "fused pass 2: r -= a q, r.r partials", device_us(env, [&] { fused.update_r(1e-3, q, r); }),
       3 * s * rows},
      {name, "p = r + beta p", device_us(env, [&] { ops.xpay(n, 0.5, r, p); }), 3 * s * rows},
      {name, "pipelined update (no preconditioner)",
       device_us(env, [&] { fused.pipelined_update(1e-3, 0.5, {&nv, &z, &z, &t, &p, &x, &r, &r, &w, &w, nullptr}); }),
       13 * s * rows},
      {name, "round trip: dot run() (host)", host_us([&] { dot.run(p, 0, q, 0, n); }), 2 * s * rows},
      {name, "round trip: fused partial read (host)", host_us([&] { fused.read(); }), 0},
  };
  // Where a host sync's time goes, and the single-reduction step.
  const solver::FusedOps::SingleVectors single{nullptr, &r, &w, &t, &z, &nv, &q, &p, &x};
  rows_out.push_back({name, "single step (Chronopoulos-Gear, one pass)",
                      device_us(env, [&] { fused.single_step(1e-3, 0.5, single); }), spmv_bytes + 8 * s * rows});
  rows_out.push_back({name, "host: enqueue single step, no wait", host_us([&] {
                        fused.single_step(1e-3, 0.5, single);
                      }),
                      0});
  env.queue().finish();
  rows_out.push_back({name, "host: finish() on an idle queue", host_us([&] { env.queue().finish(); }), 0});
  rows_out.push_back({name, "host: 1-element kernel + finish() (launch floor)", host_us([&] {
                        ops.fill(1, 0.0, t);
                        env.queue().finish();
                      }),
                      0});
  rows_out.push_back({name, "round trip: single step + read (host)", host_us([&] {
                        fused.single_step(1e-3, 0.5, single);
                        fused.read();
                      }),
                      0});
  // Launch-shape tuning: the fused passes at other group counts, and pass 1 on CSR scalar.
  for (std::size_t per_unit : {4, 16, 32}) {
    solver::FusedOps other(env, spmv, per_unit);
    const std::string groups = " [" + std::to_string(per_unit) + " groups/CU]";
    rows_out.push_back({name, "fused pass 1" + groups,
                        device_us(env, [&] { other.spmv_step(0.5, 1e-3, {&z, &w, &p, &q, &x}); }),
                        spmv_bytes + 4 * s * rows});
    rows_out.push_back({name, "fused pass 2" + groups, device_us(env, [&] { other.update_r(1e-3, q, r); }),
                        3 * s * rows});
  }
  if (spmv.kernel() != solver::SpmvKernel::scalar) {
    solver::Spmv scalar(env, device_a, solver::SpmvKernel::scalar);
    solver::FusedOps on_csr(env, scalar);
    rows_out.push_back({name, "fused pass 1 [csr scalar]",
                        device_us(env, [&] { on_csr.spmv_step(0.5, 1e-3, {&z, &w, &p, &q, &x}); }),
                        spmv_bytes + 4 * s * rows});
  }
  env.queue().finish();
  return rows_out;
}
