#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/cl/kernel_source.hpp"
#include "clcg/cl/program_cache.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::test::test_env;

TEST(ProgramCache, EveryEmbeddedSourceBuildsWithItsDefaults) {
  ASSERT_FALSE(clcg::cl::embedded_kernel_sources().empty());
  for (const clcg::cl::KernelSource& source : clcg::cl::embedded_kernel_sources()) {
    SCOPED_TRACE(std::string(source.name));
    EXPECT_NO_THROW(test_env().program(source.name));
  }
}

TEST(ProgramCache, UnknownSourceNameIsRejectedWithTheKnownNames) {
  try {
    test_env().program("no_such_file.cl");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("common.cl"), std::string::npos) << e.what();
  }
}

TEST(ProgramCache, BrokenKernelRaisesBuildErrorWithLogAndOptions) {
  clcg::cl::ProgramCache cache;
  const char* broken = "__kernel void broken(__global REAL* x) { x[0] = undefined_name + ; }";
  try {
    cache.get_from_text(test_env().context(), test_env().device(), "broken.cl", broken, "-DCLCG_MARKER=7");
    FAIL() << "built a broken kernel";
  } catch (const clcg::cl::BuildError& e) {
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_NE(e.options().find("-DCLCG_MARKER=7"), std::string::npos);
    EXPECT_NE(e.build_log().find("undefined_name"), std::string::npos) << e.build_log();
    EXPECT_NE(std::string(e.what()).find("broken.cl"), std::string::npos);
  }
  EXPECT_EQ(cache.builds(), 0u);
}

TEST(ProgramCache, IncludesOfEmbeddedSourcesAreExpandedWithLineDirectives) {
  const std::string text = "// line 1\n#include \"spmv_rows.cl\"\nint line_three;\n";
  const std::string expanded = clcg::cl::expand_includes("mine.cl", text);
  EXPECT_EQ(expanded.rfind("#line 1 \"mine.cl\"\n// line 1\n#line 1 \"spmv_rows.cl\"\n", 0), 0u) << expanded;
  EXPECT_NE(expanded.find("#define CSR_SCALAR_ROWS"), std::string::npos);
  EXPECT_NE(expanded.find("#line 3 \"mine.cl\"\nint line_three;"), std::string::npos) << expanded;
  EXPECT_THROW(clcg::cl::expand_includes("bad.cl", "#include \"no_such.cl\"\n"), std::invalid_argument);
  // A build error inside an included file names that file.
  clcg::cl::ProgramCache cache;
  try {
    cache.get_from_text(test_env().context(), test_env().device(), "user.cl", "#include \"spmv_rows.cl\"\n", "-D WG_SIZE=3");
    FAIL() << "WG_SIZE=3 passed spmv_rows.cl's check";
  } catch (const clcg::cl::BuildError& e) {
    EXPECT_NE(e.build_log().find("WG_SIZE must be a power of two"), std::string::npos) << e.build_log();
  }
}

TEST(ProgramCache, BuildsEachSourceAndOptionsOnce) {
  clcg::cl::ProgramCache cache;
  const auto& env = test_env();
  const char* text = "__kernel void twice(__global REAL* x) { x[get_global_id(0)] *= 2; }";
  const cl::Program a = cache.get_from_text(env.context(), env.device(), "twice.cl", text, "-DREAL=float");
  const cl::Program b = cache.get_from_text(env.context(), env.device(), "twice.cl", text, "-DREAL=float");
  EXPECT_EQ(a(), b());
  EXPECT_EQ(cache.builds(), 1u);
  cache.get_from_text(env.context(), env.device(), "twice.cl", text, "-DREAL=float -DCLCG_OTHER_OPTIONS");
  EXPECT_EQ(cache.builds(), 2u);
}

TEST(ProgramCache, TwoThreadsAskingForOneProgramGetOneBuild) {
  clcg::cl::ProgramCache cache;
  const auto& env = test_env();
  const char* text = "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }";
  std::vector<cl_program> seen(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] { seen[t] = cache.get_from_text(env.context(), env.device(), "inc.cl", text, "")(); });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(cache.builds(), 1u);
}

}  // namespace
