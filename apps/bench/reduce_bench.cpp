// reduce-bench: the seeds' reduction experiment. Every reduction variant x work-group size
// x operation x array size, timed end to end through Reducer::run (kernel, read-back of the
// per-group partials, host finish: the number a CG iteration pays), against a sequential CPU
// loop and against the device's own copy bandwidth, measured in the same run.
// Exit codes: 0 every result correct, 1 some result outside its error bound, 2 bad usage,
// 3 OpenCL / device error.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/app_main.hpp"
#include "common/bench_timing.hpp"
#include "common/command_line.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"

namespace {

using clcg::reduction::ElementType;
using clcg::reduction::Op;
using clcg::reduction::Reducer;
using clcg::reduction::VariantInfo;

constexpr int exit_mismatch = 1;

using clcg::apps::CountList;
using clcg::apps::NameList;
using clcg::apps::UsageError;
using clcg::apps::median;
using clcg::apps::median_ms;
namespace po = clcg::apps::po;

struct Options {
  std::string device = "auto";
  std::string platform;
  ElementType type = ElementType::f64;
  std::vector<std::string> variants;      // empty: every registered variant
  std::vector<Op> ops{Op::sum, Op::dot};
  std::vector<std::size_t> work_groups;   // empty: 32 .. min(1024, device max)
  std::size_t max_size = 100'000'000;
  std::size_t groups = 0;                 // 0: the library's rule (grid-stride variants)
  int repeats = 20;
  std::string csv_path;
  bool quick = false;
};

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("reduce-bench", "reduce-bench [options]",
                              "Times every reduction variant x work-group size x operation x array size (10^3 .. 10^8).");
  cli.add()
      ("type", po::value<std::string>()->default_value("double"), "double | float")
      ("variants", po::value<NameList>(), "comma-separated variant names (default: all)")
      ("ops", po::value<NameList>(), "comma-separated, from sum, dot, sumsq (default sum,dot)")
      ("groups", po::value<clcg::apps::Count>(), "work-groups for the grid-stride variants (default: the library's rule)")
      ("wg", po::value<CountList>(), "comma-separated work-group sizes (default 32,64,...,1024 up to the device max)")
      ("max-size", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{100'000'000}, "1e8"),
       "largest array size, e.g. 1e7 (also capped by device memory)")
      ("repeats", po::value<clcg::apps::Count>(),
       "timed calls per measurement, median taken (default 20, --quick 3; sizes >= 1e7 use a quarter, at least 5)")
      ("csv", po::value<std::string>(), "write one row per configuration to this file")
      ("quick", "smoke run: sizes up to 1e6, 3 repeats, 64 MiB copy buffer");
  cli.epilog("exit status: 0 every result correct, 1 some result outside its error bound, 2 bad usage,\n"
             "3 OpenCL or device error.\n");
  cli.add_device_options();
  return cli;
}

Op parse_bench_op(const std::string& name) {
  if (name == "sum") return Op::sum;
  if (name == "dot") return Op::dot;
  if (name == "sumsq") return Op::sumsq;
  throw UsageError("--ops: '" + name + "' is not one of sum, dot, sumsq");
}

Options options_from(const po::variables_map& args) {
  Options options;
  options.device = args["device"].as<std::string>();
  options.platform = args["platform"].as<std::string>();
  const std::string type = args["type"].as<std::string>();
  if (type == "float") options.type = ElementType::f32;
  else if (type != "double") throw UsageError("--type must be double or float, got '" + type + "'");
  if (args.count("variants")) {
    options.variants = args["variants"].as<NameList>().values;
    for (const std::string& v : options.variants) clcg::reduction::find_variant(v);  // names the known ones
  }
  if (args.count("ops")) {
    options.ops.clear();
    for (const std::string& op : args["ops"].as<NameList>().values) options.ops.push_back(parse_bench_op(op));
  }
  if (args.count("wg"))
    for (std::uint64_t wg : args["wg"].as<CountList>().values)  // 0 would mean "the library's choice"
      options.work_groups.push_back(clcg::apps::check_range("--wg sizes", wg, 1, 1u << 16));
  if (args.count("groups")) options.groups = clcg::apps::count_in_range(args, "groups", 1, 1u << 24);
  options.quick = args.count("quick") > 0;
  options.max_size = clcg::apps::count_in_range(args, "max-size", 1000, std::uint64_t{1} << 40);
  if (options.quick) options.max_size = std::min<std::size_t>(options.max_size, 1'000'000);
  options.repeats = args.count("repeats") ? static_cast<int>(clcg::apps::count_in_range(args, "repeats", 1, 100000))
                                          : options.quick ? 3 : 20;
  if (args.count("csv")) options.csv_path = args["csv"].as<std::string>();
  return options;
}

// ---- Measurement helpers ----------------------------------------------------------------

// Big sizes take long on the CPU side and with uploads; the median of 5 is still stable there.
int repeats_for(std::size_t n, int repeats) {
  return n >= 10'000'000 ? std::min(repeats, std::max(5, repeats / 4)) : repeats;
}

// Device-to-device copy bandwidth (bytes read + written per second), the ceiling a
// memory-bound reduction can approach. Timed with profiling events, so only the copy counts.
double measure_copy_gbps(const clcg::cl::Env& env, std::size_t bytes, int repeats) {
  return clcg::cl::checked("measuring copy bandwidth with " + std::to_string(bytes) + " bytes", [&] {
    const ::cl::Buffer source(env.context(), CL_MEM_READ_WRITE, bytes);
    const ::cl::Buffer target(env.context(), CL_MEM_READ_WRITE, bytes);
    // Touch both buffers first: the first use may allocate or migrate them.
    env.queue().enqueueFillBuffer(source, cl_uchar{1}, 0, bytes);
    env.queue().enqueueFillBuffer(target, cl_uchar{0}, 0, bytes);
    env.queue().enqueueCopyBuffer(source, target, 0, 0, bytes);
    env.queue().finish();
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
      ::cl::Event copied;
      env.queue().enqueueCopyBuffer(source, target, 0, 0, bytes, nullptr, &copied);
      copied.wait();
      const auto ns = copied.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                      copied.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      seconds.push_back(static_cast<double>(ns) * 1e-9);
    }
    return 2.0 * static_cast<double>(bytes) / median(std::move(seconds)) / 1e9;
  });
}

std::size_t copy_buffer_bytes(const clcg::cl::DeviceInfo& device, bool quick) {
  const std::size_t cap = quick ? std::size_t{64} << 20 : std::size_t{1} << 30;
  return std::min<std::size_t>({cap, device.max_allocation_bytes / 2, device.global_memory_bytes / 4});
}

// ---- Inputs and references --------------------------------------------------------------

// Uniform in [-1, 1) from a fixed seed, so runs are comparable and sums involve cancellation.
// Own mapping from mt19937_64 bits: the same numbers with every standard library.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(static_cast<double>(engine() >> 11) * 0x1.0p-52 - 1.0);
  return values;
}

template <class T>
struct HostInputs {
  std::vector<T> x, y;  // y only when some operation reads two inputs
};

template <class T>
struct DeviceInputs {
  ::cl::Buffer x, y;
};

std::size_t inputs_of(Op op) { return clcg::reduction::takes_two_inputs(op) ? 2 : 1; }

// The value the terms add up to, in long double, and Σ|term|, which scales the error bound.
struct Reference {
  long double value = 0;
  long double magnitude = 0;
};

template <class T>
long double term(Op op, const HostInputs<T>& in, std::size_t i) {
  const long double a = in.x[i];
  if (op == Op::dot) return a * static_cast<long double>(in.y[i]);
  return op == Op::sumsq ? a * a : a;
}

template <class T>
Reference reference(Op op, const HostInputs<T>& in, std::size_t n) {
  Reference r;
  for (std::size_t i = 0; i < n; ++i) {
    const long double t = term(op, in, i);
    r.value += t;
    r.magnitude += std::fabs(t);
  }
  return r;
}

// The sequential CPU baseline: one plain loop accumulating in double, as the seeds did.
template <class T>
double cpu_reduce(Op op, const HostInputs<T>& in, std::size_t n) {
  double acc = 0;
  const T* x = in.x.data();
  if (op == Op::dot) {
    const T* y = in.y.data();
    for (std::size_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * y[i];
  } else if (op == Op::sumsq) {
    for (std::size_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * x[i];
  } else {
    for (std::size_t i = 0; i < n; ++i) acc += x[i];
  }
  return acc;
}

// Higham's bound γ_k·Σ|term| with k the longest rounding chain a term can see: its strided
// slice in one work-item, the group's combine (at most wg steps, whatever the tree), the
// device-side folds of `atomic`, the product and the host finish. Loose on purpose: it
// catches wrong sums (a lost group, a race), not the last bits.
bool within_bound(double got, const Reference& ref, ElementType type, const VariantInfo& variant,
                  const clcg::reduction::LaunchShape& shape, std::size_t n) {
  const double u = type == ElementType::f64 ? 0x1.0p-53 : 0x1.0p-24;
  const double threads = static_cast<double>(shape.groups * shape.work_group_size);
  double k = std::ceil(static_cast<double>(n) / threads) + static_cast<double>(shape.work_group_size) + 4;
  if (variant.finish == clcg::reduction::Finish::device) k += static_cast<double>(shape.groups);
  const double bound = k * u < 1 ? k * u / (1 - k * u) * static_cast<double>(ref.magnitude)
                                 : std::numeric_limits<double>::infinity();
  return std::fabs(static_cast<long double>(got) - ref.value) <= bound;
}

// ---- The experiment -------------------------------------------------------------------

struct Config {
  const VariantInfo* variant;
  Op op;
  std::size_t work_group;
  Reducer reducer;
};

struct Row {
  const Config* config;
  std::size_t n;
  std::size_t groups;
  double gpu_ms, upload_ms, cpu_ms;
  double gbps;
  bool ok;
};

std::vector<std::size_t> work_group_sizes(const Options& options, const clcg::cl::DeviceInfo& device) {
  if (!options.work_groups.empty()) return options.work_groups;
  std::vector<std::size_t> sizes;
  for (std::size_t wg = 32; wg <= std::min<std::size_t>(1024, device.max_work_group_size); wg *= 2) sizes.push_back(wg);
  return sizes;
}

// A combination the device cannot run (a size above the kernel's limit, no 64-bit atomics)
// is skipped with a note (once per distinct reason) rather than ending the run; build
// failures still end it.
std::optional<Reducer> try_make_reducer(const clcg::cl::Env& env, const VariantInfo& variant, Op op, std::size_t wg,
                                        ElementType type, std::size_t groups, std::set<std::string>& reported) {
  const auto skip = [&](const std::exception& e) {
    if (reported.insert(e.what()).second) std::cerr << "reduce-bench: skipping: " << e.what() << "\n";
    return std::nullopt;
  };
  try {
    return Reducer(env, op, type, clcg::reduction::Options{variant.name, wg, groups});
  } catch (const std::invalid_argument& e) {
    return skip(e);
  } catch (const clcg::cl::DeviceCapabilityError& e) {
    return skip(e);
  }
}

// One Reducer per (operation, variant, work-group size), built once and reused for every size.
std::vector<Config> make_configs(const clcg::cl::Env& env, const Options& options) {
  std::vector<const VariantInfo*> chosen;
  if (options.variants.empty()) {
    for (const VariantInfo& v : clcg::reduction::variants()) chosen.push_back(&v);
  } else {
    for (const std::string& name : options.variants) chosen.push_back(&clcg::reduction::find_variant(name));
  }
  std::vector<Config> configs;
  std::set<std::string> reported;
  for (Op op : options.ops) {
    for (const VariantInfo* variant : chosen) {
      for (std::size_t wg : work_group_sizes(options, env.info())) {
        if (std::optional<Reducer> reducer = try_make_reducer(env, *variant, op, wg, options.type, options.groups, reported))
          configs.push_back(Config{variant, op, wg, std::move(*reducer)});
      }
    }
  }
  return configs;
}

// 10^3 .. 10^8, up to --max-size and to what one allocation and half the device memory hold.
std::vector<std::size_t> array_sizes(const Options& options, const clcg::cl::DeviceInfo& device) {
  const std::size_t element = clcg::reduction::element_size(options.type);
  const bool two_inputs = std::any_of(options.ops.begin(), options.ops.end(), clcg::reduction::takes_two_inputs);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1000; n <= std::min<std::size_t>(options.max_size, 100'000'000); n *= 10) {
    const std::size_t bytes = n * element;
    if (bytes > device.max_allocation_bytes || (two_inputs ? 2 : 1) * bytes > device.global_memory_bytes / 2) {
      std::cerr << "reduce-bench: sizes from " << n << " on do not fit the device memory; stopping there\n";
      break;
    }
    sizes.push_back(n);
  }
  return sizes;
}

template <class T>
void upload(const ::cl::CommandQueue& queue, const HostInputs<T>& host, const DeviceInputs<T>& device, std::size_t n,
            std::size_t inputs) {
  queue.enqueueWriteBuffer(device.x, CL_FALSE, 0, n * sizeof(T), host.x.data());
  if (inputs == 2) queue.enqueueWriteBuffer(device.y, CL_FALSE, 0, n * sizeof(T), host.y.data());
}

template <class T>
DeviceInputs<T> allocate_inputs(const clcg::cl::Env& env, const HostInputs<T>& host, std::size_t n) {
  return clcg::cl::checked("allocating and filling the inputs of n=" + std::to_string(n), [&] {
    DeviceInputs<T> device;
    device.x = ::cl::Buffer(env.context(), CL_MEM_READ_ONLY, n * sizeof(T));
    device.y = host.y.empty() ? device.x : ::cl::Buffer(env.context(), CL_MEM_READ_ONLY, n * sizeof(T));
    upload(env.queue(), host, device, n, host.y.empty() ? 1 : 2);
    env.queue().finish();
    return device;
  });
}

template <class T>
double run_once(Config& config, const DeviceInputs<T>& device, std::size_t n) {
  if (clcg::reduction::takes_two_inputs(config.op)) return config.reducer.run(device.x, 0, device.y, 0, n).value;
  return config.reducer.run(device.x, 0, n).value;
}

// One configuration at one size: a warm-up call (checked against the reference), then the
// median of run() alone and of upload + run().
template <class T>
Row measure(const clcg::cl::Env& env, Config& config, const HostInputs<T>& host, const DeviceInputs<T>& device,
            std::size_t n, const Reference& ref, double cpu_ms, int repeats) {
  const std::string task = std::string(config.variant->name) + " " + std::string(clcg::reduction::op_name(config.op)) +
                           " n=" + std::to_string(n) + " wg=" + std::to_string(config.work_group);
  return clcg::cl::checked(task, [&] {
    const clcg::reduction::LaunchShape shape = config.reducer.shape(n);
    Row row{&config, n, shape.groups, 0, 0, cpu_ms, 0, false};
    const double first = run_once(config, device, n);
    row.ok = within_bound(first, ref, config.reducer.type(), *config.variant, shape, n);
    row.gpu_ms = median_ms(repeats, [&] { run_once(config, device, n); });
    row.upload_ms = median_ms(repeats, [&] {
      upload(env.queue(), host, device, n, inputs_of(config.op));
      run_once(config, device, n);  // in order: the kernel starts after the writes
    });
    const double bytes = static_cast<double>(n * sizeof(T) * inputs_of(config.op));
    row.gbps = bytes / (row.gpu_ms * 1e-3) / 1e9;
    return row;
  });
}

// ---- Output ---------------------------------------------------------------------------

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

constexpr const char* csv_header =
    "device,variant,op,type,n,wg,groups,gpu_ms,gpu_with_upload_ms,cpu_ms,speedup,gbps,copy_gbps,ratio_to_copy,ok\n";

void write_csv_row(std::ostream& out, const std::string& device, ElementType type, const Row& row, double copy_gbps) {
  out << csv_field(device) << ',' << row.config->variant->name << ',' << clcg::reduction::op_name(row.config->op)
      << ',' << clcg::reduction::type_name(type) << ',' << row.n << ',' << row.config->work_group << ',' << row.groups
      << ',' << std::setprecision(6) << row.gpu_ms << ',' << row.upload_ms << ',' << row.cpu_ms << ','
      << row.cpu_ms / row.gpu_ms << ',' << row.gbps << ',' << copy_gbps << ',' << row.gbps / copy_gbps << ','
      << (row.ok ? 1 : 0) << '\n';
}

// Per operation, per variant and size: the fastest work-group size.
void print_summary(const std::vector<Row>& rows, ElementType type, double copy_gbps) {
  // Keyed by registry position (pointer into variants()), so variants print in registry order.
  std::map<std::tuple<Op, const VariantInfo*, std::size_t>, const Row*> best;
  for (const Row& row : rows) {
    const Row*& slot = best[{row.config->op, row.config->variant, row.n}];
    if (!slot || row.gpu_ms < slot->gpu_ms) slot = &row;
  }
  std::cout << "\ncopy bandwidth " << std::fixed << std::setprecision(1) << copy_gbps
            << " GB/s (bytes read + written); best work-group size per variant and size:\n";
  std::optional<Op> last_op;
  for (const auto& [key, row] : best) {
    if (std::get<0>(key) != last_op) {
      last_op = std::get<0>(key);
      std::cout << "\n" << clcg::reduction::op_name(*last_op) << " (" << clcg::reduction::type_name(type) << ")\n"
                << std::left << std::setw(13) << "variant" << std::right << std::setw(11) << "n" << std::setw(6)
                << "wg" << std::setw(9) << "groups" << std::setw(11) << "us/call" << std::setw(11) << "+upload us"
                << std::setw(9) << "GB/s" << std::setw(8) << "%copy" << std::setw(9) << "speedup" << "  ok\n";
    }
    std::cout << std::left << std::setw(13) << row->config->variant->name << std::right << std::setw(11) << row->n
              << std::setw(6) << row->config->work_group << std::setw(9) << row->groups << std::setprecision(1)
              << std::setw(11) << row->gpu_ms * 1e3 << std::setw(11) << row->upload_ms * 1e3 << std::setw(9)
              << row->gbps << std::setw(8) << 100 * row->gbps / copy_gbps << std::setprecision(2) << std::setw(9)
              << row->cpu_ms / row->gpu_ms << "  " << (row->ok ? "yes" : "NO") << "\n";
  }
}

template <class T>
int run_benchmark(const clcg::cl::Env& env, const Options& options, std::ostream* csv) {
  std::vector<Config> configs = make_configs(env, options);
  const std::vector<std::size_t> sizes = array_sizes(options, env.info());
  if (configs.empty() || sizes.empty()) {
    std::cerr << "reduce-bench: nothing to run on " << env.info().name << "\n";
    return clcg::apps::exit_device;
  }
  const double copy_gbps = measure_copy_gbps(env, copy_buffer_bytes(env.info(), options.quick), options.repeats);
  std::cerr << "reduce-bench: " << env.info().name << " (" << env.info().platform_name << "), copy bandwidth "
            << copy_gbps << " GB/s\n";

  HostInputs<T> host;
  host.x = random_values<T>(sizes.back(), 42);
  if (std::any_of(options.ops.begin(), options.ops.end(), clcg::reduction::takes_two_inputs))
    host.y = random_values<T>(sizes.back(), 43);

  std::vector<Row> rows;
  rows.reserve(configs.size() * sizes.size());
  for (std::size_t n : sizes) {
    std::cerr << "reduce-bench: n = " << n << "\n";
    const DeviceInputs<T> device = allocate_inputs(env, host, n);
    const int repeats = repeats_for(n, options.repeats);
    for (Op op : options.ops) {
      const Reference ref = reference(op, host, n);
      volatile double sink = 0;  // keeps the timed CPU loop from being optimised away
      const double cpu_ms = median_ms(repeats, [&] { sink = cpu_reduce(op, host, n); });
      for (Config& config : configs) {
        if (config.op != op) continue;
        rows.push_back(measure(env, config, host, device, n, ref, cpu_ms, repeats));
        if (csv) write_csv_row(*csv, env.info().name, options.type, rows.back(), copy_gbps);
      }
    }
    if (csv) csv->flush();  // a run cut short still leaves every finished size on disk
  }
  print_summary(rows, options.type, copy_gbps);

  const auto failed = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.ok; });
  if (failed == 0) return 0;
  std::cerr << "reduce-bench: " << failed << " of " << rows.size()
            << " configurations gave a result outside the error bound (ok = 0 in the CSV, NO above)\n";
  return exit_mismatch;
}

}  // namespace

int main(int argc, char** argv) {
  return clcg::apps::app_main(command_line(), argc, argv, [](const po::variables_map& args) {
    const Options options = options_from(args);
    std::ofstream csv;
    if (!options.csv_path.empty()) {
      csv.open(options.csv_path);
      if (!csv) throw UsageError("--csv: cannot write " + options.csv_path);
      csv << csv_header;
    }
    const clcg::cl::Env env =
        clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(options.device, options.platform), /*profiling=*/true);
    std::ostream* out = csv.is_open() ? &csv : nullptr;
    return options.type == ElementType::f64 ? run_benchmark<double>(env, options, out)
                                            : run_benchmark<float>(env, options, out);
  });
}
