// The program binaries on disk (clcg/cl/binary_cache.hpp): a hit gives the same kernels, a
// damaged entry is rebuilt, concurrent writers leave a valid entry, CLCG_CACHE=0 turns it off
// (and unset, CPU devices are left out).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clcg/cl/binary_cache.hpp"
#include "clcg/cl/program_cache.hpp"
#include "support/device_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using clcg::cl::BinaryCache;
using clcg::cl::ProgramBinary;
using clcg::cl::ProgramCache;
using clcg::test::test_env;

// A fresh directory for one test, removed afterwards.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("clcg_binary_cache_" + std::string(test->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, ignored);
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets an environment variable for one scope; restores it afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

const char* const scale_text = "__kernel void scale(__global float* x, float a) { x[get_global_id(0)] *= a; }";

// x = {1, 2, 3, 4} scaled by 3 with the program's `scale` kernel.
std::vector<float> run_scale(const cl::Program& program) {
  const auto& env = test_env();
  std::vector<float> x = {1, 2, 3, 4};
  cl::Buffer buffer(env.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * sizeof(float), x.data());
  cl::Kernel kernel(program, "scale");
  kernel.setArg(0, buffer);
  kernel.setArg(1, 3.0f);
  env.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(x.size()));
  env.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, x.size() * sizeof(float), x.data());
  return x;
}

cl::Program get_scale(ProgramCache& cache) {
  return cache.get_from_text(test_env().context(), test_env().device(), "scale.cl", scale_text, "-DCLCG_TEST=1");
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

// The one entry file of a cache directory that holds one program.
fs::path only_entry(const fs::path& dir) {
  std::vector<fs::path> entries;
  for (const auto& item : fs::directory_iterator(dir)) entries.push_back(item.path());
  EXPECT_EQ(entries.size(), 1u);
  return entries.empty() ? fs::path() : entries[0];
}

// Builds `scale` through a cache in `dir` (empty before) and returns the entry it wrote.
fs::path cache_scale_in(const fs::path& dir) {
  ProgramCache cache{BinaryCache(dir)};
  get_scale(cache);
  return only_entry(dir);
}

TEST(BinaryCache, ASecondProcessLoadsTheProgramAndGetsTheSameKernels) {
  TemporaryDirectory dir;
  ProgramCache first{BinaryCache(dir.path())};
  const cl::Program built = get_scale(first);
  EXPECT_EQ(first.builds(), 1u);
  EXPECT_EQ(first.loaded_from_disk(), 0u);
  ASSERT_TRUE(fs::exists(only_entry(dir.path())));

  ProgramCache second{BinaryCache(dir.path())};  // a new cache: what the next process has
  const cl::Program loaded = get_scale(second);
  EXPECT_EQ(second.builds(), 1u);
  EXPECT_EQ(second.loaded_from_disk(), 1u);
  EXPECT_EQ(loaded.getInfo<CL_PROGRAM_KERNEL_NAMES>(), built.getInfo<CL_PROGRAM_KERNEL_NAMES>());
  EXPECT_EQ(run_scale(loaded), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(run_scale(loaded), run_scale(built));
}

TEST(BinaryCache, OtherOptionsOrSourceAreOtherEntries) {
  TemporaryDirectory dir;
  ProgramCache first{BinaryCache(dir.path())};
  get_scale(first);
  ProgramCache second{BinaryCache(dir.path())};
  const auto& env = test_env();
  second.get_from_text(env.context(), env.device(), "scale.cl", scale_text, "-DCLCG_TEST=2");
  second.get_from_text(env.context(), env.device(), "scale.cl", std::string(scale_text) + "\n// another text", "-DCLCG_TEST=1");
  EXPECT_EQ(second.loaded_from_disk(), 0u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 3);
}

TEST(BinaryCache, TruncatedOrCorruptEntriesAreMissesAndGetRebuilt) {
  TemporaryDirectory dir;
  const fs::path entry = cache_scale_in(dir.path());
  const std::string good = read_all(entry);
  ASSERT_GT(good.size(), 64u);
  std::vector<std::pair<std::string, std::string>> damaged = {
      {"empty", ""}, {"header only", good.substr(0, 30)}, {"one byte short", good.substr(0, good.size() - 1)},
      {"half", good.substr(0, good.size() / 2)}, {"one byte more", good + "x"}};
  for (std::size_t at : {std::size_t(5), good.size() / 3, good.size() / 2, good.size() - 3}) {
    std::string flipped = good;
    flipped[at] = char(flipped[at] ^ 0x20);
    damaged.emplace_back("byte " + std::to_string(at) + " flipped", flipped);
  }
  for (const auto& [what, bytes] : damaged) {
    SCOPED_TRACE(what);
    write_all(entry, bytes);
    ProgramCache next{BinaryCache(dir.path())};
    const cl::Program program = get_scale(next);
    EXPECT_EQ(next.loaded_from_disk(), 0u);
    EXPECT_EQ(run_scale(program), (std::vector<float>{3, 6, 9, 12}));
    EXPECT_EQ(read_all(entry).size(), good.size()) << "the rebuild replaces the damaged entry";
    ProgramCache after{BinaryCache(dir.path())};
    get_scale(after);
    EXPECT_EQ(after.loaded_from_disk(), 1u);
  }
}

TEST(BinaryCache, ABinaryTheDriverRefusesIsRebuilt) {
  // A well-formed entry whose binary is not a program (another driver's, or damaged before it
  // was stored): clBuildProgram refuses it and the program is compiled from source.
  TemporaryDirectory dir;
  const fs::path entry = cache_scale_in(dir.path());
  const std::string good = read_all(entry);
  const BinaryCache disk(dir.path());
  const std::string key = clcg::cl::program_disk_key(test_env().device(), "scale.cl", scale_text, "-DCLCG_TEST=1");
  ASSERT_EQ(disk.entry_path(key), entry);
  ASSERT_TRUE(disk.load(key).has_value());
  ASSERT_TRUE(disk.store(key, ProgramBinary(4096, 0x5a)));
  ProgramCache next{BinaryCache(dir.path())};
  EXPECT_EQ(run_scale(get_scale(next)), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(next.loaded_from_disk(), 0u);
  EXPECT_EQ(read_all(entry), good) << "the rebuild stores the good binary again";
}

TEST(BinaryCache, LoadChecksTheWholeKeyNotJustItsHash) {
  TemporaryDirectory dir;
  const BinaryCache disk(dir.path());
  const ProgramBinary binary = {1, 2, 3, 4, 5};
  ASSERT_TRUE(disk.store("key one", binary));
  EXPECT_EQ(disk.load("key one"), binary);
  EXPECT_FALSE(disk.load("key two").has_value());
  // Another key's entry under this key's file name (a hash collision) is a miss.
  fs::copy_file(disk.entry_path("key one"), disk.entry_path("key two"));
  EXPECT_FALSE(disk.load("key two").has_value());
}

TEST(BinaryCache, WritersAtOnceLeaveOneWholeEntry) {
  // Threads of one process race exactly as processes do: each writes its own temporary and
  // renames it over the entry. A reader must only ever see a whole entry.
  TemporaryDirectory dir;
  const BinaryCache disk(dir.path());
  const std::string key = "one key for every writer";
  std::vector<ProgramBinary> written;
  for (int w = 0; w < 4; ++w) written.emplace_back(std::size_t(20000 + 1000 * w), static_cast<unsigned char>(w + 1));
  std::vector<std::thread> threads;
  std::atomic<int> stores_failed = 0, partial_reads = 0;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 50; ++i)
        if (!disk.store(key, written[std::size_t(w)])) ++stores_failed;
    });
  threads.emplace_back([&] {
    for (int i = 0; i < 200; ++i)
      if (const auto seen = disk.load(key); seen && std::find(written.begin(), written.end(), *seen) == written.end())
        ++partial_reads;
  });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(stores_failed, 0);
  EXPECT_EQ(partial_reads, 0);
  const auto last = disk.load(key);
  ASSERT_TRUE(last.has_value());
  EXPECT_NE(std::find(written.begin(), written.end(), *last), written.end());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << "no temporary left";
}

TEST(BinaryCache, AnUnwritableDirectoryOnlyCostsTheRebuild) {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "a file, not a directory";
  write_all(file, "x");
  ProgramCache cache{BinaryCache(file / "clcg")};
  EXPECT_EQ(run_scale(get_scale(cache)), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(cache.builds(), 1u);
  EXPECT_FALSE(BinaryCache(file / "clcg").store("key", {1, 2, 3}));
}

TEST(BinaryCache, EnvironmentChoosesTheDirectoryAndCanTurnItOff) {
  ScopedEnvironment cache_dir("CLCG_CACHE_DIR", "/some/where");
  ScopedEnvironment xdg("XDG_CACHE_HOME", "/xdg");
  ScopedEnvironment home("HOME", "/home/me");
  {
    ScopedEnvironment on("CLCG_CACHE", nullptr);
    EXPECT_EQ(BinaryCache::from_environment().directory(), fs::path("/some/where"));
    ScopedEnvironment no_dir("CLCG_CACHE_DIR", nullptr);
    EXPECT_EQ(BinaryCache::from_environment().directory(), fs::path("/xdg/clcg"));
    ScopedEnvironment no_xdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(BinaryCache::from_environment().directory(), fs::path("/home/me/.cache/clcg"));
    ScopedEnvironment no_home("HOME", nullptr);
    EXPECT_FALSE(BinaryCache::from_environment().enabled());
  }
  const cl::Device& device = test_env().device();
  const bool cpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  {
    ScopedEnvironment unset("CLCG_CACHE", nullptr);
    EXPECT_TRUE(BinaryCache::from_environment().enabled());
    EXPECT_EQ(BinaryCache::from_environment().serves(device), !cpu) << "a CPU device only when asked for";
    ScopedEnvironment on("CLCG_CACHE", "1");
    EXPECT_TRUE(BinaryCache::from_environment().serves(device));
  }
  EXPECT_TRUE(BinaryCache("/x").serves(device));
  EXPECT_EQ(BinaryCache("/x", clcg::cl::CachedDevices::not_cpu).serves(device), !cpu);
  EXPECT_FALSE(BinaryCache().serves(device));
  {
    ScopedEnvironment off("CLCG_CACHE", "0");
    EXPECT_FALSE(BinaryCache::from_environment().enabled());
    EXPECT_FALSE(ProgramCache().disk().enabled());
  }
  ScopedEnvironment bad("CLCG_CACHE", "maybe");
  try {
    BinaryCache::from_environment();
    FAIL() << "CLCG_CACHE=maybe accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CLCG_CACHE must be 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'maybe'"), std::string::npos) << e.what();
  }
}

TEST(BinaryCache, OffStoresNothing) {
  TemporaryDirectory dir;
  ScopedEnvironment cache_dir("CLCG_CACHE_DIR", dir.path().c_str());
  ScopedEnvironment off("CLCG_CACHE", "0");
  ProgramCache cache;
  get_scale(cache);
  EXPECT_EQ(cache.builds(), 1u);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
