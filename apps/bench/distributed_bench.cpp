// cg-bench under mpirun: the distributed CG's time per step on 3D/2D Poisson problems built
// rank-locally, for strong scaling (--poisson3d N: the N^3 grid split over the ranks) and weak
// scaling (--weak: an N^3 block per rank, the grid N x N x N*ranks), one row per (problem,
// variant), printed by rank 0 and written as CSV/JSON:
//
//   mpirun -np 2 cg-bench --poisson3d 256,512 [--weak] [--variants fused,single] [--precond jacobi|chebyshev|amg|none]
//                         [--iterations 200] [--repeats 3] [--solve] [--update] [--csv rows.csv] [--json rows.json]
//
// Method: per problem, one warm-up solve, then `repeats` fixed-work solves of `iterations` steps
// (a tolerance that cannot be met), each timed as the slowest rank's steps (StepTimes::steps:
// without r0, z0 and the true residual, as the one-device cg-bench); the median. The JSON adds
// the whole solve's time a step (solve_ms_per_iteration: SolveInfo::seconds, from b on the
// device to the true residual; b's upload and x's read back are StepTimes::transfer). The
// floor is the slowest rank's bytes per step (DistributedCg::bytes_per_step) over the smallest
// device-to-device copy bandwidth of the ranks, measured in the same run. Halo and allreduce
// times are the slowest rank's, per step. --solve adds one solve to 1e-8 (time, steps, true
// residual), set-up (generation + upload) reported beside it. --update times new values
// (DistributedCg::update_values with the problem's rows made again, not timed; AMG keeps its
// aggregates) against the solver's own set-up (generation left out; JSON update_s, solver_setup_s),
// then, with --solve, solves to 1e-8 again (update_solve_iterations).
#include "distributed_bench.hpp"

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/distributed/distributed_amg.hpp"
#include "clcg/solver/distributed/distributed_cg.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "common/app_main.hpp"
#include "common/bench_timing.hpp"
#include "common/command_line.hpp"
#include "copy_bandwidth.hpp"

namespace {

namespace dist = clcg::distributed;
namespace solver = clcg::solver;
namespace po = clcg::apps::po;
using clcg::apps::CountList;
using clcg::apps::UsageError;

struct Args {
  std::vector<std::uint64_t> poisson3d, poisson2d;
  bool weak = false, solve = false, update = false;
  int iterations = 200, repeats = 3;
  std::vector<solver::CgVariant> variants{solver::CgVariant::fused, solver::CgVariant::single};
  solver::Preconditioner precond = solver::Preconditioner::jacobi;
  std::string device = "auto", platform, csv, json;
};

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("cg-bench", "mpirun -np N cg-bench --poisson3d N [options]",
                              "cg-bench under mpirun: the distributed CG's time per step on Poisson problems built\n"
                              "rank-locally, next to the per-rank bandwidth floor, with halo and allreduce times.");
  cli.add()
      ("poisson3d", po::value<CountList>(), "3D Poisson grid sizes N, comma-separated (N^3 rows; --weak: N^3 per rank)")
      ("poisson2d", po::value<CountList>(), "2D Poisson grid sizes N (N^2 rows; --weak: N^2 per rank)")
      ("weak", "weak scaling: each size is one rank's block, the grid grows with the ranks")
      ("iterations", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{200}, "200"),
       "fixed-work steps per timed solve (1 .. 1000000)")
      ("repeats", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{3}, "3"),
       "timed solves, median taken (1 .. 1000)")
      ("variants", po::value<clcg::apps::NameList>(), "fused, single (default: both)")
      ("precond", po::value<std::string>()->default_value("jacobi"), "jacobi | chebyshev | amg | none (Chebyshev of degree 4; AMG with its defaults)")
      ("solve", "also solve to 1e-8 once per problem and variant")
      ("update", "also time new values on the same rows (update_values; AMG keeps its aggregates)")
      ("csv", po::value<std::string>(), "write the rows as CSV here (rank 0)")
      ("json", po::value<std::string>(), "write the rows as JSON here (rank 0)");
  cli.add_device_options();
  return cli;
}

Args args_from(const po::variables_map& vm) {
  Args a;
  if (vm.count("poisson3d")) a.poisson3d = vm["poisson3d"].as<CountList>().values;
  if (vm.count("poisson2d")) a.poisson2d = vm["poisson2d"].as<CountList>().values;
  if (a.poisson3d.empty() && a.poisson2d.empty()) throw UsageError("name a problem: --poisson3d N or --poisson2d N");
  for (auto n : a.poisson3d)
    if (n < 1 || n > 4096) throw UsageError("--poisson3d sizes must be 1 .. 4096");
  for (auto n : a.poisson2d)
    if (n < 1 || n > 262144) throw UsageError("--poisson2d sizes must be 1 .. 262144");
  a.weak = vm.count("weak") > 0;
  a.solve = vm.count("solve") > 0;
  a.update = vm.count("update") > 0;
  a.iterations = int(clcg::apps::count_in_range(vm, "iterations", 1, 1000000));
  a.repeats = int(clcg::apps::count_in_range(vm, "repeats", 1, 1000));
  if (vm.count("variants")) {
    a.variants.clear();
    for (const auto& name : vm["variants"].as<clcg::apps::NameList>().values) {
      if (name == "fused") a.variants.push_back(solver::CgVariant::fused);
      else if (name == "single") a.variants.push_back(solver::CgVariant::single);
      else throw UsageError("--variants: the distributed solver runs fused and single, not '" + name + "'");
    }
  }
  const std::string precond = vm["precond"].as<std::string>();
  if (precond != "jacobi" && precond != "chebyshev" && precond != "amg" && precond != "none")
    throw UsageError("--precond: jacobi, chebyshev, amg or none, not '" + precond + "'");
  a.precond = solver::parse_preconditioner(precond);
  a.device = vm["device"].as<std::string>();
  a.platform = vm["platform"].as<std::string>();
  if (vm.count("csv")) a.csv = vm["csv"].as<std::string>();
  if (vm.count("json")) a.json = vm["json"].as<std::string>();
  return a;
}

double max_over_ranks(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}
double min_over_ranks(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return value;
}

struct Problem {
  std::string name;
  int dimensions;
  std::int64_t nx, ny, nz;
};

int run(const Args& args) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const clcg::cl::Env env =
      clcg::cl::Env::create(dist::rank_device(dist::node_rank(MPI_COMM_WORLD), clcg::cl::DeviceSelector::parse(args.device, args.platform)));
  const double bandwidth = min_over_ranks(clcg::apps::copy_bandwidth(env));
  if (rank == 0)
    std::printf("%d ranks, rank 0 on %s, copy bandwidth %.0f GB/s (smallest of the ranks)\n", ranks,
                env.info().name.c_str(), bandwidth / 1e9);

  std::vector<Problem> problems;
  const std::int64_t stack = args.weak ? ranks : 1;
  for (auto n : args.poisson3d)
    problems.push_back({"poisson3d_" + std::to_string(n) + (args.weak ? "_per_rank" : ""), 3, std::int64_t(n),
                        std::int64_t(n), std::int64_t(n) * stack});
  for (auto n : args.poisson2d)
    problems.push_back({"poisson2d_" + std::to_string(n) + (args.weak ? "_per_rank" : ""), 2, std::int64_t(n),
                        std::int64_t(n) * stack, 1});

  nlohmann::json rows = nlohmann::json::array();
  std::string csv = "problem,scaling,ranks,rows,nnz,variant,ms_per_iteration,floor_ms,of_floor,bytes_per_step_per_rank,"
                    "halo_bytes_per_exchange,halo_ms_per_iteration,allreduce_ms_per_iteration,setup_s,solve_iterations,"
                    "solve_s,solve_true_residual\n";
  if (rank == 0)
    std::printf("%-24s %5s %6s %12s  %9s %9s %6s  %9s %9s %12s  %8s\n", "problem", "ranks", "var", "rows", "ms/iter",
                "floor ms", "x floor", "halo ms", "allred ms", "halo B/exch", "setup s");
  for (const Problem& p : problems) {
    const std::int64_t n = p.nx * p.ny * p.nz;
    const dist::Partition partition = dist::uniform_partition(n, ranks);
    for (solver::CgVariant variant : args.variants) {
      const auto start = std::chrono::steady_clock::now();
      solver::Settings settings;
      settings.variant = variant;
      settings.preconditioner = args.precond;
      settings.tolerance = 1e-300;  // fixed work: never met
      settings.max_iterations = args.iterations;
      const std::int64_t begin = partition.begin(rank);
      dist::LocalRows local = dist::poisson_rows(p.dimensions, p.nx, p.ny, p.nz, begin, begin + partition.size(rank));
      const std::vector<double> b = local.row_sums();
      dist::DistributedCg cg(MPI_COMM_WORLD, env, partition, std::move(local), solver::ElementType::f64, settings);
      const double setup = max_over_ranks(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::vector<double> x;
      cg.solve(b, x, false);  // warm-up
      std::vector<double> samples, whole;  // the steps; the whole solve (r0, z0 and the true residual too)
      for (int r = 0; r < args.repeats; ++r) {
        const solver::SolveInfo info = cg.solve(b, x, false);
        const double per = 1e3 / double(std::max<std::size_t>(1, info.iterations));
        samples.push_back(max_over_ranks(cg.times().steps) * per);
        whole.push_back(max_over_ranks(info.seconds) * per);
      }
      const double ms = clcg::apps::median(samples);
      const dist::StepTimes t = cg.times();  // the last repeat's
      const double steps = double(args.iterations);
      const double bytes = max_over_ranks(double(cg.bytes_per_step()));
      const double floor_ms = bytes / bandwidth * 1e3;
      const double halo_ms = max_over_ranks(t.halo) * 1e3 / steps;
      const double allreduce_ms = max_over_ranks(t.allreduce) * 1e3 / steps;
      const double halo_bytes = max_over_ranks(t.exchanges ? double(t.halo_bytes) / double(t.exchanges) : 0.0);
      std::int64_t nnz = cg.nnz();
      MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      nlohmann::json row = {{"problem", p.name}, {"scaling", args.weak ? "weak" : "strong"}, {"ranks", ranks},
                            {"rows", n}, {"nnz", nnz}, {"variant", std::string(solver::cg_variant_name(variant))},
                            {"ms_per_iteration", ms}, {"floor_ms", floor_ms}, {"of_floor", ms / floor_ms},
                            {"bytes_per_step_per_rank", bytes}, {"halo_bytes_per_exchange", halo_bytes},
                            {"halo_ms_per_iteration", halo_ms}, {"allreduce_ms_per_iteration", allreduce_ms},
                            {"setup_s", setup}, {"copy_gbps", bandwidth / 1e9}, {"device", env.info().name},
                            {"precond", std::string(solver::preconditioner_name(args.precond))},
                            {"row_layout", cg.row_layout()},
                            {"partials_ms_per_iteration", max_over_ranks(t.partials) * 1e3 / steps},
                            {"solve_ms_per_iteration", clcg::apps::median(whole)}};
      if (const dist::DistributedAmg* amg = cg.amg()) {  // set-up phases (rank 0's), the levels
        row["amg_level_rows"] = amg->level_rows();
        row["amg_precision"] = std::string(clcg::reduction::type_name(amg->precision()));
        for (const auto& [name, seconds] : amg->phases()) row["amg_setup_s"][name] = seconds;
      }
      if (args.solve) {
        cg.settings().tolerance = 1e-8;
        cg.settings().max_iterations = 100000;
        const solver::SolveInfo info = cg.solve(b, x, false);
        row["solve_iterations"] = info.iterations;
        row["solve_s"] = max_over_ranks(info.seconds);
        row["solve_true_residual"] = info.true_residual;
        row["solve_status"] = std::string(solver::status_name(info.status));
      }
      if (args.update) {
        row["solver_setup_s"] = max_over_ranks(cg.setup_seconds() + (cg.amg() ? cg.amg()->setup_seconds() : 0.0));
        cg.update_values(dist::poisson_rows(p.dimensions, p.nx, p.ny, p.nz, begin, begin + partition.size(rank)));
        row["update_s"] = max_over_ranks(cg.update_seconds());
        if (args.solve) row["update_solve_iterations"] = cg.solve(b, x, false).iterations;
      }
      if (rank == 0) {
        std::printf("%-24s %5d %6s %12lld  %9.3f %9.3f %6.2f  %9.3f %9.3f %12.0f  %8.2f", p.name.c_str(), ranks,
                    std::string(solver::cg_variant_name(variant)).c_str(), (long long)n, ms, floor_ms, ms / floor_ms,
                    halo_ms, allreduce_ms, halo_bytes, setup);
        if (args.solve)
          std::printf("   solve: %zu steps, %.2f s, true residual %.2e", row["solve_iterations"].get<std::size_t>(),
                      row["solve_s"].get<double>(), row["solve_true_residual"].get<double>());
        if (args.update)
          std::printf("   new values: %.3f s (set-up %.3f s)", row["update_s"].get<double>(),
                      row["solver_setup_s"].get<double>());
        std::printf("\n");
        std::fflush(stdout);
        char line[512], solved[128] = ",,";
        if (args.solve)
          std::snprintf(solved, sizeof solved, "%zu,%.6g,%.3e", row["solve_iterations"].get<std::size_t>(),
                        row["solve_s"].get<double>(), row["solve_true_residual"].get<double>());
        std::snprintf(line, sizeof line, "%s,%s,%d,%lld,%lld,%s,%.6g,%.6g,%.4g,%.6g,%.6g,%.6g,%.6g,%.4g,%s\n",
                      p.name.c_str(), args.weak ? "weak" : "strong", ranks, (long long)n, (long long)nnz,
                      std::string(solver::cg_variant_name(variant)).c_str(), ms, floor_ms, ms / floor_ms, bytes,
                      halo_bytes, halo_ms, allreduce_ms, setup, solved);
        csv += line;
        rows.push_back(row);
      }
    }
  }
  if (rank == 0) {
    if (!args.csv.empty() && !(std::ofstream(args.csv) << csv)) throw std::runtime_error("cannot write " + args.csv);
    if (!args.json.empty() && !(std::ofstream(args.json) << rows.dump(2) << "\n"))
      throw std::runtime_error("cannot write " + args.json);
  }
  return 0;
}

}  // namespace

int run_distributed_bench(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  dist::share_host_threads(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0 && !std::freopen("/dev/null", "w", stdout)) return 3;
  // Every rank parses the same command line, so a usage error (exit 2) is every rank's; any
  // other failure may be one rank's while the others wait in MPI: it ends the job (MPI_Abort).
  const int code = clcg::apps::app_main(command_line(), argc, argv, [](const po::variables_map& vm) {
    return run(args_from(vm));
  });
  if (code != 0 && code != clcg::apps::exit_usage) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  return code;
}
