#pragma once
// How cg-solve ends: its exit codes, the errors main() and the MPI run turn into them, and the
// one message each gives (DESIGN.md: 0 converged, 1 not, 2 input, 3 device, 130 interrupted).
#include <csignal>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli_options.hpp"

namespace cg_solve {

constexpr int exit_converged = 0, exit_not_converged = 1, exit_input = 2, exit_device = 3, exit_interrupted = 130;

extern volatile std::sig_atomic_t interrupted;  // set by SIGINT / SIGTERM
extern "C" void on_interrupt(int);

// Stops the run with exit 130; `what` says where (e.g. "interrupted at iteration 812").
struct Interrupted {
  std::string what = "interrupted";
};

// A malformed environment variable the library reads (CLCG_DEVICE_MEMORY_LIMIT=lots): exit 2.
// An output could not be written (disk full, I/O error): exit 2, like any input problem.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The library throws std::invalid_argument for a malformed environment variable while it
// queries the devices; every other failure there is an OpenCL / device error.
template <class F>
decltype(auto) reading_environment(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    throw EnvironmentError(e.what());
  }
}

struct Failure {
  int code = 0;  // 0: none
  std::string message;
};

// The exit code and message for the exception `error` (the one being handled).
Failure describe_failure(std::exception_ptr error, const CliOptions& cli);

}  // namespace cg_solve
