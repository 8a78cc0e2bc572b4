#pragma once
// main() of a Boost-free app (pi, roundtrip-bench): parse the command line, run, and turn
// every failure into one line naming the app and an exit status: 2 for a bad command line
// (or a --device / size the device rejects), 3 for an OpenCL or device error.
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>

#include "clcg/cl/error.hpp"

namespace clcg::apps {

inline constexpr int exit_usage = 2;
inline constexpr int exit_device = 3;

// parse(argc, argv) -> std::optional<Options> (nullopt: --help was asked for); run(options) -> exit status.
template <class Parse, class Run>
int app_main(const char* name, const char* usage_text, int argc, char** argv, Parse parse, Run run) {
  decltype(parse(argc, argv)) options;
  try {
    options = parse(argc, argv);
  } catch (const std::invalid_argument& e) {  // UsageError and friends
    std::cerr << name << ": " << e.what() << "\ntry " << name << " --help\n";
    return exit_usage;
  }
  if (!options) {
    std::cout << usage_text;
    return 0;
  }
  try {
    return run(*options);
  } catch (const clcg::cl::Error& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return exit_device;
  } catch (const ::cl::Error& e) {  // a call outside clcg::cl::checked: still name the code
    std::cerr << name << ": " << e.what() << " failed: " << clcg::cl::describe_error(e.err()) << "\n";
    return exit_device;
  } catch (const std::invalid_argument& e) {  // a bad --device, or a size above the device's limit
    std::cerr << name << ": " << e.what() << "\n";
    return exit_usage;
  } catch (const std::bad_alloc&) {
    std::cerr << name << ": out of host memory\n";
    return exit_device;
  }
}

}  // namespace clcg::apps
