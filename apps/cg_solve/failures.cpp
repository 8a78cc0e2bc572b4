#include "failures.hpp"

#include <new>

#include "clcg/cl/error.hpp"
#include "clcg/solver/io/input_error.hpp"
#include "clcg/solver/sparse/device_memory.hpp"

namespace cg_solve {

volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int) { interrupted = 1; }

Failure describe_failure(std::exception_ptr error, const CliOptions& cli) {
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    return {exit_input, std::string(e.what()) + "\n" + usage_line};
  } catch (const clcg::solver::InputError& e) {
    return {exit_input, e.what()};
  } catch (const OutputError& e) {
    return {exit_input, std::string(e.what()) + "; nothing was written"};
  } catch (const EnvironmentError& e) {
    return {exit_input, e.what()};
  } catch (const std::length_error& e) {  // sizes beyond 32-bit CSR indices
    return {exit_input, (cli.matrix.empty() ? cli.generate : cli.matrix) + ": " + e.what()};
  } catch (const clcg::solver::DeviceMemoryError& e) {
    return {exit_device, e.what()};
  } catch (const clcg::cl::Error& e) {
    return {exit_device, e.what()};
  } catch (const Interrupted& e) {
    return {exit_interrupted, e.what + "; no output written"};
  } catch (const std::bad_alloc&) {
    return {exit_device, "out of host memory"};
  } catch (const std::exception& e) {
    return {exit_device, e.what()};
  }
  return {exit_device, "unknown error"};
}

}  // namespace cg_solve
