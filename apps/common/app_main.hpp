#pragma once
// main() of every clcg app but cg-solve (which has its own exit codes, docs/USAGE.md): parse
// the command line, run, and turn every failure into one line "<app>: <what>" and an exit
// status: 2 for a bad command line (with the usage line) or a --device / size the device
// rejects, 3 for an OpenCL or device error, 1 for anything else (a file that cannot be read
// or written); run() returns 0, or 1 when a check it makes fails.
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>

#include "clcg/cl/error.hpp"
#include "command_line.hpp"

namespace clcg::apps {

template <class Run>
int app_main(const CommandLine& cli, int argc, char** argv, Run run) {
  const auto fail = [&](const std::string& message, int status) {
    std::cerr << cli.app() << ": " << message << "\n";
    return status;
  };
  try {
    const std::optional<po::variables_map> args = cli.parse(argc, argv);
    if (!args) return 0;  // --help
    return run(*args);
  } catch (const UsageError& e) {
    return fail(std::string(e.what()) + "\n" + cli.usage_line() + "   (" + cli.app() + " --help lists the options)",
                exit_usage);
  } catch (const clcg::cl::Error& e) {
    return fail(e.what(), exit_device);
  } catch (const ::cl::Error& e) {  // a call outside clcg::cl::checked: still name the code
    return fail(std::string(e.what()) + " failed: " + clcg::cl::describe_error(e.err()), exit_device);
  } catch (const std::invalid_argument& e) {  // a bad --device, or a size above the device's limit
    return fail(e.what(), exit_usage);
  } catch (const std::bad_alloc&) {
    return fail("out of host memory", exit_device);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}

}  // namespace clcg::apps
