// pi: the seeds' first example. pi = integral over [0, 1] of 4 / (1 + x^2), by the midpoint
// rule with n intervals, on the device with the two kernels of kernels/pi.cl, (a) work-item 0
// sums its group alone, (b) a tree; the per-group partials are finished on the host by
// clcg::reduction::finish_partials. Against a sequential CPU loop; float and double.
// Exit codes: 0 every device result within its error bound, 1 some result outside it,
// 2 bad usage, 3 OpenCL / device error (common/app_main.hpp).
#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/app_main.hpp"
#include "common/bench_timing.hpp"
#include "common/command_line.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"

namespace {

using clcg::reduction::ElementType;

constexpr int exit_inaccurate = 1;

using clcg::apps::Count;
using clcg::apps::UsageError;
using clcg::apps::median_ms;
namespace po = clcg::apps::po;

struct Options {
  std::uint64_t n = 100'000'000;
  std::vector<ElementType> types{ElementType::f64, ElementType::f32};
  bool both_types = true;  // then a device without fp64 runs float only
  std::size_t work_group = 0;  // 0: 256 capped to the device and kernel
  std::size_t groups = 0;      // 0: 8 per compute unit
  int repeats = 10;
  std::string device = "auto";
  std::string platform;
};

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("pi", "pi [options]",
                              "Integrates 4/(1+x^2) over [0,1] by the midpoint rule on an OpenCL device and on the CPU.");
  cli.add()
      ("n", po::value<Count>()->default_value(Count{100'000'000}, "1e8"), "intervals, 1 .. 2^53")
      ("type", po::value<std::string>()->default_value("both"), "double | float | both (both skips double without fp64)")
      ("wg", po::value<Count>(), "work-group size, a power of two (default 256, capped to the device)")
      ("groups", po::value<Count>(), "work-groups (default 8 per compute unit)")
      ("repeats", po::value<Count>()->default_value(Count{10}, "10"), "timed calls, median taken (1 .. 100000)");
  cli.epilog("exit status: 0 every device result within its error bound, 1 some result outside it, 2 bad usage,\n"
             "3 OpenCL or device error.\n");
  cli.add_device_options();
  return cli;
}

Options options_from(const po::variables_map& args) {
  Options options;
  // Beyond 2^53 the point indices are no longer exact in double.
  options.n = clcg::apps::count_in_range(args, "n", 1, std::uint64_t{1} << 53);
  const std::string type = args["type"].as<std::string>();
  options.both_types = type == "both";
  if (type == "double") options.types = {ElementType::f64};
  else if (type == "float") options.types = {ElementType::f32};
  else if (type != "both") throw UsageError("--type must be double, float or both, got '" + type + "'");
  if (args.count("wg")) {
    options.work_group = clcg::apps::count_in_range(args, "wg", 1, 1u << 16);
    if (!std::has_single_bit(options.work_group)) throw UsageError("--wg must be a power of two (the tree halves it)");
  }
  if (args.count("groups")) options.groups = clcg::apps::count_in_range(args, "groups", 1, 1u << 24);
  options.repeats = static_cast<int>(clcg::apps::count_in_range(args, "repeats", 1, 100000));
  options.device = args["device"].as<std::string>();
  options.platform = args["platform"].as<std::string>();
  return options;
}

// ---- Measurement ----------------------------------------------------------------------

struct Line {
  Line(ElementType type, std::string method) : type(type), method(std::move(method)) {}
  ElementType type;
  std::string method;
  double ms = 0;
  double value = 0;
  std::size_t work_group = 0, groups = 0;  // 0 for the CPU loop
  std::optional<double> bound;             // device results only
};

// The seeds' CPU loop: one accumulator in the element type, so float shows what a single
// running sum loses once it dwarfs its terms (the tree on the device does not).
template <class T>
T cpu_pi(std::uint64_t n) {
  const T step = T(1) / static_cast<T>(n);
  T sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const T x = (static_cast<T>(i) + T(0.5)) * step;
    sum += T(4) / (T(1) + x * x);
  }
  return sum * step;
}

// |computed - pi| allowed for a device result: the midpoint rule's error (h^2/24 max|f''|,
// |f''| <= 8 on [0,1]) plus Higham's γ_k·Σ|terms| (Σ|terms|·h = pi) with k the rounding chain
// of one point: its evaluation (~10 roundings), its work-item's running sum, and the group's
// combine (at most wg steps). Loose: it catches a lost group or a race, not the last bits.
double error_bound(ElementType type, std::uint64_t n, std::size_t work_group, std::size_t groups) {
  const double u = type == ElementType::f64 ? 0x1.0p-53 : 0x1.0p-24;
  const double h = 1.0 / static_cast<double>(n);
  const double per_item = std::ceil(static_cast<double>(n) / static_cast<double>(work_group * groups));
  const double k = per_item + static_cast<double>(work_group) + 10;
  return h * h / 3 + (k * u < 1 ? k * u / (1 - k * u) * std::numbers::pi : std::numeric_limits<double>::infinity());
}

template <class T>
constexpr ElementType element_type = std::is_same_v<T, double> ? ElementType::f64 : ElementType::f32;

template <class T>
std::string real_options() {
  return std::is_same_v<T, double> ? "-D REAL=double -D REAL_IS_DOUBLE" : "-D REAL=float";
}

// The requested work-group size, or 256, within the device's and this kernel's limits.
std::size_t work_group_for(const clcg::cl::Env& env, const ::cl::Kernel& kernel, const char* name,
                           std::size_t requested) {
  const std::size_t limit = std::min(env.info().max_work_group_size,
                                     kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device()));
  if (requested == 0) return std::bit_floor(std::min<std::size_t>(256, limit));
  if (requested > limit)
    throw std::invalid_argument("--wg " + std::to_string(requested) + " exceeds the limit " + std::to_string(limit) +
                                " of kernel " + name + " on " + env.info().name);
  return requested;
}

// One device kernel: launch, blocking read of the partials, host finish; timed end to end.
template <class T>
Line run_device(const clcg::cl::Env& env, const char* kernel_name, const std::string& label, const Options& options) {
  return clcg::cl::checked(std::string("pi kernel ") + kernel_name, [&] {
    ::cl::Kernel kernel = env.kernel("pi.cl", kernel_name, real_options<T>());
    Line line(element_type<T>, label);
    line.work_group = work_group_for(env, kernel, kernel_name, options.work_group);
    const std::size_t wanted = options.groups ? options.groups : 8 * std::size_t{env.info().compute_units};
    line.groups = std::min<std::uint64_t>(wanted, (options.n - 1) / line.work_group + 1);  // no idle groups

    const ::cl::Buffer partials(env.context(), CL_MEM_WRITE_ONLY, line.groups * sizeof(T));
    std::vector<T> raw(line.groups);
    std::vector<double> widened(line.groups);
    kernel.setArg(0, static_cast<cl_ulong>(options.n));
    kernel.setArg(1, partials);
    kernel.setArg(2, ::cl::Local(line.work_group * sizeof(T)));
    const auto once = [&] {
      env.queue().enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(line.groups * line.work_group),
                                       ::cl::NDRange(line.work_group));
      env.queue().enqueueReadBuffer(partials, CL_TRUE, 0, raw.size() * sizeof(T), raw.data());
      std::copy(raw.begin(), raw.end(), widened.begin());
      return clcg::reduction::finish_partials(clcg::reduction::Op::sum, widened, {}).value /
             static_cast<double>(options.n);
    };
    line.value = once();  // warm-up: first launches pay for setup
    line.ms = median_ms(options.repeats, [&] { line.value = once(); });
    line.bound = error_bound(line.type, options.n, line.work_group, line.groups);
    return line;
  });
}

template <class T>
std::vector<Line> run_type(const clcg::cl::Env& env, const Options& options) {
  Line cpu(element_type<T>, "cpu loop");
  cpu.ms = median_ms(options.repeats, [&] { cpu.value = static_cast<double>(cpu_pi<T>(options.n)); });
  return {cpu, run_device<T>(env, "pi_serial", "(a) serial", options),
          run_device<T>(env, "pi_tree", "(b) tree", options)};
}

// Prints the table; returns how many device results are outside their bound.
int print_lines(const std::vector<Line>& lines) {
  std::cout << std::left << std::setw(8) << "type" << std::setw(12) << "method" << std::right << std::setw(6) << "wg"
            << std::setw(8) << "groups" << std::setw(12) << "ms" << std::setw(12) << "|error|" << std::setw(11)
            << "bound" << std::setw(10) << "speedup" << "\n";
  int failures = 0;
  double cpu_ms = 0;
  for (const Line& line : lines) {
    if (!line.bound) cpu_ms = line.ms;  // each type's CPU line comes first
    const double error = std::fabs(line.value - std::numbers::pi);
    const bool ok = !line.bound || error <= *line.bound;  // NaN fails
    failures += ok ? 0 : 1;
    std::cout << std::left << std::setw(8) << clcg::reduction::type_name(line.type) << std::setw(12) << line.method
              << std::right << std::setw(6) << (line.bound ? std::to_string(line.work_group) : "-") << std::setw(8)
              << (line.bound ? std::to_string(line.groups) : "-") << std::fixed << std::setprecision(3)
              << std::setw(12) << line.ms << std::scientific << std::setprecision(2) << std::setw(12) << error
              << std::setw(11);
    if (line.bound) std::cout << *line.bound; else std::cout << "-";
    std::cout << std::fixed << std::setprecision(1) << std::setw(10) << cpu_ms / line.ms << (ok ? "" : "  TOO FAR")
              << "\n";
  }
  return failures;
}

int run(const Options& options) {
  const clcg::cl::Env env =
      clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(options.device, options.platform), /*profiling=*/false);
  std::cout << "pi by the midpoint rule, n = " << options.n << ", on " << env.info().name << " ("
            << env.info().platform_name << "); median of " << options.repeats << " calls\n";
  std::vector<Line> lines;
  for (ElementType type : options.types) {
    if (type == ElementType::f64 && !env.info().fp64) {
      if (!options.both_types)
        throw clcg::cl::DeviceCapabilityError("pi in double", "device " + env.info().name + " has no fp64");
      std::cerr << "pi: " << env.info().name << " has no double precision; float only\n";
      continue;
    }
    std::vector<Line> mine = type == ElementType::f64 ? run_type<double>(env, options) : run_type<float>(env, options);
    lines.insert(lines.end(), mine.begin(), mine.end());
  }
  const int failures = print_lines(lines);
  if (failures == 0) return 0;
  std::cerr << "pi: " << failures << " device result(s) farther from pi than their error bound\n";
  return exit_inaccurate;
}

}  // namespace

int main(int argc, char** argv) {
  return clcg::apps::app_main(command_line(), argc, argv, [](const po::variables_map& args) { return run(options_from(args)); });
}
