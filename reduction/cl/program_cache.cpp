#include "clcg/cl/program_cache.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

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

::cl::Program build_program(const ::cl::Context& context, const ::cl::Device& device,
                            const std::string& name, std::string_view text, const std::string& options) {
  const std::string body = expand_includes(name, text, 0);
  ::cl::Program::Sources sources{body};
  if (name != "common.cl") sources.insert(sources.begin(), std::string(kernel_source("common.cl")));
  ::cl::Program program = checked("creating program " + name, [&] { return ::cl::Program(context, sources); });
  const std::string all_options = "-cl-std=CL1.2 " + options;
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
  ::cl::Program program = build_program(context, device, name, text, options);
  build_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++builds_;
  programs_.emplace(std::move(key), Entry{context, program});
  return program;
}

std::size_t ProgramCache::builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
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
