// roundtrip-bench: what one reduction's round trip costs on an OpenCL platform, piece by
// piece. The library's own dot kernel (x . y, two arrays of ones) (variant unrolled, the library's launch shape) runs
// at 10^3, 10^6 and 10^7 doubles, and each way of getting its partials to the host is timed
// round-robin (call 1 of every method, then call 2 of every method, ...) so that drift in the
// machine's state hits every method alike. Median of --repeats calls after 10 warm-ups.
//
//   roundtrip-bench [--device D] [--platform S] [--repeats R]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/app_main.hpp"
#include "common/bench_timing.hpp"
#include "common/command_line.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/reduction/reduce.hpp"

namespace {

namespace reduction = clcg::reduction;

constexpr int exit_wrong = 1;
constexpr int warm_ups = 10;
constexpr std::size_t largest = 10'000'000;

namespace po = clcg::apps::po;

struct Options {
  std::string device = "auto", platform;
  int repeats = 400;
};

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("roundtrip-bench", "roundtrip-bench [options]",
                              "Times a dot product's kernel with and without each way of reading its partials back.");
  cli.add()
      ("repeats", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{400}, "400"),
       "timed calls per method and size, median taken (1 .. 100000)");
  cli.add_device_options();
  return cli;
}

Options options_from(const po::variables_map& args) {
  Options options;
  options.device = args["device"].as<std::string>();
  options.platform = args["platform"].as<std::string>();
  options.repeats = static_cast<int>(clcg::apps::count_in_range(args, "repeats", 1, 100000));
  return options;
}

struct Method {
  const char* name;
  std::function<double()> call;  // one round trip; returns the dot (NaN: nothing read back)
  std::vector<double> samples;
};

int run(const Options& options) {
  const clcg::cl::Env env = clcg::cl::Env::create(clcg::cl::DeviceSelector::parse(options.device, options.platform));
  if (!env.info().fp64) throw clcg::cl::DeviceCapabilityError("roundtrip-bench", env.info().name + " has no fp64");
  ::cl::CommandQueue queue = env.queue();  // a handle to the Env's queue
  const ::cl::Context& context = env.context();
  ::cl::Buffer x(context, CL_MEM_READ_ONLY, largest * sizeof(double)), y(context, CL_MEM_READ_ONLY, largest * sizeof(double));
  queue.enqueueFillBuffer(x, 1.0, 0, largest * sizeof(double));
  queue.enqueueFillBuffer(y, 1.0, 0, largest * sizeof(double));
  reduction::Options shape_options;
  shape_options.variant = "unrolled";
  reduction::Reducer reducer(env, reduction::Op::dot, reduction::ElementType::f64, shape_options);
  const std::size_t wg = 256;
  ::cl::Kernel kernel = env.kernel("reduce_unrolled.cl", "reduce_partials",
                                   reduction::op_build_options(reduction::Op::dot, reduction::ElementType::f64) +
                                       " -D WG_SIZE=" + std::to_string(wg));
  const std::size_t max_groups = 4096;
  ::cl::Buffer partials(context, CL_MEM_READ_WRITE, max_groups * sizeof(double));
  ::cl::Buffer indices(context, CL_MEM_READ_WRITE, max_groups * sizeof(std::uint64_t));
  ::cl::Buffer host_visible(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, max_groups * sizeof(double));
  const clcg::cl::PinnedBuffer pinned(env, max_groups * sizeof(double));
  std::vector<double> pageable(max_groups);
  std::printf("roundtrip-bench: %s (%s); dot of n doubles, unrolled kernel, wg %zu; median of %d round-robin calls\n",
              env.info().name.c_str(), env.info().platform_name.c_str(), wg, options.repeats);
  std::printf("%-9s %6s  %-58s %9s %9s\n", "n", "groups", "method", "us", "GB/s");
  bool all_right = true;
  for (const std::size_t n : {std::size_t{1000}, std::size_t{1'000'000}, largest}) {
    const std::size_t groups = reduction::choose_launch_shape(env.info(), reduction::find_variant("unrolled"), n,
                                                              shape_options, wg)
                                   .groups;
    auto launch = [&](const ::cl::Buffer& out) {
      kernel.setArg(0, x), kernel.setArg(1, cl_ulong{0}), kernel.setArg(2, y), kernel.setArg(3, cl_ulong{0});
      kernel.setArg(4, static_cast<cl_ulong>(n)), kernel.setArg(5, out), kernel.setArg(6, indices);
      kernel.setArg(7, ::cl::Local(wg * sizeof(double)));
      queue.enqueueNDRangeKernel(kernel, ::cl::NullRange, ::cl::NDRange(groups * wg), ::cl::NDRange(wg));
    };
    auto sum = [&](const double* p) {
      double s = 0;
      for (std::size_t g = 0; g < groups; ++g) s += p[g];
      return s;
    };
    const std::size_t bytes = groups * sizeof(double);
    auto* pin = reinterpret_cast<double*>(pinned.data());
    std::vector<Method> methods{
        {"kernel + finish(), no read-back (the floor)", [&] { launch(partials), queue.finish(); return -1.0; }, {}},
        {"kernel + non-blocking read, pinned + finish() (Reducer)",
         [&] {
           launch(partials);
           queue.enqueueReadBuffer(partials, CL_FALSE, 0, bytes, pin);
           queue.finish();
           return sum(pin);
         },
         {}},
        {"kernel + blocking read, pinned",
         [&] {
           launch(partials);
           queue.enqueueReadBuffer(partials, CL_TRUE, 0, bytes, pin);
           return sum(pin);
         },
         {}},
        {"kernel + blocking read, pageable",
         [&] {
           launch(partials);
           queue.enqueueReadBuffer(partials, CL_TRUE, 0, bytes, pageable.data());
           return sum(pageable.data());
         },
         {}},
        {"kernel into ALLOC_HOST_PTR + map + finish() + unmap",
         [&] {
           launch(host_visible);
           auto* mapped = static_cast<double*>(queue.enqueueMapBuffer(host_visible, CL_FALSE, CL_MAP_READ, 0, bytes));
           queue.finish();
           const double s = sum(mapped);
           queue.enqueueUnmapMemObject(host_visible, mapped);
           return s;
         },
         {}},
        {"Reducer::run end to end (+ checks, compensated finish)",
         [&] { return reducer.run(x, 0, y, 0, n).value; }, {}},
    };
    for (int r = 0; r < warm_ups + options.repeats; ++r)
      for (Method& m : methods) {
        const auto start = std::chrono::steady_clock::now();
        const double value = m.call();
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (value >= 0 && value != double(n)) {
          std::fprintf(stderr, "roundtrip-bench: %s gave %.17g for n = %zu\n", m.name, value, n);
          all_right = false;
        }
        if (r >= warm_ups) m.samples.push_back(us);
      }
    queue.finish();
    for (Method& m : methods) {
      const double us = clcg::apps::median(m.samples);
      std::printf("%-9zu %6zu  %-58s %9.2f %9.1f\n", n, groups, m.name, us, 16.0 * double(n) / us * 1e-3);
    }
  }
  return all_right ? 0 : exit_wrong;
}

}  // namespace

int main(int argc, char** argv) {
  return clcg::apps::app_main(command_line(), argc, argv, [](const po::variables_map& args) { return run(options_from(args)); });
}
