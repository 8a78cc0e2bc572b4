// Matrix Market input clcg rejects: each with the file name, the line and what is wrong.
#include <gtest/gtest.h>
#include <unsupported/Eigen/SparseExtra>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "io/mm_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace clcg::test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------- rejected input

struct BadInput {
    const char* label;
    std::string text;
    std::size_t line;  // 0: no line in the message
    const char* message_part;
};

// Prints the label in gtest failure output.
void PrintTo(const BadInput& b, std::ostream* os) { *os << b.label; }


std::vector<BadInput> bad_matrices() {
    return {
        {"empty file", "", 0, "empty file"},
        {"only blank lines", "\n  \n\t\r\n", 0, "empty file"},
        {"no banner", "3 3 1\n1 1 1\n", 1, "missing Matrix Market banner"},
        {"misspelled banner", "%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n", 1,
         "missing Matrix Market banner"},
        {"banner after a comment", "% hello\n" + real_general + "1 1 1\n1 1 1\n", 1, "missing Matrix Market banner"},
        {"banner missing symmetry", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "incomplete banner"},
        {"banner with extra word", "%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", 1,
         "unexpected word 'extra'"},
        {"object vector", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1,
         "unsupported object 'vector'"},
        {"array format for a matrix", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
         "array (dense) format is not supported for matrices"},
        {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1, "unknown format 'sparse'"},
        {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "complex"},
        {"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", 1,
         "unknown field 'quaternion'"},
        {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "hermitian"},
        {"skew-symmetric", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", 1,
         "skew-symmetric"},
        {"unknown symmetry", "%%MatrixMarket matrix coordinate real diagonal\n1 1 1\n1 1 1\n", 1,
         "unknown symmetry 'diagonal'"},
        {"non-square", real_general + "% c\n2 3 1\n1 1 1\n", 3, "not square (2 x 3)"},
        {"missing size line", real_general + "% only a comment\n", 2, "missing size line"},
        {"size line with a word", real_general + "3 x 1\n1 1 1\n", 2, "'x' is not an integer"},
        {"size line with a fraction", real_general + "3 3 1.5\n1 1 1\n", 2, "'1.5' is not an integer"},
        {"size line too short", real_general + "3 3\n1 1 1\n", 2, "missing entry count"},
        {"size line too long", real_general + "3 3 1 7\n1 1 1\n", 2, "unexpected extra token '7'"},
        {"negative size", real_general + "-3 -3 1\n1 1 1\n", 2, "negative row count"},
        {"negative entry count", real_general + "3 3 -1\n", 2, "negative entry count"},
        {"rows beyond int32", real_general + "3000000000 3000000000 1\n1 1 1\n", 2,
         "row count 3000000000 exceeds the 32-bit index limit"},
        {"entries beyond int32", real_general + "3 3 2147483648\n1 1 1\n", 2,
         "entry count 2147483648 exceeds the 32-bit index limit"},
        {"size beyond int64", real_general + "99999999999999999999 1 1\n1 1 1\n", 2,
         "exceeds the 32-bit index limit"},
        {"row index zero", real_general + "3 3 1\n0 1 1\n", 3, "row index 0 out of range [1, 3] (Matrix Market indices are 1-based)"},
        {"column index zero", real_general + "3 3 2\n1 1 1\n\n2 0 1\n", 5, "column index 0 out of range"},
        {"row index too large", real_general + "3 3 1\n4 1 1\n", 3, "row index 4 out of range [1, 3]"},
        {"column index too large", real_general + "3 3 1\n1 4 1\n", 3, "column index 4 out of range [1, 3]"},
        {"negative index", real_general + "3 3 1\n-1 1 1\n", 3, "row index '-1' out of range"},
        {"huge index", real_general + "3 3 1\n1 99999999999999999999 1\n", 3, "out of range [1, 3]"},
        {"fractional index", real_general + "3 3 1\n1.0 1 1\n", 3, "bad row index '1.0'"},
        {"word as index", real_general + "3 3 1\n1 b 1\n", 3, "bad column index 'b'"},
        {"truncated", real_general + "3 3 3\n1 1 1\n2 2 2\n", 4, "truncated: expected 3 entries, found 2"},
        {"truncated after comments", real_general + "3 3 3\n1 1 1\n% c\n\n", 5, "truncated: expected 3 entries, found 1"},
        {"truncated with no final newline", real_general + "3 3 2\n1 1 1", 3, "truncated: expected 2 entries, found 1"},
        {"too many entries", real_general + "3 3 2\n1 1 1\n2 2 2\n\n3 3 3\n", 6, "more entries than the 2 declared"},
        {"text after the entries", real_general + "1 1 1\n1 1 1\nthe end\n", 4, "more entries than the 1 declared"},
        {"word as value", real_general + "3 3 1\n1 1 abc\n", 3, "bad value 'abc'"},
        {"value with two dots", real_general + "3 3 1\n1 1 1.5.3\n", 3, "bad value '1.5.3'"},
        {"value with lone exponent", real_general + "3 3 1\n1 1 1e\n", 3, "bad value '1e'"},
        {"value with two signs", real_general + "3 3 1\n1 1 +-1\n", 3, "bad value '+-1'"},
        {"value with Fortran exponent", real_general + "3 3 1\n1 1 1.5d0\n", 3, "bad value '1.5d0'"},
        {"missing value", real_general + "3 3 2\n1 1 1\n2 2\n", 4, "missing value"},
        {"missing column", real_general + "3 3 1\n1\n", 3, "missing column index"},
        {"extra token on an entry", real_general + "3 3 1\n1 1 1 0\n", 3, "unexpected extra token '0'"},
        {"value in a pattern file", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
         "unexpected extra token '1'"},
        {"nan", real_general + "3 3 1\n1 1 nan\n", 3, "not finite"},
        {"NaN", real_general + "3 3 2\n1 1 1\n2 2 NaN\n", 4, "not finite"},
        {"inf", real_general + "3 3 1\n1 1 inf\n", 3, "not finite"},
        {"-Infinity", real_general + "3 3 1\n1 1 -Infinity\n", 3, "not finite"},
        {"value overflows double", real_general + "3 3 1\n1 1 1e400\n", 3, "out of the range of double"},
        {"fraction in an integer file", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2.5\n", 3,
         "integer field"},
        {"symmetric with both (i,j) and (j,i)", real_symmetric + "3 3 3\n2 1 1\n3 3 1\n1 2 1\n", 5,
         "entry (1,2) mirrors entry (2,1) on line 3"},
        {"entry in an empty matrix", real_general + "0 0 1\n1 1 1\n", 3, "row index 1 out of range [1, 0]"},
    };
}

class MatrixMarketRejects : public testing::TestWithParam<BadInput> {};

TEST_P(MatrixMarketRejects, WithFileNameAndLine) {
    const BadInput& bad = GetParam();
    try {
        (void)parse_matrix_market(bad.text, "bad.mtx");
        FAIL() << "accepted: " << bad.label;
    } catch (const InputError& e) {
        const std::string what = e.what();
        const std::string prefix = bad.line == 0 ? "bad.mtx: " : "bad.mtx:" + std::to_string(bad.line) + ": ";
        EXPECT_EQ(what.rfind(prefix, 0), 0U) << "what(): " << what << "\nexpected prefix: " << prefix;
        EXPECT_NE(what.find(bad.message_part), std::string::npos) << "what(): " << what;
        EXPECT_EQ(e.file(), "bad.mtx");
        EXPECT_EQ(e.line(), bad.line);
    }
}

std::string label_name(const testing::TestParamInfo<BadInput>& info) {
    std::string s;
    for (const char* p = info.param.label; *p != '\0'; ++p) s += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
    return s + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Table, MatrixMarketRejects, testing::ValuesIn(bad_matrices()), label_name);

// ---------------------------------------------------------------- vectors

TEST(VectorMarket, ArrayRealGeneralIsRead) {
    const Eigen::VectorXd v = parse_vector_market(
        "%%MatrixMarket matrix array real general\n% c\n3 1\n1.5\n\n-2\r\n+.5e1\n", "b.mtx");
    ASSERT_EQ(v.size(), 3);
    EXPECT_EQ(v[0], 1.5);
    EXPECT_EQ(v[1], -2.0);
    EXPECT_EQ(v[2], 5.0);
}

TEST(VectorMarket, ArrayIntegerIsRead) {
    const Eigen::VectorXd v = parse_vector_market("%%MatrixMarket matrix array integer general\n2 1\n3\n-4\n", "b.mtx");
    EXPECT_EQ(v, Eigen::Vector2d(3, -4));
}

TEST(VectorMarket, CoordinateColumnIsReadWithZerosAndSums) {
    const Eigen::VectorXd v = parse_vector_market(
        "%%MatrixMarket matrix coordinate real general\n4 1 3\n4 1 2\n1 1 1\n4 1 0.5\n", "b.mtx");
    EXPECT_EQ(v, Eigen::Vector4d(1, 0, 0, 2.5));
}

TEST(VectorMarket, EmptyVectorIsValid) {
    EXPECT_EQ(parse_vector_market("%%MatrixMarket matrix array real general\n0 1\n", "b.mtx").size(), 0);
}

std::vector<BadInput> bad_vectors() {
    const std::string array = "%%MatrixMarket matrix array real general\n";
    return {
        {"empty", "", 0, "empty file"},
        {"more than one column", array + "3 2\n1\n2\n3\n4\n5\n6\n", 2, "a vector must be n x 1, but the file is 3 x 2"},
        {"coordinate with two columns", "%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 1\n", 2,
         "a vector must be n x 1"},
        {"truncated", array + "3 1\n1\n2\n", 4, "truncated: expected 3 values, found 2"},
        {"too many values", array + "2 1\n1\n2\n3\n", 5, "more values than the 2 declared"},
        {"two values on a line", array + "2 1\n1 2\n", 3, "unexpected extra token '2'"},
        {"nan", array + "2 1\n1\nnan\n", 4, "not finite"},
        {"word", array + "2 1\nx\n1\n", 3, "bad value 'x'"},
        {"fraction in an integer vector", "%%MatrixMarket matrix array integer general\n1 1\n0.5\n", 3,
         "integer field"},
        {"pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern"},
        {"symmetric", "%%MatrixMarket matrix array real symmetric\n1 1\n1\n", 1, "must be 'general'"},
        {"complex", "%%MatrixMarket matrix array complex general\n1 1\n1 0\n", 1, "complex"},
        {"missing size line", array, 1, "missing size line"},
        {"size line with entry count", array + "2 1 2\n1\n2\n", 2, "unexpected extra token '2'"},
    };
}

class VectorMarketRejects : public testing::TestWithParam<BadInput> {};

TEST_P(VectorMarketRejects, WithFileNameAndLine) {
    const BadInput& bad = GetParam();
    try {
        (void)parse_vector_market(bad.text, "bad.mtx");
        FAIL() << "accepted: " << bad.label;
    } catch (const InputError& e) {
        const std::string what = e.what();
        const std::string prefix = bad.line == 0 ? "bad.mtx: " : "bad.mtx:" + std::to_string(bad.line) + ": ";
        EXPECT_EQ(what.rfind(prefix, 0), 0U) << "what(): " << what << "\nexpected prefix: " << prefix;
        EXPECT_NE(what.find(bad.message_part), std::string::npos) << "what(): " << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Table, VectorMarketRejects, testing::ValuesIn(bad_vectors()), label_name);

TEST(VectorMarket, LengthCheckNamesFileAndBothSizes) {
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(10);
    EXPECT_NO_THROW(check_vector_length(b, 10, "b.mtx", "right-hand side"));
    try {
        check_vector_length(b, 12, "b.mtx", "right-hand side");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "b.mtx: right-hand side has 10 entries but the matrix has 12 rows");
    }
}

}  // namespace
