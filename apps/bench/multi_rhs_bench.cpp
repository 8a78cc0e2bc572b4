// multi-rhs-bench: k right-hand sides of one matrix, solved two ways.
//  - facade: clcg::ConjugateGradient (the Eigen drop-in) on a freshly opened device: compute(A)
//    uploads A, sets up the preconditioner and builds the kernels once; solve(B) then solves B's
//    k columns in turn.
//  - separate: one `cg-solve --matrix A --rhs b_j` process per column, as a shell script would
//    do it (each process reads A, picks the device, uploads, builds, solves).
// Column j is b_j = A x_j with x_j uniform in [-1, 1] (seed j). Every solve must converge (exit
// 1 otherwise). Times: wall clock of the whole k columns, median of --repeats; the right-hand
// side files are written once, before any timing.
//
//   multi-rhs-bench --matrix A.mtx --cg-solve build/apps/cg-solve [--columns 1,8,32] [--tol 1e-8]
//                   [--precond jacobi] [--repeats 3] [--device D] [--platform S]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "clcg/solver/eigen/conjugate_gradient.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "common/app_main.hpp"
#include "common/bench_timing.hpp"
#include "common/command_line.hpp"

namespace {

namespace po = clcg::apps::po;
namespace fs = std::filesystem;
using clcg::solver::HostMatrix;

struct Options {
  std::string matrix, cg_solve, precond, device, platform;
  std::vector<std::uint64_t> columns;
  double tol = 1e-8;
  int repeats = 3;
};

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("multi-rhs-bench", "multi-rhs-bench --matrix A.mtx --cg-solve PATH [options]",
                              "Times k right-hand sides through clcg::ConjugateGradient (A uploaded once) "
                              "against k separate cg-solve runs.");
  cli.add()
      ("matrix", po::value<std::string>(), "A: Matrix Market coordinate file (required)")
      ("cg-solve", po::value<std::string>(), "the cg-solve executable to run once per column (required)")
      ("columns", po::value<clcg::apps::CountList>()->default_value(clcg::apps::CountList{{1, 8, 32}}, "1,8,32"),
       "numbers of right-hand sides k (1 .. 1000 each)")
      ("tol", po::value<clcg::apps::Real>()->default_value(clcg::apps::Real{1e-8}, "1e-8"),
       "relative residual to reach (0 < tol < 1)")
      ("precond", po::value<std::string>()->default_value("jacobi"), "jacobi | none | chebyshev | amg | auto")
      ("repeats", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{3}, "3"),
       "timed runs per k, median taken (1 .. 100)");
  cli.add_device_options();
  return cli;
}

Options options_from(const po::variables_map& args) {
  Options o;
  o.precond = args["precond"].as<std::string>();
  o.device = args["device"].as<std::string>();
  o.platform = args["platform"].as<std::string>();
  o.columns = args["columns"].as<clcg::apps::CountList>().values;
  for (std::uint64_t k : o.columns) clcg::apps::check_range("--columns", k, 1, 1000);
  o.tol = clcg::apps::real_in_range(args, "tol", 0, 1, true, true);
  o.repeats = static_cast<int>(clcg::apps::count_in_range(args, "repeats", 1, 100));
  for (const char* name : {"matrix", "cg-solve"})
    if (!args.count(name)) throw clcg::apps::UsageError(std::string("--") + name + " is required");
  o.matrix = args["matrix"].as<std::string>();
  o.cg_solve = args["cg-solve"].as<std::string>();
  if (!fs::is_regular_file(o.cg_solve)) throw clcg::apps::UsageError("--cg-solve: no such file: " + o.cg_solve);
  return o;
}

Eigen::MatrixXd right_hand_sides(const HostMatrix& a, Eigen::Index k) {
  Eigen::MatrixXd b(a.rows(), k);
  for (Eigen::Index j = 0; j < k; ++j) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(j));
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::VectorXd x(a.cols());
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = uniform(rng);
    b.col(j) = a * x;
  }
  return b;
}

// Milliseconds for compute(A) and solve(B) through the facade with Eigen preconditioner type P.
// Each run opens the device afresh (context, queue, program builds), as a new program would.
template <class P>
double facade_ms(const Options& o, const HostMatrix& a, const Eigen::MatrixXd& b) {
  return clcg::apps::median_ms(o.repeats, [&] {
    const clcg::cl::Env env = clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(o.device, o.platform));
    clcg::ConjugateGradient<HostMatrix, Eigen::Lower | Eigen::Upper, P> cg(env);
    cg.setTolerance(o.tol);
    cg.setMaxIterations(std::max<Eigen::Index>(1000, 10 * a.rows()));
    cg.compute(a);
    const Eigen::MatrixXd x = cg.solve(b);
    if (cg.info() != Eigen::Success || !x.allFinite())
      throw std::runtime_error("the facade did not converge on " + o.matrix);
  });
}

double facade_ms(const Options& o, const HostMatrix& a, const Eigen::MatrixXd& b) {
  if (o.precond == "jacobi") return facade_ms<Eigen::DiagonalPreconditioner<double>>(o, a, b);
  if (o.precond == "none") return facade_ms<Eigen::IdentityPreconditioner>(o, a, b);
  if (o.precond == "chebyshev") return facade_ms<clcg::ChebyshevPreconditioner<double>>(o, a, b);
  if (o.precond == "amg") return facade_ms<clcg::AmgPreconditioner<double>>(o, a, b);
  if (o.precond == "auto") return facade_ms<clcg::AutoPreconditioner<double>>(o, a, b);
  throw clcg::apps::UsageError("--precond must be jacobi, none, chebyshev, amg or auto, got " + o.precond);
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Milliseconds for k cg-solve processes, one per right-hand side file.
double separate_ms(const Options& o, const std::vector<std::string>& rhs_files) {
  char tol[32];
  std::snprintf(tol, sizeof tol, "%.17g", o.tol);
  std::string device = " --device " + quoted(o.device);
  if (!o.platform.empty()) device += " --platform " + quoted(o.platform);
  return clcg::apps::median_ms(o.repeats, [&] {
    for (const std::string& rhs : rhs_files) {
      const std::string command = quoted(o.cg_solve) + " --matrix " + quoted(o.matrix) + " --rhs " + quoted(rhs) +
                                  " --tol " + tol + " --precond " + o.precond + device + " --quiet";
      if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
    }
  });
}

// A temporary folder for the right-hand side files, removed on the way out.
struct TemporaryFolder {
  fs::path path;
  TemporaryFolder() : path(fs::temp_directory_path() / ("multi-rhs-bench-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(path);
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

int run(const Options& o) {
  const HostMatrix a = clcg::solver::read_matrix_market(o.matrix);
  Eigen::Index most = 0;
  for (std::uint64_t k : o.columns) most = std::max(most, static_cast<Eigen::Index>(k));
  const Eigen::MatrixXd b = right_hand_sides(a, most);
  const TemporaryFolder folder;
  std::vector<std::string> rhs_files;
  for (Eigen::Index j = 0; j < most; ++j) {
    std::string name = std::to_string(j);  // (not "b" + ...: GCC 12's -Wrestrict false positive)
    name.insert(0, 1, 'b').append(".mtx");
    rhs_files.push_back((folder.path / name).string());
    clcg::solver::write_vector_market(rhs_files.back(), b.col(j));
  }
  // The cg-solve processes first, before this process opens the device: a GPU in
  // exclusive-process mode (as on the H100 we measure on) refuses a second process a context.
  std::vector<double> separate, facade;
  for (std::uint64_t k : o.columns)
    separate.push_back(separate_ms(o, std::vector<std::string>(rhs_files.begin(), rhs_files.begin() + Eigen::Index(k))));
  for (std::uint64_t k : o.columns) facade.push_back(facade_ms(o, a, b.leftCols(Eigen::Index(k))));
  const std::string device_name =
      clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(o.device, o.platform)).info().name;
  std::printf("# %s, %lld rows, %lld nonzeros, precond %s, tol %g, device %s; median of %d runs\n", o.matrix.c_str(),
              static_cast<long long>(a.rows()), static_cast<long long>(a.nonZeros()), o.precond.c_str(), o.tol,
              device_name.c_str(), o.repeats);
  std::printf("%4s %12s %14s %13s %15s %8s\n", "k", "facade_ms", "facade_ms/col", "separate_ms", "separate_ms/col",
              "ratio");
  for (std::size_t i = 0; i < o.columns.size(); ++i) {
    const double k = double(o.columns[i]);
    std::printf("%4.0f %12.1f %14.2f %13.1f %15.2f %7.1fx\n", k, facade[i], facade[i] / k, separate[i],
                separate[i] / k, separate[i] / facade[i]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return clcg::apps::app_main(command_line(), argc, argv,
                              [](const po::variables_map& args) { return run(options_from(args)); });
}
