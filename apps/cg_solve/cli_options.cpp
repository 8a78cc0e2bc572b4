#include "cli_options.hpp"

#include <boost/program_options.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "clcg/solver/version.hpp"

namespace po = boost::program_options;

namespace cg_solve {

const char* const usage_line = "usage: cg-solve --matrix A.mtx [options]   (cg-solve --help lists them)";

namespace {

po::options_description describe_options() {
  po::options_description options("options");
  const char* env_device = std::getenv("CLCG_DEVICE");
  const char* env_platform = std::getenv("CLCG_PLATFORM");
  options.add_options()
      ("matrix", po::value<std::string>(), "A: Matrix Market coordinate file (real|integer|pattern, general|symmetric)")
      ("rhs", po::value<std::string>(), "b: Matrix Market array file (default: b = A*1, so x = 1 exactly)")
      ("x0", po::value<std::string>(), "initial guess, Matrix Market array file (default: 0)")
      ("output", po::value<std::string>(), "write x here (Matrix Market array; written whole or not at all)")
      ("tol", po::value<std::string>()->default_value("1e-8"), "stop when ||b - A x|| <= tol ||b|| (0 < tol < 1)")
      ("max-iter", po::value<std::string>(), "iteration limit, >= 1 (default: max(1000, 10 x rows))")
      ("precond", po::value<std::string>()->default_value("jacobi"), "jacobi | none (Jacobi = diag(A), Eigen's default)")
      ("precision", po::value<std::string>()->default_value("double"), "double | float")
      ("device", po::value<std::string>()->default_value(env_device ? env_device : "auto"),
       "auto | gpu | cpu | <index> from --list-devices (env CLCG_DEVICE)")
      ("platform", po::value<std::string>()->default_value(env_platform ? env_platform : ""),
       "only devices whose platform name contains this (env CLCG_PLATFORM)")
      ("list-devices", "list every OpenCL platform and device, marking the one --device picks")
      ("variant", po::value<std::string>()->default_value("fused"), "fused | textbook | pipelined | single (see docs/USAGE.md)")
      ("no-symmetry-check", "accept a 'general' matrix that is not symmetric")
      ("reference", "also solve with Eigen's ConjugateGradient on the CPU and compare")
      ("history", po::value<std::string>(), "write per-iteration residuals as CSV here")
      ("json", "print one JSON object with the results on stdout")
      ("quiet", "no summary on stderr (errors are still reported)")
      ("help,h", "show this help")
      ("version", "show the version");
  return options;
}

double parse_tolerance(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw UsageError("--tol: '" + text + "' is not a number");
  if (!std::isfinite(value) || value <= 0 || value >= 1)
    throw UsageError("--tol must be greater than 0 and less than 1, got " + text);
  return value;
}

std::size_t parse_max_iterations(const std::string& text) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text[0] == '-' || error == std::errc::invalid_argument || end != text.data() + text.size())
    throw UsageError("--max-iter must be a whole number >= 1, got '" + text + "'");
  if (error == std::errc::result_out_of_range) throw UsageError("--max-iter is too large: " + text);
  if (value == 0) throw UsageError("--max-iter must be at least 1 (0 would not iterate at all)");
  return value;
}

}  // namespace

CliOptions parse_command_line(int argc, char** argv) {
  const po::options_description options = describe_options();
  po::variables_map args;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).run(), args);
    po::notify(args);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  CliOptions cli;
  const auto text = [&](const char* name) { return args.count(name) ? args[name].as<std::string>() : std::string(); };
  cli.help = args.count("help") > 0;
  cli.version = args.count("version") > 0;
  cli.list_devices = args.count("list-devices") > 0;
  cli.no_symmetry_check = args.count("no-symmetry-check") > 0;
  cli.reference = args.count("reference") > 0;
  cli.json = args.count("json") > 0;
  cli.quiet = args.count("quiet") > 0;
  cli.matrix = text("matrix");
  cli.rhs = text("rhs");
  cli.x0 = text("x0");
  cli.output = text("output");
  cli.history = text("history");
  cli.device = text("device");
  cli.platform = text("platform");
  cli.variant = text("variant");
  cli.tolerance = parse_tolerance(text("tol"));
  if (args.count("max-iter")) cli.max_iterations = parse_max_iterations(text("max-iter"));
  try {
    cli.preconditioner = clcg::solver::parse_preconditioner(text("precond"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--precond: ") + e.what());
  }
  const std::string precision = text("precision");
  if (precision == "double") {
    cli.precision = clcg::reduction::ElementType::f64;
  } else if (precision == "float") {
    cli.precision = clcg::reduction::ElementType::f32;
  } else {
    throw UsageError("--precision must be double or float, got '" + precision + "'");
  }
  if (cli.help || cli.version || cli.list_devices) return cli;
  if (cli.matrix.empty()) throw UsageError("--matrix is required");
  for (const auto& [path, name] : {std::pair{cli.output, "--output"}, std::pair{cli.history, "--history"}})
    if (!path.empty() && (path == cli.matrix || path == cli.rhs || path == cli.x0))
      throw UsageError(std::string(name) + " '" + path + "' is also an input: refusing to overwrite it");
  if (!cli.output.empty() && cli.output == cli.history)
    throw UsageError("--output and --history name the same file '" + cli.output + "'");
  return cli;
}

std::string help_text() {
  std::ostringstream out;
  out << "cg-solve " << clcg::version() << ": solve A x = b (A sparse symmetric positive definite) with conjugate\n"
      << "gradient on an OpenCL device.\n\n"
      << usage_line << "\n\n"
      << describe_options() << "\n"
      << "exit status: 0 converged, 1 not converged (iteration limit, breakdown: A not positive definite,\n"
      << "NaN/Inf), 2 usage or input error, 3 OpenCL or device error, 130 interrupted.\n";
  return out.str();
}

}  // namespace cg_solve
