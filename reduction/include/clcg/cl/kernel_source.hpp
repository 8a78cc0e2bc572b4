#pragma once
// The OpenCL C sources compiled into the library at build time (kernels/*.cl).
#include <span>
#include <string_view>

namespace clcg::cl {

struct KernelSource {
  std::string_view name;  // file name, e.g. "reduce_grid_stride.cl"
  std::string_view text;
};

// Every embedded source, in the order of kernels/kernels.cmake.
std::span<const KernelSource> embedded_kernel_sources() noexcept;

// The source called `name`; throws std::invalid_argument listing the known names if absent.
std::string_view kernel_source(std::string_view name);

}  // namespace clcg::cl
