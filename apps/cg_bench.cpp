// cg-bench: CG time per iteration on the device next to the memory-bandwidth floor and
// Eigen's ConjugateGradient on the CPU, measured in one run.
//
//   cg-bench [--poisson3d 64,128] [--poisson2d 2048] [--mtx file.mtx ...] [--iterations 200]
//            [--repeats 5] [--eigen-iterations 50] [--device gpu] [--platform NVIDIA]
//            [--csv out.csv] [--json out.json] [--quick]
//
// Fixed-work runs: `iterations` CG steps with a tolerance that cannot be met; the median
// of `repeats` timed solves after one warm-up solve. Then one solve to 1e-8, timed end to
// end. Floors (float64, CSR with 4-byte indices, n rows):
//   textbook 12 nnz + 4 (n + 1) + 112 n bytes per iteration, fused 12 nnz + 4 (n + 1) + 72 n,
// divided by the device-to-device copy bandwidth measured in the same run.
// No Boost: this program is carried to the GPU machine, which has none.
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/conjugate_gradient.hpp"
#include "clcg/solver/csr_matrix.hpp"
#include "clcg/solver/eigen_reference.hpp"
#include "clcg/solver/generators.hpp"
#include "clcg/solver/matrix_market.hpp"
#include "clcg/solver/opencl_backend.hpp"

namespace {

namespace solver = clcg::solver;
using clcg::reduction::ElementType;

struct Args {
  std::vector<int> poisson3d, poisson2d;
  std::vector<std::string> mtx;
  int iterations = 200, repeats = 5, eigen_iterations = 50;
  std::string device = "auto", platform, csv, json;
};

[[noreturn]] void usage(const std::string& message) {
  std::cerr << "cg-bench: " << message << "\n"
            << "usage: cg-bench [--poisson3d N,N..] [--poisson2d N,..] [--mtx FILE]... [--iterations K] [--repeats R]\n"
            << "                [--eigen-iterations K] [--device D] [--platform P] [--csv FILE] [--json FILE] [--quick]\n";
  std::exit(2);
}

int positive(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 1'000'000) usage(option + " needs a positive integer, got '" + text + "'");
  return static_cast<int>(value);
}

std::vector<int> positive_list(const std::string& option, const std::string& text) {
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    values.push_back(positive(option, text.substr(start, comma - start)));
    start = comma + 1;
  }
  return values;
}

Args parse(int argc, char** argv) {
  Args args;
  bool any_problem = false;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(option + " needs a value");
      return argv[++i];
    };
    if (option == "--poisson3d") args.poisson3d = positive_list(option, value()), any_problem = true;
    else if (option == "--poisson2d") args.poisson2d = positive_list(option, value()), any_problem = true;
    else if (option == "--mtx") args.mtx.push_back(value());  // in addition to the Poisson set
    else if (option == "--iterations") args.iterations = positive(option, value());
    else if (option == "--repeats") args.repeats = positive(option, value());
    else if (option == "--eigen-iterations") args.eigen_iterations = positive(option, value());
    else if (option == "--device") args.device = value();
    else if (option == "--platform") args.platform = value();
    else if (option == "--csv") args.csv = value();
    else if (option == "--json") args.json = value();
    else if (option == "--quick") args.poisson3d = {12}, args.poisson2d = {40}, args.iterations = 20, args.repeats = 3,
                                  args.eigen_iterations = 10, any_problem = true;
    else if (option == "--help" || option == "-h") usage("help");
    else usage("unknown option '" + option + "'");
  }
  if (!any_problem) args.poisson3d = {64, 128, 256}, args.poisson2d = {2048};
  return args;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Device-to-device copy bandwidth (bytes read + written per second), median of 10 copies.
double copy_bandwidth(const clcg::cl::Env& env) {
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, env.info().max_allocation_bytes / 4);
  cl::Buffer from(env.context(), CL_MEM_READ_WRITE, bytes), to(env.context(), CL_MEM_READ_WRITE, bytes);
  env.queue().enqueueFillBuffer(from, cl_uchar{1}, 0, bytes);
  std::vector<double> times;
  for (int k = 0; k < 11; ++k) {
    env.queue().finish();
    const auto start = std::chrono::steady_clock::now();
    env.queue().enqueueCopyBuffer(from, to, 0, 0, bytes);
    env.queue().finish();
    if (k > 0) times.push_back(seconds_since(start));
  }
  return 2.0 * static_cast<double>(bytes) / median(times);
}

struct Row {
  std::string matrix;
  long long rows = 0, nnz = 0;
  double ms_per_iteration = 0, eigen_ms_per_iteration = 0, textbook_floor_ms = 0, fused_floor_ms = 0, gbps = 0;
  std::size_t solve_iterations = 0;
  double solve_ms = 0, solve_residual = 0;
  int eigen_threads = 1;
};

Row bench(const clcg::cl::Env& env, const std::string& name, const solver::HostMatrix& a, const Args& args,
          double copy_bytes_per_second) {
  Row row;
  row.matrix = name;
  row.rows = a.rows();
  row.nnz = a.nonZeros();
  const double n = static_cast<double>(a.rows()), nnz = static_cast<double>(a.nonZeros());
  const double textbook_bytes = 12 * nnz + 4 * (n + 1) + 112 * n, fused_bytes = 12 * nnz + 4 * (n + 1) + 72 * n;
  row.textbook_floor_ms = 1e3 * textbook_bytes / copy_bytes_per_second;
  row.fused_floor_ms = 1e3 * fused_bytes / copy_bytes_per_second;

  const Eigen::VectorXd b = a * Eigen::VectorXd::Ones(a.cols());
  const auto device_a = solver::DeviceCsrMatrix::upload(env, a, ElementType::f64);
  cl::Buffer b_device = solver::make_vector(env, ElementType::f64, b.size());
  env.queue().enqueueWriteBuffer(b_device, CL_TRUE, 0, b.size() * sizeof(double), b.data());
  cl::Buffer x_device = solver::make_vector(env, ElementType::f64, b.size());

  // Fixed work: a tolerance no solve meets, so every run does exactly `iterations` steps.
  solver::Settings fixed;
  fixed.tolerance = 1e-300;
  fixed.max_iterations = args.iterations;
  solver::CgSolver cg(env, device_a, fixed);
  cg.solve(b_device, x_device, false, false);  // warm-up: kernels built, caches filled
  std::vector<double> times;
  for (int r = 0; r < args.repeats; ++r) {
    env.queue().finish();
    const auto start = std::chrono::steady_clock::now();
    const auto info = cg.solve(b_device, x_device, false, false);
    env.queue().finish();
    times.push_back(seconds_since(start) / static_cast<double>(std::max<std::size_t>(1, info.iterations)));
  }
  row.ms_per_iteration = 1e3 * median(times);
  row.gbps = textbook_bytes / (row.ms_per_iteration * 1e-3) / 1e9;

  // To 1e-8, end to end (device work and the partial read-backs; the upload excluded).
  cg.settings().tolerance = 1e-8;
  cg.settings().max_iterations = 100000;
  env.queue().finish();
  const auto start = std::chrono::steady_clock::now();
  const auto info = cg.solve(b_device, x_device, false, true);
  row.solve_ms = 1e3 * seconds_since(start);
  row.solve_iterations = info.iterations;
  row.solve_residual = info.true_residual;

  // Eigen on all cores, same matrix, fixed work (fewer steps: it is ~100x slower).
  const auto eigen = solver::eigen_reference_solve(a, b, {}, 1e-300, static_cast<std::size_t>(args.eigen_iterations),
                                                   solver::Preconditioner::none);
  row.eigen_ms_per_iteration = 1e3 * eigen.seconds / static_cast<double>(std::max<std::size_t>(1, eigen.iterations));
  row.eigen_threads = eigen.threads;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  try {
    const clcg::cl::Env env = clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(args.device, args.platform));
    const double copy = copy_bandwidth(env);
    std::printf("device %s (%s), copy bandwidth %.0f GB/s\n", env.info().name.c_str(), env.info().platform_name.c_str(),
                copy / 1e9);
    std::vector<Row> rows;
    for (int n : args.poisson3d)
      rows.push_back(bench(env, "poisson3d_" + std::to_string(n), solver::poisson_3d(n, n, n), args, copy));
    for (int n : args.poisson2d)
      rows.push_back(bench(env, "poisson2d_" + std::to_string(n), solver::poisson_2d(n, n), args, copy));
    for (const auto& path : args.mtx) rows.push_back(bench(env, path, solver::read_matrix_market(path), args, copy));

    std::ofstream csv_file;
    if (!args.csv.empty()) {
      csv_file.open(args.csv);
      csv_file << "device,matrix,rows,nnz,variant,ms_per_iteration,gbps,copy_gbps,textbook_floor_ms,fused_floor_ms,"
                  "ratio_to_fused_floor,eigen_ms_per_iteration,eigen_threads,speedup_vs_eigen,solve_iterations,"
                  "solve_ms,solve_true_residual\n";
    }
    std::printf("%-16s %9s %10s %9s %9s %9s %7s %7s %10s %8s %6s %9s\n", "matrix", "rows", "nnz", "ms/iter",
                "floor_tb", "floor_fu", "x_fused", "GB/s", "eigen_ms", "speedup", "iters", "solve_ms");
    for (const Row& r : rows) {
      const double speedup = r.eigen_ms_per_iteration / r.ms_per_iteration;
      std::printf("%-16s %9lld %10lld %9.4f %9.4f %9.4f %7.2f %7.0f %10.3f %8.1f %6zu %9.2f\n", r.matrix.c_str(), r.rows,
                  r.nnz, r.ms_per_iteration, r.textbook_floor_ms, r.fused_floor_ms, r.ms_per_iteration / r.fused_floor_ms,
                  r.gbps, r.eigen_ms_per_iteration, speedup, r.solve_iterations, r.solve_ms);
      if (csv_file)
        csv_file << '"' << env.info().name << "\"," << r.matrix << ',' << r.rows << ',' << r.nnz << ",textbook,"
                 << r.ms_per_iteration << ',' << r.gbps << ',' << copy / 1e9 << ',' << r.textbook_floor_ms << ','
                 << r.fused_floor_ms << ',' << r.ms_per_iteration / r.fused_floor_ms << ',' << r.eigen_ms_per_iteration
                 << ',' << r.eigen_threads << ',' << speedup << ',' << r.solve_iterations << ',' << r.solve_ms << ','
                 << r.solve_residual << '\n';
    }
    return 0;
  } catch (const clcg::cl::Error& e) {
    std::cerr << "cg-bench: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "cg-bench: " << e.what() << "\n";
    return 2;
  }
}
