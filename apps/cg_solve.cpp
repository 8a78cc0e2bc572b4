// cg-solve: solve A x = b with conjugate gradient on an OpenCL device.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "clcg/cl/device.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/solver/version.hpp"

namespace po = boost::program_options;

namespace {

constexpr int exit_usage = 2;
constexpr int exit_device = 3;

constexpr const char* usage_line =
    "usage: cg-solve --matrix A.mtx [options]   (cg-solve --help for the list)";

int list_devices(const std::string& device, const std::string& platform) {
  const auto devices = clcg::cl::list_devices();
  const clcg::cl::DeviceEntry* chosen = nullptr;
  try {
    chosen = &clcg::cl::select_device(devices, clcg::cl::DeviceSelector::parse(device, platform));
  } catch (const clcg::cl::DeviceNotFound&) {
    chosen = nullptr;  // still list what is there
  }
  if (devices.empty()) {
    std::cerr << "cg-solve: no OpenCL platform or device found (is an ICD such as pocl-opencl-icd installed?)\n";
    return exit_device;
  }
  std::cout << clcg::cl::format_device_list(devices, chosen);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("options");
  options.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("list-devices", "list every OpenCL platform and device, marking the one --device picks")
      ("device", po::value<std::string>()->default_value("auto"), "auto | gpu | cpu | <index> (env CLCG_DEVICE)")
      ("platform", po::value<std::string>()->default_value(""), "platform name substring (env CLCG_PLATFORM)");
  po::variables_map args;
  try {
    po::store(po::parse_command_line(argc, argv, options), args);
    po::notify(args);
  } catch (const po::error& e) {
    std::cerr << "cg-solve: " << e.what() << "\n" << usage_line << "\n";
    return exit_usage;
  }
  if (args.count("help")) {
    std::cout << "cg-solve " << clcg::version() << ": conjugate gradient on an OpenCL device\n"
              << usage_line << "\n\n" << options << "\n";
    return 0;
  }
  if (args.count("version")) {
    std::cout << "cg-solve " << clcg::version() << "\n";
    return 0;
  }
  try {
    if (args.count("list-devices")) return list_devices(args["device"].as<std::string>(), args["platform"].as<std::string>());
  } catch (const clcg::cl::Error& e) {
    std::cerr << "cg-solve: " << e.what() << "\n";
    return exit_device;
  } catch (const std::invalid_argument& e) {
    std::cerr << "cg-solve: " << e.what() << "\n" << usage_line << "\n";
    return exit_usage;
  }
  std::cerr << "cg-solve: --matrix is required\n" << usage_line << "\n";
  return exit_usage;
}
