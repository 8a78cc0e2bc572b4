#include "cg_time_to_solution.hpp"

#include <Eigen/Core>

#include <chrono>

#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/direct_solve.hpp"
#include "clcg/solver/krylov/direct_watch.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/precond/cholesky.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "common/bench_timing.hpp"

namespace {

namespace solver = clcg::solver;
using clcg::reduction::ElementType;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

}  // namespace

std::vector<TimeToSolutionRow> time_to_solution(const clcg::cl::Env& profiled, const std::string& name,
                                                const solver::HostMatrix& a,
                                                const std::vector<solver::Preconditioner>& preconds,
                                                const solver::PreconditionerOptions& options, int repeats) {
  // The timed repeats run on a queue of their own without profiling, as cg-solve's: profiling
  // every command cost AMG's set-up 2-8 ms on the H100 (256^3: 81-85 ms against cg-solve's
  // 74-78). The kernel table comes from one more set-up on the profiling queue.
  profiled.queue().finish();
  const clcg::cl::Env env = profiled.with_queue(profiled.make_queue(false));
  const solver::HostCsr host = solver::to_host_csr(a);
  const solver::CsrView view = host;
  const std::size_t n = std::size_t(a.rows());
  const Eigen::VectorXd b = a * Eigen::VectorXd::Ones(a.cols());
  const solver::DeviceCsrMatrix device_a(env, host, ElementType::f64);
  ::cl::Buffer b_device = solver::make_vector(env, ElementType::f64, n), x = solver::make_vector(env, ElementType::f64, n);
  solver::upload_vector(env, std::vector<double>(b.data(), b.data() + b.size()), ElementType::f64, b_device);
  std::vector<TimeToSolutionRow> rows;
  for (solver::Preconditioner p : preconds) {
    TimeToSolutionRow row;
    row.matrix = name;
    row.precond = std::string(solver::preconditioner_name(p));
    row.rows = a.rows();
    row.nnz = a.nonZeros();
    std::vector<double> setup, solve, update;
    solver::Settings settings;
    settings.variant = solver::CgVariant::automatic;
    settings.preconditioner = p;
    settings.precond_options = options;
    settings.max_iterations = 100000;
    std::vector<double> x_host(n);
    solver::Preconditioner planned = solver::Preconditioner::none;  // the iterative method's (none: direct)
    solver::PreconditionerOptions planned_options = options;        // with what auto found (a block size)
    for (int r = 0; r <= repeats; ++r) {  // repeat 0 warms up (program builds, caches)
      env.queue().finish();
      auto start = Clock::now();
      // auto: the planner decides with the host matrix at hand, as cg-solve's does; its
      // symbolic analysis counts in the set-up.
      const solver::Plan plan = solver::plan_solve(env.info(), settings, n, std::size_t(a.nonZeros()), &view);
      std::shared_ptr<solver::DevicePreconditioner> m;
      std::shared_ptr<solver::CholeskyPreconditioner> factor;
      if (plan.method == solver::Method::direct) {
        factor = std::make_shared<solver::CholeskyPreconditioner>(env, host, ElementType::f64, plan.analysis,
                                                                  plan.factor_on_device);
        m = factor;
      } else {
        m = solver::make_preconditioner(env, device_a, &host, plan.settings.preconditioner, plan.settings.precond_options);
      }
      if (!factor) env.queue().finish();  // the direct method's set-up is host work only: no device round trip
      planned = factor ? solver::Preconditioner::none : plan.settings.preconditioner;
      planned_options = plan.settings.precond_options;
      const double setup_ms = ms_since(start);
      std::unique_ptr<solver::CgMethod> cg;
      if (!factor) cg = solver::make_cg_solver(env, device_a, plan.settings, m);
      env.queue().finish();
      start = Clock::now();
      solver::SolveInfo info;
      std::optional<solver::Plan> handed_over;  // a watched CG's hand-over to a factor (krylov/direct_watch.hpp)
      if (factor) {
        info = solver::solve_directly(host, factor->factor(), {b.data(), n}, x_host, false, plan.settings);
      } else if (!plan.watch_for_direct) {
        info = cg->solve(b_device, x, false, true);
      } else {
        solver::WatchedSolve watched = solver::solve_watched(env.info(), plan, view, *cg, b_device, x, false, true);
        info = watched.cg;
        handed_over = std::move(watched.direct);
        if (handed_over) {  // the factor from CG's x, in the solve's time: what a user waits
          env.queue().enqueueReadBuffer(x, CL_TRUE, 0, n * sizeof(double), x_host.data());
          const solver::CholeskyPreconditioner direct(env, host, ElementType::f64, handed_over->analysis,
                                                      handed_over->factor_on_device);
          info = solver::solve_directly(host, direct.factor(), {b.data(), n}, x_host, true, handed_over->settings);
        }
      }
      const double solve_ms = ms_since(start);
      if (r == 0) {
        row.variant = factor ? "direct" : handed_over ? "cg+direct" : std::string(solver::cg_variant_name(plan.settings.variant));
        if (p == solver::Preconditioner::automatic)
          row.precond += " (" + std::string(solver::preconditioner_name(plan.settings.preconditioner)) + ")";
        row.precision = m ? m->report().precision : "double";
        if (row.precision.empty()) row.precision = "double";
        continue;
      }
      if (m) {  // the set-up phases of the last repeat (the warm-up's include program builds)
        row.level_rows = m->report().level_rows;
        row.phases.clear();
        for (const auto& [phase, seconds] : m->report().phases) row.phases.emplace_back(phase, 1e3 * seconds);
      }
      if (!factor) {
        env.queue().finish();
        start = Clock::now();
        m = solver::refresh_preconditioner(env, m, device_a, &host, plan.settings.preconditioner,
                                           plan.settings.precond_options);
        env.queue().finish();
        update.push_back(ms_since(start));
      }
      setup.push_back(setup_ms);
      solve.push_back(solve_ms);
      row.iterations = info.iterations;
      row.true_residual = info.true_residual;
      row.converged = info.converged();
    }
    if (const auto m = solver::make_preconditioner(profiled, device_a, &host, planned, planned_options))
      row.kernels = m->report().kernels;
    row.setup_ms = clcg::apps::median(setup);
    row.solve_ms = clcg::apps::median(solve);
    row.update_ms = update.empty() ? 0.0 : clcg::apps::median(update);
    row.total_ms = row.setup_ms + row.solve_ms;
    rows.push_back(row);
  }
  return rows;
}
