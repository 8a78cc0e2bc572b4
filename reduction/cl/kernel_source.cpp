#include "clcg/cl/kernel_source.hpp"

#include <stdexcept>
#include <string>

namespace clcg::cl {

std::string_view kernel_source(std::string_view name) {
  std::string known;
  for (const KernelSource& source : embedded_kernel_sources()) {
    if (source.name == name) return source.text;
    known += known.empty() ? "" : ", ";
    known += source.name;
  }
  throw std::invalid_argument("no embedded OpenCL source named '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace clcg::cl
