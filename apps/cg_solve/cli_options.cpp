#include "cli_options.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "clcg/solver/version.hpp"

namespace po = clcg::apps::po;

namespace cg_solve {

const char* const usage_line = "usage: cg-solve --matrix A.mtx [options]   (cg-solve --help lists them)";

namespace {

using clcg::apps::Count;
using clcg::apps::Real;

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("cg-solve", "cg-solve --matrix A.mtx [options]",
                              "cg-solve " + std::string(clcg::version()) +
                                  ": solve A x = b (A sparse symmetric positive definite) with conjugate\n"
                                  "gradient on an OpenCL device.");
  cli.add()
      ("matrix", po::value<std::string>(), "A: Matrix Market coordinate file (real|integer|pattern, general|symmetric)")
      ("generate", po::value<std::string>(),
       "instead of --matrix: poisson3d:N | poisson3d:NXxNYxNZ | poisson2d:N | poisson2d:NXxNY (Dirichlet Laplacian)")
      ("partition", po::value<std::string>(),
       "under mpirun: the first row of ranks 1 .. N-1, comma-separated, multiples of the dot chunk (default: balanced by nonzeros)")
      ("rhs", po::value<std::string>(), "b: Matrix Market array file (default: b = A*1, so x = 1 exactly)")
      ("x0", po::value<std::string>(), "initial guess, Matrix Market array file (default: 0)")
      ("output", po::value<std::string>(), "write x here when the solve converges (Matrix Market array; whole or not at all)")
      ("output-unconverged", "write x to --output even when the solve did not converge (the last iterate)")
      ("tol", po::value<Real>()->default_value(Real{1e-8}, "1e-8"), "stop when ||b - A x|| <= tol ||b|| (0 < tol < 1)")
      ("max-iter", po::value<Count>(), "iteration limit, >= 1 (default: max(1000, 10 x rows))")
      ("precond", po::value<std::string>()->default_value("auto"),
       "auto | jacobi | chebyshev | ic0 | amg | cholesky | none (docs/USAGE.md, \"Preconditioners\")")
      ("factor", po::value<std::string>()->default_value("auto"),
       "auto | host | device: where the exact factor of cholesky and of auto's direct solve lives (host: sparse "
       "LDL^T; device: dense LL^T in double; docs/USAGE.md)")
      ("chebyshev-degree", po::value<Count>()->default_value(Count{4}, "4"), "Chebyshev: SpMVs per apply (1 .. 64)")
      ("ic0-sweeps", po::value<Count>()->default_value(Count{3}, "3"),
       "IC(0): Jacobi sweeps per triangular factor in an apply (0 .. 64)")
      ("amg-smoother-degree", po::value<Count>()->default_value(Count{2}, "2"),
       "AMG: Chebyshev smoother degree before and after each coarse correction (1 .. 16)")
      ("amg-coarse-rows", po::value<Count>()->default_value(Count{600}, "600"),
       "AMG: coarsen until at most this many rows (half as many from 1M rows of A), then an exact "
       "Cholesky solve on the host (1 .. 2000)")
      ("amg-gather-rows", po::value<Count>()->default_value(Count{65536}, "65536"),
       "AMG under mpirun: a level of at most this many rows (and 32 times as many entries) goes whole onto every "
       "rank, which runs the rest of the cycle on its own device (1 .. 16777216)")
      ("amg-strength", po::value<Real>()->default_value(Real{0.25}, "0.25"),
       "AMG: strong connection when |a_ij| / sqrt(a_ii a_jj) >= this x the largest such ratio of row i or row j "
       "(0 .. 1, every level)")
      ("precond-precision", po::value<std::string>()->default_value("auto"),
       "auto | float | double: what Chebyshev, IC(0) and AMG are applied in (auto: float on a GPU in a double solve)")
      ("precision", po::value<std::string>()->default_value("double"), "double | float");
  clcg::apps::add_near_nullspace_options(cli);
  cli.add_device_options();
  cli.add()
      ("list-devices", "list every OpenCL platform and device, marking the one --device picks")
      ("variant", po::value<std::string>()->default_value("auto"),
       "auto | fused | textbook | pipelined | single (auto: the fastest for the device and size, docs/USAGE.md)")
      ("spmv", po::value<std::string>()->default_value("auto"),
       "auto | scalar | vector | ell: how the SpMV reads the rows (auto: from their lengths, docs/USAGE.md;\n"
       "under mpirun scalar or ell)")
      ("no-symmetry-check", "accept a 'general' matrix that is not symmetric")
      ("reference", "also solve with Eigen's ConjugateGradient on the CPU and compare")
      ("history", po::value<std::string>(), "write per-iteration residuals as CSV here")
      ("json", "print one JSON object with the results on stdout")
      ("quiet", "no summary on stderr (errors are still reported)")
      ("version", "show the version");
  cli.epilog("exit status: 0 converged, 1 not converged (iteration limit, breakdown: A not positive definite,\n"
             "NaN/Inf), 2 usage or input error, 3 OpenCL or device error, 130 interrupted.\n");
  return cli;
}

}  // namespace

GeneratedProblem parse_generated_problem(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  GeneratedProblem problem;
  problem.dimensions = kind == "poisson3d" ? 3 : kind == "poisson2d" ? 2 : 0;
  if (problem.dimensions == 0 || colon == std::string::npos)
    throw UsageError("--generate: expected poisson3d:N, poisson3d:NXxNYxNZ, poisson2d:N or poisson2d:NXxNY, got '" +
                     spec + "'");
  std::vector<std::int64_t> sizes;
  std::size_t at = colon + 1;
  while (true) {
    const std::size_t x = std::min(spec.find('x', at), spec.size());
    const std::string item = spec.substr(at, x - at);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 1 || value > (std::int64_t(1) << 21))
      throw UsageError("--generate: grid size '" + item + "' in '" + spec + "' must be an integer from 1 to 2097152");
    sizes.push_back(value);
    if (x == spec.size()) break;
    at = x + 1;
  }
  if (sizes.size() == 1) sizes.assign(std::size_t(problem.dimensions), sizes[0]);
  if (int(sizes.size()) != problem.dimensions)
    throw UsageError("--generate: '" + spec + "' needs 1 or " + std::to_string(problem.dimensions) + " grid sizes");
  problem.nx = sizes[0];
  problem.ny = sizes[1];
  problem.nz = problem.dimensions == 3 ? sizes[2] : 1;
  if (problem.rows() > (std::int64_t(1) << 40)) throw UsageError("--generate: '" + spec + "' has more than 2^40 rows");
  return problem;
}

CliOptions parse_command_line(int argc, char** argv) {
  const std::optional<po::variables_map> parsed = command_line().parse(argc, argv);
  CliOptions cli;
  if (!parsed) {  // --help, printed
    cli.help = true;
    return cli;
  }
  const po::variables_map& args = *parsed;
  const auto text = [&](const char* name) { return args.count(name) ? args[name].as<std::string>() : std::string(); };
  cli.version = args.count("version") > 0;
  cli.list_devices = args.count("list-devices") > 0;
  cli.no_symmetry_check = args.count("no-symmetry-check") > 0;
  cli.reference = args.count("reference") > 0;
  cli.json = args.count("json") > 0;
  cli.quiet = args.count("quiet") > 0;
  cli.output_unconverged = args.count("output-unconverged") > 0;
  cli.matrix = text("matrix");
  cli.rhs = text("rhs");
  cli.x0 = text("x0");
  cli.output = text("output");
  cli.history = text("history");
  cli.device = text("device");
  cli.platform = text("platform");
  cli.variant = text("variant");
  try {
    cli.spmv = clcg::solver::parse_spmv_kernel(text("spmv"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--spmv: ") + e.what());
  }
  cli.tolerance = clcg::apps::real_in_range(args, "tol", 0, 1, /*open_min=*/true, /*open_max=*/true);
  if (args.count("max-iter"))
    cli.max_iterations = clcg::apps::count_in_range(args, "max-iter", 1, std::numeric_limits<std::int64_t>::max());
  try {
    cli.preconditioner = clcg::solver::parse_preconditioner(text("precond"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--precond: ") + e.what());
  }
  try {
    cli.precond_options.factor = clcg::solver::parse_factor_place(text("factor"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--factor: ") + e.what());
  }
  if (cli.precond_options.factor != clcg::solver::FactorPlace::automatic &&
      cli.preconditioner != clcg::solver::Preconditioner::cholesky &&
      cli.preconditioner != clcg::solver::Preconditioner::automatic)
    throw UsageError("--factor places the factor of --precond cholesky or auto, not " +
                     std::string(clcg::solver::preconditioner_name(cli.preconditioner)));
  cli.precond_options.chebyshev.degree = unsigned(clcg::apps::count_in_range(args, "chebyshev-degree", 1, 64));
  cli.precond_options.ic0.sweeps = unsigned(clcg::apps::count_in_range(args, "ic0-sweeps", 0, 64));
  cli.precond_options.amg.smoother_degree = unsigned(clcg::apps::count_in_range(args, "amg-smoother-degree", 1, 16));
  cli.precond_options.amg.coarse_rows = clcg::apps::count_in_range(args, "amg-coarse-rows", 1, 2000);
  cli.precond_options.amg.strength = clcg::apps::real_in_range(args, "amg-strength", 0, 1);
  cli.precond_options.amg.gather_rows = clcg::apps::count_in_range(args, "amg-gather-rows", 1, std::size_t(1) << 24);
  cli.near_nullspace = clcg::apps::near_nullspace_files(args);
  const bool amg_may_run = cli.preconditioner == clcg::solver::Preconditioner::amg ||
                           cli.preconditioner == clcg::solver::Preconditioner::automatic;
  if (cli.near_nullspace.given() && !amg_may_run)
    throw UsageError("--near-nullspace, --coordinates and --block-size set up AMG: give --precond amg or auto, not " +
                     std::string(clcg::solver::preconditioner_name(cli.preconditioner)));
  const auto element_type = [&](const char* option, const char* names) {
    const std::string name = text(option);
    if (name == "double") return clcg::reduction::ElementType::f64;
    if (name == "float") return clcg::reduction::ElementType::f32;
    throw UsageError(std::string("--") + option + " must be " + names + ", got '" + name + "'");
  };
  cli.precision = element_type("precision", "double or float");
  if (text("precond-precision") != "auto") {
    cli.precond_options.precision = element_type("precond-precision", "auto, float or double");
    if (cli.precond_options.precision == clcg::reduction::ElementType::f64 && cli.precision == clcg::reduction::ElementType::f32)
      throw UsageError("--precond-precision double needs --precision double (a float solve applies M in float)");
  }
  const bool diagonal = cli.preconditioner == clcg::solver::Preconditioner::none ||
                        cli.preconditioner == clcg::solver::Preconditioner::jacobi ||
                        cli.preconditioner == clcg::solver::Preconditioner::automatic;
  if (cli.variant == "pipelined" && !diagonal)
    throw UsageError("--variant pipelined takes --precond none or jacobi, not " +
                     std::string(clcg::solver::preconditioner_name(cli.preconditioner)) +
                     " (use fused, single or textbook)");
  if (cli.version || cli.list_devices) return cli;
  cli.generate = text("generate");
  cli.partition = text("partition");
  if (!cli.generate.empty()) {
    if (!cli.matrix.empty()) throw UsageError("--matrix and --generate both name the matrix; give one");
    cli.problem = parse_generated_problem(cli.generate);
    if (cli.reference) throw UsageError("--reference needs --matrix (Eigen solves the file's matrix)");
  } else if (cli.matrix.empty()) {
    throw UsageError("--matrix (or --generate) is required");
  }
  if (cli.output_unconverged && cli.output.empty()) throw UsageError("--output-unconverged needs --output");
  for (const auto& [path, name] : {std::pair{cli.output, "--output"}, std::pair{cli.history, "--history"}})
    if (!path.empty() && (path == cli.matrix || path == cli.rhs || path == cli.x0))
      throw UsageError(std::string(name) + " '" + path + "' is also an input: refusing to overwrite it");
  if (!cli.output.empty() && cli.output == cli.history)
    throw UsageError("--output and --history name the same file '" + cli.output + "'");
  return cli;
}

clcg::cl::DeviceSelector device_selector(const CliOptions& cli) {
  try {
    return clcg::cl::DeviceSelector::parse(cli.device, cli.platform);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--device: ") + e.what());
  }
}

}  // namespace cg_solve
