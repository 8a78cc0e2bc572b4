#include "clcg/cl/binary_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <system_error>

namespace clcg::cl {
namespace {

// An entry: this line (the format's version: bump it when the layout or the key changes), then
// the key's size and text, the binary's size and bytes, and the FNV-1a of everything before it.
// Sizes and the checksum are 8 bytes, little-endian.
constexpr std::string_view entry_magic = "clcg program binary 1\n";

void append_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out += char((value >> (8 * i)) & 0xff);
}

// Reads 8 bytes at `at` (advanced); nothing when fewer remain.
std::optional<std::uint64_t> read_u64(std::string_view in, std::size_t& at) {
  if (in.size() - at < 8) return std::nullopt;
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= std::uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
  at += 8;
  return value;
}

// A name no other thread or process picks for its temporary at the same time.
std::string temporary_suffix() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char text[32];
  std::snprintf(text, sizeof text, ".tmp%016llx", static_cast<unsigned long long>(random()));
  return text;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t hash) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

BinaryCache::BinaryCache(std::filesystem::path directory, CachedDevices devices)
    : directory_(std::move(directory)), devices_(devices) {}

bool BinaryCache::serves(const ::cl::Device& device) const {
  if (!enabled()) return false;
  return devices_ == CachedDevices::all || (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) == 0;
}

BinaryCache BinaryCache::from_environment() {
  const std::string switch_value = environment("CLCG_CACHE");
  if (switch_value == "0") return BinaryCache();
  if (!switch_value.empty() && switch_value != "1")
    throw std::invalid_argument("CLCG_CACHE must be 0 (build every program) or 1 (keep program binaries on disk), got '" +
                                switch_value + "'");
  const CachedDevices devices = switch_value == "1" ? CachedDevices::all : CachedDevices::not_cpu;
  if (const std::string dir = environment("CLCG_CACHE_DIR"); !dir.empty()) return BinaryCache(dir, devices);
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return BinaryCache(std::filesystem::path(xdg) / "clcg", devices);
  if (const std::string home = environment("HOME"); !home.empty())
    return BinaryCache(std::filesystem::path(home) / ".cache" / "clcg", devices);
  return BinaryCache();
}

std::filesystem::path BinaryCache::entry_path(std::string_view key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(fnv1a_64(key)));
  return directory_ / name;
}

std::optional<ProgramBinary> BinaryCache::load(std::string_view key) const {
  if (!enabled()) return std::nullopt;
  std::ifstream file(entry_path(key), std::ios::binary);
  if (!file) return std::nullopt;
  const std::string entry((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad() || !std::string_view(entry).starts_with(entry_magic)) return std::nullopt;
  std::size_t at = entry_magic.size();
  const auto key_size = read_u64(entry, at);
  if (!key_size || *key_size > entry.size() - at || std::string_view(entry).substr(at, *key_size) != key)
    return std::nullopt;
  at += *key_size;
  const auto binary_size = read_u64(entry, at);
  if (!binary_size || *binary_size > entry.size() - at) return std::nullopt;
  const std::size_t binary_at = at;
  at += *binary_size;
  const std::size_t checked_size = at;
  const auto checksum = read_u64(entry, at);
  if (!checksum || at != entry.size() || *checksum != fnv1a_64(std::string_view(entry).substr(0, checked_size)))
    return std::nullopt;
  return ProgramBinary(entry.begin() + std::ptrdiff_t(binary_at), entry.begin() + std::ptrdiff_t(binary_at + *binary_size));
}

bool BinaryCache::store(std::string_view key, const ProgramBinary& binary) const {
  if (!enabled() || binary.empty()) return false;
  std::string entry(entry_magic);
  append_u64(entry, key.size());
  entry.append(key);
  append_u64(entry, binary.size());
  entry.append(binary.begin(), binary.end());
  append_u64(entry, fnv1a_64(entry));

  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  const std::filesystem::path target = entry_path(key);
  std::filesystem::path temporary = target;
  temporary += temporary_suffix();
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) return false;
    file.write(entry.data(), std::streamsize(entry.size()));
    file.close();
    if (!file) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  // A reader sees the old entry, no entry, or this whole one: never part of one.
  std::filesystem::rename(temporary, target, error);
  if (!error) return true;
  std::filesystem::remove(temporary, error);
  return false;
}

std::string program_cache_key(const ::cl::Device& device, const std::vector<std::string>& sources,
                              const std::string& options) {
  const ::cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  std::string key = std::string(entry_magic);
  key += "platform " + platform.getInfo<CL_PLATFORM_NAME>() + " | " + platform.getInfo<CL_PLATFORM_VERSION>() + "\n";
  key += "device " + device.getInfo<CL_DEVICE_NAME>() + "\n";
  key += "driver " + device.getInfo<CL_DRIVER_VERSION>() + "\n";
  key += "options " + options + "\n";
  for (const std::string& source : sources) {
    key += "source " + std::to_string(source.size()) + "\n";  // the size keeps sources apart
    key += source;
  }
  return key;
}

}  // namespace clcg::cl
