// cg-solve: solve A x = b with conjugate gradient on an OpenCL device.
// Exit status: 0 converged, 1 not converged, 2 usage or input error, 3 OpenCL or device
// error, 130 interrupted. Outputs are written whole (temporary + rename) or not at all.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <future>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli_options.hpp"
#include "failures.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/io/atomic_file.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/eigen/reference_solve.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "clcg/solver/version.hpp"
#include "inputs.hpp"
#include "report.hpp"
#ifdef CLCG_HAVE_MPI
#include "clcg/solver/distributed/launch.hpp"
#include "distributed_run.hpp"
#endif

namespace {

using namespace cg_solve;
namespace solver = clcg::solver;

// Progress on stderr while a solve runs, only when stderr is a terminal: the first update
// after about a second, then at most 4 a second, each overwriting the last ('\r'); the line
// is cleared when the solve ends (or unwinds), before anything else is printed.
class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  static bool wanted(const CliOptions& cli) { return !cli.quiet && isatty(STDERR_FILENO); }

  void update(std::size_t iteration, double residual) {
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    char line[128];
    const int length = std::snprintf(line, sizeof line, "cg-solve: iteration %zu, relative residual %.3e, %.1f s",
                                     iteration, residual, std::chrono::duration<double>(now - start_).count());
    if (length <= 0) return;
    const std::size_t shown = std::min<std::size_t>(std::size_t(length), sizeof line - 1);
    std::fprintf(stderr, "\r%s%*s", line, int(width_ > shown ? width_ - shown : 0), "");
    std::fflush(stderr);
    width_ = std::max(width_, shown);
  }
  void clear() {
    if (width_ == 0) return;
    std::fprintf(stderr, "\r%*s\r", int(width_), "");
    std::fflush(stderr);
    width_ = 0;
  }
  ~Progress() { clear(); }

 private:
  Clock::time_point start_ = Clock::now(), last_ = {};
  std::size_t width_ = 0;  // the longest line shown so far, 0 while nothing is shown
};

int list_devices(const CliOptions& cli) {
  const auto devices = reading_environment([] { return clcg::cl::list_devices(); });
  if (devices.empty()) {
    std::cerr << "cg-solve: no OpenCL platform or device found (is an ICD such as pocl-opencl-icd installed?)\n";
    return exit_device;
  }
  const clcg::cl::DeviceEntry* selected = nullptr;
  try {
    selected = &clcg::cl::select_device(devices, clcg::cl::DeviceSelector::parse(cli.device, cli.platform));
  } catch (const clcg::cl::DeviceNotFound&) {
    // Still list what is there; nothing is marked.
  }
  std::cout << clcg::cl::format_device_list(devices, selected);
  return 0;
}

int run(const CliOptions& cli, WallClock::time_point process_start) {
  WallTime time{.process_start = process_start, .generated = !cli.generate.empty()};
  // The device opens on a thread of its own while A is read (NVIDIA's driver takes 0.2-0.4 s to
  // list its devices and make a context); device_open is the wait for it that is left after.
  std::future<clcg::cl::Env> opening = std::async(std::launch::async, [selector = device_selector(cli)] {
    return reading_environment([&] { return clcg::cl::Env::create(selector); });
  });
  solver::MatrixMarketInfo info{};
  const solver::HostMatrix a = timed(time.read, [&] { return read_problem(cli, info); });
  if (!cli.partition.empty()) throw UsageError("--partition splits the rows over MPI ranks: run cg-solve under mpirun");
  const bool b_is_a_ones = cli.rhs.empty();
  const Eigen::VectorXd b = timed(time.read, [&] {
    return b_is_a_ones ? solver::times_ones(a) : read_vector_option(cli.rhs, a.rows(), "right-hand side");
  });
  const Eigen::VectorXd x0 = timed(time.read, [&] { return read_vector_option(cli.x0, a.rows(), "initial guess"); });
  solver::AmgOptions amg = cli.precond_options.amg;
  timed(time.read, [&] { clcg::apps::read_near_nullspace(cli.near_nullspace, std::size_t(a.rows()), amg); return 0; });
  check_outputs(cli);
  if (interrupted) throw Interrupted{};

  const clcg::cl::Env env = timed(time.device_open, [&] { return opening.get(); });
  solver::require_precision(env.info(), cli.precision);  // no fp64: exit 3, suggesting --precision float

  solver::Settings settings;
  settings.tolerance = cli.tolerance;
  settings.max_iterations = static_cast<std::int64_t>(
      cli.max_iterations.value_or(default_max_iterations(static_cast<std::size_t>(a.rows()))));
  settings.preconditioner = cli.preconditioner;
  settings.precond_options = cli.precond_options;
  settings.precond_options.amg = amg;
  settings.precision = cli.precision;
  settings.record_history = !cli.history.empty();
  settings.should_stop = [] { return interrupted != 0; };  // SIGINT / SIGTERM: checked once per step
  std::optional<Progress> progress;
  if (Progress::wanted(cli)) {
    progress.emplace();
    settings.on_iteration = [&progress](std::size_t k, double residual) { progress->update(k, residual); };
  }
  try {
    settings.variant = solver::parse_cg_variant(cli.variant);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--variant: ") + e.what());
  }
  settings.spmv = cli.spmv;
  RunReport report;
  report.options = &cli;
  report.matrix_info = info;
  report.rows = a.rows();
  report.cols = a.cols();
  report.nnz = a.nonZeros();
  report.device = env.info();
  report.max_iterations = settings.iteration_limit(static_cast<std::size_t>(a.rows()));

  const double built_before = env.programs().build_seconds();
  const solver::HostSolution solution = solver::solve(env, a, b, settings, x0.size() ? &x0 : nullptr);
  time.build = env.programs().build_seconds() - built_before;
  if (progress) progress->clear();
  if (solution.info.status == solver::Status::interrupted) throw Interrupted{solution.info.message};
  if (interrupted) throw Interrupted{};
  report.result = solution.info;
  report.method = solution.plan.method;  // what `auto` resolved to, and why
  report.factor_on_device = solution.plan.factor_on_device;
  report.plan_reason = solution.plan.reason;
  report.variant = solution.plan.settings.variant;
  report.preconditioner = solution.plan.settings.preconditioner;
  report.preconditioner_report = solution.preconditioner;
  time.setup = solution.preconditioner.setup_seconds;  // the builds left out (they are time.build)
  time.solve = solution.info.seconds;
  time.upload = solution.upload_seconds;  // A, b and x0, timed where they are copied
  if (b_is_a_ones && a.rows() > 0)
    report.error_vs_ones = (solution.x - Eigen::VectorXd::Ones(a.rows())).norm() / std::sqrt(double(a.rows()));

  std::vector<std::pair<std::size_t, double>> eigen_history;
  if (cli.reference) {
    const WallClock::time_point reference_start = WallClock::now();
    report.reference = solver::eigen_reference_solve(a, b, x0, cli.tolerance, report.max_iterations, report.preconditioner);
    const double ref_norm = report.reference->x.norm();
    const double difference = (solution.x - report.reference->x).norm();
    report.difference_vs_reference = ref_norm > 0 ? difference / ref_norm : difference;
    if (!cli.history.empty())
      eigen_history = solver::eigen_reference_history(a, b, x0, report.reference->iterations + 1, report.preconditioner);
    time.reference = WallTime::seconds_since(reference_start);
  }
  if (interrupted) throw Interrupted{};
  // x is written when it solves the system, or when the user asks for the last iterate: a rerun
  // that breaks down must not replace a good solution. The history is always written (it is
  // what explains a failure).
  report.output_written = !cli.output.empty() && (solution.info.converged() || cli.output_unconverged);
  try {
    timed(time.write, [&] {
      if (!cli.history.empty()) write_file(cli.history, history_csv(solution.info, eigen_history));
      if (report.output_written) solver::write_vector_market(cli.output, solution.x);
    });
  } catch (const std::runtime_error& e) {
    // Disk full, I/O error, ...: the temporary is gone and the target untouched (AtomicFile).
    throw OutputError(e.what());
  }
  const clcg::cl::BinaryCache& disk = env.programs().disk();
  report.programs = {env.programs().builds(), env.programs().loaded_from_disk(),
                     disk.serves(env.device()) ? disk.directory().string() : ""};
  report.time = time;
  report.time.finish();
  if (cli.json) {
    std::cout << to_json(report).dump(2) << std::endl;
    if (!std::cout) throw solver::InputError("standard output", 0, "writing the JSON failed");
  }
  std::cerr << (cli.quiet ? failure_reason(report) : human_summary(report));
  return report.result.converged() ? exit_converged : exit_not_converged;
}

int fail(const std::string& message, int code) {
  std::cerr << "cg-solve: " << message << "\n";
  return code;
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// The device opens on a thread of its own (run, run_ranks), and PoCL's LLVM gives the thread
// that loads it a signal stack of its own; AddressSanitizer, which sets one on every thread,
// then fails to free it when that thread ends (the run exits 1). Its own stacks off, the
// sanitized cg-solve runs as the plain one; a stack overflow is still a crash.
extern "C" const char* __asan_default_options() { return "use_sigaltstack=0"; }
#endif

int main(int argc, char** argv) {
  const WallClock::time_point process_start = WallClock::now();  // the wall time's start
#ifdef CLCG_HAVE_MPI
  if (clcg::distributed::launched_by_mpi()) return run_distributed(argc, argv, process_start);  // distributed_run.cpp
#endif
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  CliOptions cli;
  try {
    cli = parse_command_line(argc, argv);
    if (cli.help) return 0;  // printed by the parser
    if (cli.version) {
      std::cout << "cg-solve " << clcg::version() << "\n";
      return 0;
    }
    if (cli.list_devices) return list_devices(cli);
    return run(cli, process_start);
  } catch (...) {
    const Failure failure = describe_failure(std::current_exception(), cli);
    return fail(failure.message, failure.code);
  }
}
