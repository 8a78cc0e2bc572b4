#include "clcg/cl/program_cache.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/cl/kernel_source.hpp"

namespace clcg::cl {

std::string expand_includes(const std::string& name, std::string_view text, int depth) {
  if (depth > 8) throw std::invalid_argument("embedded OpenCL sources include each other too deeply: " + name);
  std::string out = "#line 1 \"" + name + "\"\n";  // compiler messages point at the right file and line
  std::size_t line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view current = text.substr(at, end - at);
    constexpr std::string_view directive = "#include \"";
    if (current.starts_with(directive) && current.ends_with("\"")) {
      const std::string included(current.substr(directive.size(), current.size() - directive.size() - 1));
      out += expand_includes(included, kernel_source(included), depth + 1);
      out += "#line " + std::to_string(line + 1) + " \"" + name + "\"\n";
    } else {
      out.append(current);
      out += '\n';
    }
    at = end + 1;
  }
  return out;
}

namespace {

// What clcg hands the compiler: common.cl, then the program's text with its includes expanded.
std::vector<std::string> program_sources(const std::string& name, std::string_view text) {
  std::vector<std::string> sources;
  if (name != "common.cl") sources.emplace_back(kernel_source("common.cl"));
  sources.push_back(expand_includes(name, text, 0));
  return sources;
}

std::string full_options(const std::string& options) { return "-cl-std=CL1.2 " + options; }

::cl::Program compile(const ::cl::Context& context, const ::cl::Device& device, const std::string& name,
                      const std::vector<std::string>& sources, const std::string& all_options) {
  ::cl::Program program = checked("creating program " + name, [&] { return ::cl::Program(context, sources); });
  try {
    program.build(std::vector<::cl::Device>{device}, all_options.c_str());
  } catch (const ::cl::BuildError& e) {
    std::string log;
    for (const auto& [dev, text_log] : e.getBuildLog()) log += text_log;
    throw BuildError(e.err(), name, all_options, log, device.getInfo<CL_DEVICE_NAME>());
  } catch (const ::cl::Error& e) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const ::cl::Error&) {
      log = "(no build log available)";
    }
    throw BuildError(e.err(), name, all_options, log, device.getInfo<CL_DEVICE_NAME>());
  }
  return program;
}

// The program from a cached binary, or nothing when the driver refuses it (another driver
// wrote it, or it is damaged in a way the entry's checksum cannot see): then it is rebuilt.
std::optional<::cl::Program> load_binary(const ::cl::Context& context, const ::cl::Device& device,
                                         const ProgramBinary& binary, const std::string& all_options) {
  try {
    ::cl::Program program(context, {device}, ::cl::Program::Binaries{binary});
    program.build(std::vector<::cl::Device>{device}, all_options.c_str());
    return program;
  } catch (const ::cl::Error&) {
    return std::nullopt;
  }
}

ProgramBinary binary_of(const ::cl::Program& program) {
  try {
    std::vector<ProgramBinary> binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    return binaries.size() == 1 ? std::move(binaries[0]) : ProgramBinary{};
  } catch (const ::cl::Error&) {
    return {};  // not stored: the next process compiles again
  }
}

}  // namespace

::cl::Program build_program(const ::cl::Context& context, const ::cl::Device& device,
                            const std::string& name, std::string_view text, const std::string& options) {
  return compile(context, device, name, program_sources(name, text), full_options(options));
}

std::string program_disk_key(const ::cl::Device& device, const std::string& name, std::string_view text,
                             const std::string& options) {
  return program_cache_key(device, program_sources(name, text), full_options(options));
}

ProgramCache::ProgramCache() : ProgramCache(BinaryCache::from_environment()) {}

ProgramCache::ProgramCache(BinaryCache disk) : disk_(std::move(disk)) {}

::cl::Program ProgramCache::get(const ::cl::Context& context, const ::cl::Device& device,
                                std::string_view source_name, const std::string& options) {
  return get_from_text(context, device, std::string(source_name), kernel_source(source_name), options);
}

::cl::Program ProgramCache::get_from_text(const ::cl::Context& context, const ::cl::Device& device,
                                          const std::string& name, std::string_view text,
                                          const std::string& options) {
  Key key{context(), device(), name, options};
  // Building under the lock: a second thread asking for the same program waits for the first
  // build instead of building it again. Builds are rare, so serialising them costs little.
  std::lock_guard lock(mutex_);
  if (auto found = programs_.find(key); found != programs_.end()) return found->second.program;
  const auto start = std::chrono::steady_clock::now();
  ::cl::Program program = make(context, device, name, text, options);
  build_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++builds_;
  programs_.emplace(std::move(key), Entry{context, program});
  return program;
}

::cl::Program ProgramCache::make(const ::cl::Context& context, const ::cl::Device& device, const std::string& name,
                                 std::string_view text, const std::string& options) {
  const std::vector<std::string> sources = program_sources(name, text);
  const std::string all_options = full_options(options);
  if (!disk_.serves(device)) return compile(context, device, name, sources, all_options);
  const std::string disk_key = program_cache_key(device, sources, all_options);
  if (const std::optional<ProgramBinary> binary = disk_.load(disk_key)) {
    if (std::optional<::cl::Program> program = load_binary(context, device, *binary, all_options)) {
      ++loaded_;
      return *program;
    }
  }
  ::cl::Program program = compile(context, device, name, sources, all_options);
  disk_.store(disk_key, binary_of(program));  // a failed store only costs the next process a build
  return program;
}

std::size_t ProgramCache::builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
}

std::size_t ProgramCache::loaded_from_disk() const {
  std::lock_guard lock(mutex_);
  return loaded_;
}

double ProgramCache::build_seconds() const {
  std::lock_guard lock(mutex_);
  return build_seconds_;
}

std::size_t ProgramCache::size() const {
  std::lock_guard lock(mutex_);
  return programs_.size();
}

}  // namespace clcg::cl
