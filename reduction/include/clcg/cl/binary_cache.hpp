#pragma once
// Program binaries on disk, so a process that runs again on the same device loads its
// programs instead of compiling them. One file an entry, named by a hash of its key; the entry
// holds the whole key text and a checksum, so a hash collision, a corrupt or a truncated file
// reads as a miss (and is rebuilt). Writes go to a temporary that is then renamed: processes
// writing the same entry at once leave one valid entry. A directory that cannot be created or
// written only costs the rebuild: no call here throws for the disk.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clcg/cl/opencl.hpp"

namespace clcg::cl {

using ProgramBinary = std::vector<unsigned char>;

// Which devices a cache serves. On a CPU device (PoCL) a miss costs much more than the compile
// it saves later: asking PoCL for a binary makes it compile every kernel of the program
// (docs/PERFORMANCE.md: 14 s instead of 1.8 s), while its own kernel cache already serves a
// second run in ~0.5 s. So CPU devices are served only when asked for.
enum class CachedDevices { all, not_cpu };

class BinaryCache {
 public:
  // A cache that stores nothing.
  BinaryCache() = default;
  // A cache in `directory` (created on the first store).
  explicit BinaryCache(std::filesystem::path directory, CachedDevices devices = CachedDevices::all);
  // CLCG_CACHE=0 turns it off, CLCG_CACHE=1 on for every device; unset, it serves every device
  // but CPUs. The directory is $CLCG_CACHE_DIR, else $XDG_CACHE_HOME/clcg, else
  // $HOME/.cache/clcg (off when none is set). Throws std::invalid_argument when CLCG_CACHE is
  // neither 0 nor 1.
  static BinaryCache from_environment();

  bool enabled() const noexcept { return !directory_.empty(); }
  // Whether programs for `device` are looked up and stored here.
  bool serves(const ::cl::Device& device) const;
  const std::filesystem::path& directory() const noexcept { return directory_; }

  // The binary stored under `key`, or nothing (no entry, unreadable, or failing its checks).
  std::optional<ProgramBinary> load(std::string_view key) const;
  // Stores `binary` under `key`; false when it could not be written (nothing is left behind).
  bool store(std::string_view key, const ProgramBinary& binary) const;
  // The file holding `key`'s entry.
  std::filesystem::path entry_path(std::string_view key) const;

 private:
  std::filesystem::path directory_;  // empty: off
  CachedDevices devices_ = CachedDevices::all;
};

// The key of a program: the cache format, the platform's name and version, the device's name,
// its driver version, the build options and every source text in order.
std::string program_cache_key(const ::cl::Device& device, const std::vector<std::string>& sources,
                              const std::string& options);

// 64-bit FNV-1a: names the entry files (the key text inside each entry settles a collision).
std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ull);

}  // namespace clcg::cl
