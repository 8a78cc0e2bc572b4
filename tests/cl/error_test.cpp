#include <gtest/gtest.h>

#include <set>
#include <string>

#include "clcg/cl/error.hpp"

namespace {

TEST(ClError, NamesKnownCodes) {
  EXPECT_EQ(clcg::cl::error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(clcg::cl::error_name(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_EQ(clcg::cl::error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(clcg::cl::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(clcg::cl::describe_error(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES (-5)");
}

TEST(ClError, UnknownCodeKeepsTheNumber) {
  EXPECT_EQ(clcg::cl::describe_error(-12345), "CL_UNKNOWN_ERROR (-12345)");
}

TEST(ClError, EveryCodeFromZeroToMinus68HasADistinctName) {
  // OpenCL 1.2 defines 0..-19 and -30..-68; each must map to its own name.
  std::set<std::string_view> names;
  for (cl_int code = 0; code >= -68; --code) {
    if (code < -19 && code > -30) continue;
    const std::string_view name = clcg::cl::error_name(code);
    EXPECT_NE(name, "CL_UNKNOWN_ERROR") << code;
    EXPECT_TRUE(names.insert(name).second) << name << " appears twice";
  }
}

TEST(ClError, MessageNamesTaskCallAndCode) {
  const clcg::cl::Error error(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel", "reduce_grid_stride n=1000 wg=256");
  const std::string what = error.what();
  EXPECT_NE(what.find("reduce_grid_stride n=1000 wg=256"), std::string::npos) << what;
  EXPECT_NE(what.find("clEnqueueNDRangeKernel"), std::string::npos) << what;
  EXPECT_NE(what.find("CL_OUT_OF_RESOURCES (-5)"), std::string::npos) << what;
  EXPECT_EQ(error.code(), CL_OUT_OF_RESOURCES);
}

TEST(ClError, CheckedTurnsBindingErrorsIntoClcgErrors) {
  try {
    clcg::cl::checked("doing a thing", []() -> int { throw ::cl::Error(CL_INVALID_VALUE, "clFoo"); });
    FAIL() << "no exception";
  } catch (const clcg::cl::Error& e) {
    EXPECT_EQ(e.code(), CL_INVALID_VALUE);
    EXPECT_EQ(e.call(), "clFoo");
    EXPECT_NE(std::string(e.what()).find("doing a thing: clFoo failed: CL_INVALID_VALUE (-30)"), std::string::npos)
        << e.what();
  }
}

TEST(ClError, BuildErrorCarriesLogAndOptions) {
  const clcg::cl::BuildError error(CL_BUILD_PROGRAM_FAILURE, "broken.cl", "-DREAL=double", "error: expected ';'",
                                   "some device");
  const std::string what = error.what();
  EXPECT_NE(what.find("broken.cl"), std::string::npos);
  EXPECT_NE(what.find("-DREAL=double"), std::string::npos);
  EXPECT_NE(what.find("expected ';'"), std::string::npos);
  EXPECT_EQ(error.build_log(), "error: expected ';'");
}

}  // namespace
