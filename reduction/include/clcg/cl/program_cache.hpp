#pragma once
// Programs built once per (context, device, source, options), shared by whoever holds the
// cache. Not a process singleton: each Env owns one (copies of an Env share it). A program not
// yet in memory is first looked up on disk (binary_cache.hpp), so a process that runs again on
// the same device loads its binaries instead of compiling them.
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "clcg/cl/binary_cache.hpp"
#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

class ProgramCache {
 public:
  // Binaries on disk where the environment says (BinaryCache::from_environment; it throws
  // std::invalid_argument for a malformed CLCG_CACHE, and so do the Env constructors).
  ProgramCache();
  explicit ProgramCache(BinaryCache disk);

  // Builds common.cl + `source_name` for `device` on first use; later calls return the same
  // program. Thread-safe. Throws BuildError with the build log on failure.
  ::cl::Program get(const ::cl::Context& context, const ::cl::Device& device,
                    std::string_view source_name, const std::string& options);
  // Same, for source text that is not embedded (tests, user kernels); `name` is the cache key.
  ::cl::Program get_from_text(const ::cl::Context& context, const ::cl::Device& device,
                              const std::string& name, std::string_view text, const std::string& options);
  std::size_t builds() const;  // how many programs were made: compiled, or loaded from disk
  std::size_t loaded_from_disk() const;  // how many of those were loaded from disk
  double build_seconds() const;  // wall time spent making them (compiling, or loading a binary)
  std::size_t size() const;
  const BinaryCache& disk() const noexcept { return disk_; }

 private:
  using Key = std::tuple<cl_context, cl_device_id, std::string, std::string>;
  struct Entry {
    ::cl::Context context;  // retained, so the handle in the key cannot be reused while cached
    ::cl::Program program;
  };
  ::cl::Program make(const ::cl::Context& context, const ::cl::Device& device, const std::string& name,
                     std::string_view text, const std::string& options);

  BinaryCache disk_;
  mutable std::mutex mutex_;
  std::map<Key, Entry> programs_;
  std::size_t builds_ = 0, loaded_ = 0;
  double build_seconds_ = 0;
};

// `text` with each line `#include "name.cl"` replaced by that embedded source (OpenCL's own
// #include cannot see embedded files), and #line directives that keep compiler messages
// pointing at each file's own lines.
std::string expand_includes(const std::string& name, std::string_view text, int depth = 0);

// The key of the program common.cl + text (includes expanded) built with `options` in the disk
// cache (program_cache_key of binary_cache.hpp).
std::string program_disk_key(const ::cl::Device& device, const std::string& name, std::string_view text,
                             const std::string& options);

// Builds common.cl + text (includes expanded) into a program for one device (no caching).
// Throws BuildError.
::cl::Program build_program(const ::cl::Context& context, const ::cl::Device& device,
                            const std::string& name, std::string_view text, const std::string& options);

}  // namespace clcg::cl
