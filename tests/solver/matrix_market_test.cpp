#include "clcg/solver/generators.hpp"
#include "clcg/solver/matrix_market.hpp"
#include "support/temp_dir.hpp"

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

namespace {

using clcg::solver::check_symmetry;
using clcg::solver::check_vector_length;
using clcg::solver::HostMatrix;
using clcg::solver::InputError;
using clcg::solver::MatrixMarketInfo;
using clcg::solver::MmField;
using clcg::solver::MmSymmetry;
using clcg::solver::parse_matrix_market;
using clcg::solver::parse_vector_market;

namespace fs = std::filesystem;

using clcg::test::TempDir;

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

Eigen::MatrixXd dense(const HostMatrix& a) { return Eigen::MatrixXd(a); }

HostMatrix parse(const std::string& text, MatrixMarketInfo* info = nullptr) {
    return parse_matrix_market(text, "test.mtx", info);
}

// Same structure, same bits.
void expect_identical(const HostMatrix& a, const HostMatrix& b) {
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_EQ(a.cols(), b.cols());
    ASSERT_EQ(a.nonZeros(), b.nonZeros());
    for (Eigen::Index k = 0; k <= a.outerSize(); ++k) ASSERT_EQ(a.outerIndexPtr()[k], b.outerIndexPtr()[k]);
    for (Eigen::Index k = 0; k < a.nonZeros(); ++k) {
        ASSERT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << "at " << k;
        ASSERT_EQ(a.valuePtr()[k], b.valuePtr()[k]) << "at " << k;
    }
}

// ---------------------------------------------------------------- accepted input

TEST(MatrixMarketRead, RealGeneralGivesTheDeclaredEntries) {
    MatrixMarketInfo info;
    const HostMatrix a = parse(
        "%%MatrixMarket matrix coordinate real general\n"
        "3 3 4\n"
        "1 1 2.5\n"
        "3 1 -1\n"
        "2 2 4\n"
        "1 3 7\n",
        &info);
    Eigen::MatrixXd want(3, 3);
    want << 2.5, 0, 7, 0, 4, 0, -1, 0, 0;
    EXPECT_EQ(dense(a), want);
    EXPECT_TRUE(a.isCompressed());
    EXPECT_EQ(a.nonZeros(), 4);
    EXPECT_EQ(info.field, MmField::real);
    EXPECT_EQ(info.symmetry, MmSymmetry::general);
    EXPECT_EQ(info.rows, 3);
    EXPECT_EQ(info.cols, 3);
    EXPECT_EQ(info.stored_entries, 4);
}

TEST(MatrixMarketRead, IntegerGeneralAcceptsSignedIntegers) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 3\n2 1 -2\n2 2 +5\n");
    Eigen::MatrixXd want(2, 2);
    want << 3, 0, -2, 5;
    EXPECT_EQ(dense(a), want);
}

TEST(MatrixMarketRead, PatternEntriesAreOne) {
    MatrixMarketInfo info;
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", &info);
    Eigen::MatrixXd want(2, 2);
    want << 0, 1, 1, 0;
    EXPECT_EQ(dense(a), want);
    EXPECT_EQ(info.field, MmField::pattern);
}

TEST(MatrixMarketRead, RealSymmetricLowerIsExpandedOnce) {
    MatrixMarketInfo info;
    const HostMatrix a = parse(
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 5\n", &info);
    Eigen::MatrixXd want(3, 3);
    want << 4, -1, 0, -1, 0, -2, 0, -2, 5;
    EXPECT_EQ(dense(a), want);
    EXPECT_EQ(a.nonZeros(), 6);
    EXPECT_EQ(info.symmetry, MmSymmetry::symmetric);
    EXPECT_EQ(info.stored_entries, 4);
}

TEST(MatrixMarketRead, IntegerAndPatternSymmetricAreExpanded) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 7\n2 2 1\n");
    Eigen::MatrixXd want(2, 2);
    want << 0, 7, 7, 1;
    EXPECT_EQ(dense(a), want);
    const HostMatrix p = parse("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n");
    want << 1, 1, 1, 0;
    EXPECT_EQ(dense(p), want);
}

TEST(MatrixMarketRead, SymmetricUpperTriangleIsReadAsItsTranspose) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 2 -1\n2 3 -2\n1 1 1\n");
    Eigen::MatrixXd want(3, 3);
    want << 1, -1, 0, -1, 0, -2, 0, -2, 0;
    EXPECT_EQ(dense(a), want);
}

TEST(MatrixMarketRead, SymmetricMayMixTrianglesAtDifferentPositions) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 -1\n2 3 -2\n");
    Eigen::MatrixXd want(3, 3);
    want << 0, -1, 0, -1, 0, -2, 0, -2, 0;
    EXPECT_EQ(dense(a), want);
}

TEST(MatrixMarketRead, DuplicatedEntriesAreSummed) {
    const HostMatrix a = parse(
        "%%MatrixMarket matrix coordinate real general\n2 2 5\n1 1 1\n2 1 3\n1 1 0.5\n2 1 -1\n1 1 0.25\n");
    EXPECT_EQ(a.nonZeros(), 2);
    EXPECT_EQ(a.coeff(0, 0), 1.75);
    EXPECT_EQ(a.coeff(1, 0), 2.0);
    const HostMatrix s = parse("%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n2 1 1\n2 2 2\n2 1 2\n2 2 3\n");
    EXPECT_EQ(s.coeff(1, 0), 3.0);
    EXPECT_EQ(s.coeff(0, 1), 3.0);
    EXPECT_EQ(s.coeff(1, 1), 5.0);
    EXPECT_EQ(s.nonZeros(), 3);
}

TEST(MatrixMarketRead, UnsortedEntriesGiveSortedRows) {
    const HostMatrix a = parse(
        "%%MatrixMarket matrix coordinate real general\n3 3 5\n3 3 9\n1 3 3\n1 1 1\n3 1 7\n1 2 2\n");
    ASSERT_EQ(a.nonZeros(), 5);
    const int want_cols[] = {0, 1, 2, 0, 2};
    for (int k = 0; k < 5; ++k) EXPECT_EQ(a.innerIndexPtr()[k], want_cols[k]);
    EXPECT_EQ(a.coeff(2, 2), 9.0);
}

TEST(MatrixMarketRead, CommentsAndBlankLinesAreAllowedEverywhereAfterTheBanner) {
    const HostMatrix a = parse(
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n"
        "\n"
        "   \t \n"
        "  % indented comment\n"
        "2 2 2\n"
        "%\n"
        "\n"
        "1 1 1\n"
        "   \n"
        "% between entries\n"
        "2 2 2\n"
        "\n"
        "% trailing comment\n"
        "\n");
    EXPECT_EQ(a.coeff(0, 0), 1.0);
    EXPECT_EQ(a.coeff(1, 1), 2.0);
}

TEST(MatrixMarketRead, CrlfLineEndingsAndNoFinalNewlineAreAccepted) {
    const HostMatrix a =
        parse("%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n2 2 2\r\n1 1 1.5\r\n2 2 -3");
    EXPECT_EQ(a.coeff(0, 0), 1.5);
    EXPECT_EQ(a.coeff(1, 1), -3.0);
}

TEST(MatrixMarketRead, TabsAndLeadingOrTrailingBlanksSeparateTokens) {
    const HostMatrix a =
        parse("%%MatrixMarket\tmatrix  coordinate real general  \n \t2\t2 2 \n\t1\t1\t1.5\t\n   2   2   -3   \n");
    EXPECT_EQ(a.coeff(0, 0), 1.5);
    EXPECT_EQ(a.coeff(1, 1), -3.0);
}

TEST(MatrixMarketRead, NumbersAreReadAsStrtodReadsThem) {
    const char* tokens[] = {"+1.5", ".199E+04", "-.4755112", "1e-3", "1E6", "1.", "+2", "-0",
                            "0x1.8p1", "4.9406564584124654e-324", "1e-400", "1.7976931348623157e308"};
    std::string text = "%%MatrixMarket matrix coordinate real general\n12 12 12\n";
    for (int k = 0; k < 12; ++k) text += std::to_string(k + 1) + " " + std::to_string(k + 1) + " " + tokens[k] + "\n";
    const HostMatrix a = parse(text);
    for (int k = 0; k < 12; ++k) {
        EXPECT_EQ(a.coeff(k, k), std::strtod(tokens[k], nullptr)) << tokens[k];
    }
}

TEST(MatrixMarketRead, KeywordsAreCaseInsensitive) {
    const HostMatrix a = parse("%%matrixmarket MATRIX Coordinate REAL Symmetric\n1 1 1\n1 1 2\n");
    EXPECT_EQ(a.coeff(0, 0), 2.0);
}

TEST(MatrixMarketRead, OneByOneMatrix) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 42\n");
    ASSERT_EQ(a.rows(), 1);
    EXPECT_EQ(a.coeff(0, 0), 42.0);
}

TEST(MatrixMarketRead, ZeroByZeroMatrixWithNoEntriesIsValidAndEmpty) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    EXPECT_EQ(a.rows(), 0);
    EXPECT_EQ(a.cols(), 0);
    EXPECT_EQ(a.nonZeros(), 0);
}

TEST(MatrixMarketRead, MatrixWithNoEntriesIsAllZero) {
    const HostMatrix a = parse("%%MatrixMarket matrix coordinate real general\n3 3 0\n");
    EXPECT_EQ(a.rows(), 3);
    EXPECT_EQ(a.nonZeros(), 0);
}

TEST(MatrixMarketRead, MatchesEigenLoadMarketOnAGeneralFile) {
    TempDir dir;
    const std::string path = dir.file("a.mtx");
    const HostMatrix src = clcg::solver::random_spd(300, 9, 7);
    clcg::solver::write_matrix_market(path, src, false);
    HostMatrix ours = clcg::solver::read_matrix_market(path);
    Eigen::SparseMatrix<double, Eigen::RowMajor, int> theirs;
    ASSERT_TRUE(Eigen::loadMarket(theirs, path));
    theirs.makeCompressed();
    expect_identical(ours, theirs);
}

// ---------------------------------------------------------------- rejected input

struct BadInput {
    const char* label;
    std::string text;
    std::size_t line;  // 0: no line in the message
    const char* message_part;
};

// Prints the label in gtest failure output.
void PrintTo(const BadInput& b, std::ostream* os) { *os << b.label; }

const std::string real_general = "%%MatrixMarket matrix coordinate real general\n";
const std::string real_symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";

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

TEST(MatrixMarketFile, MissingFileNamesThePathAndTheReason) {
    TempDir dir;
    const std::string path = dir.file("nope.mtx");
    try {
        (void)clcg::solver::read_matrix_market(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
        EXPECT_EQ(e.line(), 0U);
    }
}

TEST(MatrixMarketFile, DirectoryIsRejected) {
    TempDir dir;
    try {
        (void)clcg::solver::read_matrix_market(dir.path().string());
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
        EXPECT_EQ(e.file(), dir.path().string());
    }
}

TEST(MatrixMarketFile, EmptyFileIsRejected) {
    TempDir dir;
    const std::string path = dir.file("empty.mtx");
    write_text(path, "");
    try {
        (void)clcg::solver::read_matrix_market(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), path + ": empty file");
    }
}

TEST(MatrixMarketFile, UnreadableFileIsRejected) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of permissions";
    TempDir dir;
    const std::string path = dir.file("secret.mtx");
    write_text(path, real_general + "1 1 1\n1 1 1\n");
    ::chmod(path.c_str(), 0);
    EXPECT_THROW((void)clcg::solver::read_matrix_market(path), InputError);
}

TEST(MatrixMarketFile, ParseErrorsInFilesCarryThePathAndLine) {
    TempDir dir;
    const std::string path = dir.file("bad.mtx");
    write_text(path, real_general + "2 2 1\n1 3 1\n");
    try {
        (void)clcg::solver::read_matrix_market(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(path + ":3: column index 3 out of range", 0), 0U) << e.what();
    }
}

// Files are read in 1 MiB blocks: entries, line numbers and errors must not depend on
// where the block boundaries fall.
std::string big_general_text(int n, std::size_t* lines) {
    std::string text = real_general + "% padding comment\n" + std::to_string(n) + " " + std::to_string(n) + " " +
                       std::to_string(n) + "\n";
    for (int i = 1; i <= n; ++i) text += std::to_string(i) + " " + std::to_string(i) + " " + std::to_string(i) + ".25\n";
    *lines = 3 + static_cast<std::size_t>(n);
    return text;
}

TEST(MatrixMarketFile, LargeFileSpanningManyBlocksMatchesTheInMemoryParse) {
    TempDir dir;
    std::size_t lines = 0;
    const std::string text = big_general_text(200000, &lines);  // about 4 MB
    write_text(dir.file("big.mtx"), text);
    const HostMatrix a = clcg::solver::read_matrix_market(dir.file("big.mtx"));
    expect_identical(a, parse(text));
    EXPECT_EQ(a.coeff(199999, 199999), 200000.25);
}

TEST(MatrixMarketFile, LineNumbersContinueAcrossBlocks) {
    TempDir dir;
    std::size_t lines = 0;
    std::string text = big_general_text(200000, &lines);
    const std::size_t bad_line = lines - 10;  // far past the first block
    std::size_t pos = 0;
    for (std::size_t l = 1; l < bad_line; ++l) pos = text.find('\n', pos) + 1;
    text.replace(pos, text.find('\n', pos) - pos, "1 1 oops");
    write_text(dir.file("big.mtx"), text);
    try {
        (void)clcg::solver::read_matrix_market(dir.file("big.mtx"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), bad_line) << e.what();
        EXPECT_NE(std::string(e.what()).find("bad value 'oops'"), std::string::npos) << e.what();
    }
}

TEST(MatrixMarketFile, TruncationAndExtraEntriesAreFoundAtTheEndOfLargeFiles) {
    TempDir dir;
    std::size_t lines = 0;
    std::string text = big_general_text(200000, &lines);
    text.replace(text.find("200000 200000 200000"), 20, "200000 200000 200001");
    write_text(dir.file("short.mtx"), text);
    try {
        (void)clcg::solver::read_matrix_market(dir.file("short.mtx"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), lines) << e.what();
        EXPECT_NE(std::string(e.what()).find("truncated: expected 200001 entries, found 200000"), std::string::npos);
    }
    text.replace(text.find("200000 200000 200001"), 20, "200000 200000 199999");
    write_text(dir.file("long.mtx"), text);
    try {
        (void)clcg::solver::read_matrix_market(dir.file("long.mtx"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), lines) << e.what();
        EXPECT_NE(std::string(e.what()).find("more entries than the 199999 declared"), std::string::npos);
    }
}

TEST(MatrixMarketFile, LinesLongerThanTheReadBlockAreHandled) {
    TempDir dir;
    const std::string text = real_general + "%" + std::string(3U << 20, 'c') + "\n2 2 1\n2 2 5";
    write_text(dir.file("long_comment.mtx"), text);
    EXPECT_EQ(clcg::solver::read_matrix_market(dir.file("long_comment.mtx")).coeff(1, 1), 5.0);
}

TEST(MatrixMarketFile, MirroredSymmetricEntryInAFileReportsBothLines) {
    TempDir dir;
    write_text(dir.file("s.mtx"), real_symmetric + "3 3 3\n2 1 1\n3 3 1\n1 2 1\n");
    try {
        (void)clcg::solver::read_matrix_market(dir.file("s.mtx"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), dir.file("s.mtx") +
                                             ":5: entry (1,2) mirrors entry (2,1) on line 3: a symmetric file must "
                                             "store only one triangle");
    }
}

TEST(MatrixMarketFile, BlankOnlyFileIsEmpty) {
    TempDir dir;
    write_text(dir.file("blank.mtx"), "\n \r\n\t\n");
    EXPECT_THROW(
        {
            try {
                (void)clcg::solver::read_matrix_market(dir.file("blank.mtx"));
            } catch (const InputError& e) {
                EXPECT_EQ(std::string(e.what()), dir.file("blank.mtx") + ": empty file");
                throw;
            }
        },
        InputError);
}

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

// ---------------------------------------------------------------- round trips

HostMatrix awkward_values() {
    // Values whose shortest decimal form needs all 17 digits, plus extremes.
    HostMatrix a = clcg::solver::random_spd(40, 7, 2024);
    double* v = a.valuePtr();
    v[0] = 0.1;
    v[1] = 1.0 / 3.0;
    v[2] = 4.9406564584124654e-324;
    v[3] = 1.7976931348623157e308;
    v[4] = -2.2250738585072014e-308;
    return a;
}

TEST(MatrixMarketRoundTrip, GeneralStorageGivesIdenticalValues) {
    TempDir dir;
    const HostMatrix a = awkward_values();
    clcg::solver::write_matrix_market(dir.file("a.mtx"), a, false, "round trip\nsecond line");
    MatrixMarketInfo info;
    const HostMatrix b = clcg::solver::read_matrix_market(dir.file("a.mtx"), &info);
    EXPECT_EQ(info.symmetry, MmSymmetry::general);
    EXPECT_EQ(info.stored_entries, a.nonZeros());
    expect_identical(a, b);
}

TEST(MatrixMarketRoundTrip, SymmetricLowerStorageGivesIdenticalValues) {
    TempDir dir;
    const HostMatrix a = clcg::solver::random_spd(60, 9, 99);
    clcg::solver::write_matrix_market(dir.file("s.mtx"), a, true);
    MatrixMarketInfo info;
    const HostMatrix b = clcg::solver::read_matrix_market(dir.file("s.mtx"), &info);
    EXPECT_EQ(info.symmetry, MmSymmetry::symmetric);
    EXPECT_EQ(info.stored_entries, (a.nonZeros() + a.rows()) / 2);
    expect_identical(a, b);
}

TEST(MatrixMarketRoundTrip, SymmetricWriteNeedsASquareMatrix) {
    TempDir dir;
    HostMatrix a(2, 3);
    EXPECT_THROW(clcg::solver::write_matrix_market(dir.file("x.mtx"), a, true), std::invalid_argument);
}

TEST(MatrixMarketRoundTrip, VectorGivesIdenticalValues) {
    TempDir dir;
    Eigen::VectorXd v(6);
    v << 0.1, 1.0 / 3.0, -1e-300, 4.9406564584124654e-324, 123456789.123456789, -0.0;
    clcg::solver::write_vector_market(dir.file("v.mtx"), v);
    const Eigen::VectorXd w = clcg::solver::read_vector_market(dir.file("v.mtx"));
    ASSERT_EQ(w.size(), v.size());
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        EXPECT_EQ(w[k], v[k]);
        EXPECT_EQ(std::signbit(w[k]), std::signbit(v[k]));
    }
}

TEST(MatrixMarketRoundTrip, EmptyMatrixRoundTrips) {
    TempDir dir;
    clcg::solver::write_matrix_market(dir.file("e.mtx"), HostMatrix(0, 0), true);
    EXPECT_EQ(clcg::solver::read_matrix_market(dir.file("e.mtx")).rows(), 0);
}

// ---------------------------------------------------------------- check_symmetry

HostMatrix from_dense(const Eigen::MatrixXd& d) { return d.sparseView(); }

TEST(CheckSymmetry, ExactlySymmetricHasNoMismatch) {
    const auto r = check_symmetry(clcg::solver::poisson_2d(4, 3));
    EXPECT_TRUE(r.symmetric);
    EXPECT_EQ(r.max_abs_mismatch, 0.0);
    EXPECT_EQ(r.max_abs_entry, 4.0);
    EXPECT_EQ(r.row, -1);
    EXPECT_EQ(r.col, -1);
}

TEST(CheckSymmetry, MismatchWithinToleranceIsSymmetric) {
    Eigen::MatrixXd d(3, 3);
    d << 4, -1, 0, -1 + 1e-15, 4, -1, 0, -1, 4;
    const auto r = check_symmetry(from_dense(d));
    EXPECT_TRUE(r.symmetric);
    EXPECT_GT(r.max_abs_mismatch, 0.0);
}

TEST(CheckSymmetry, MismatchBeyondToleranceReportsLargestAndWhere) {
    Eigen::MatrixXd d(4, 4);
    d << 10, 1, 0, 2,  //
        1 + 1e-6, 10, 3, 0,  //
        0, 3, 10, 0,  //
        2.5, 0, 0, 10;
    const auto r = check_symmetry(from_dense(d));
    EXPECT_FALSE(r.symmetric);
    EXPECT_DOUBLE_EQ(r.max_abs_mismatch, 0.5);
    EXPECT_EQ(r.max_abs_entry, 10.0);
    EXPECT_EQ(r.row, 0);  // first of (0,3) and (3,0) in row-major order
    EXPECT_EQ(r.col, 3);
}

TEST(CheckSymmetry, MissingMirrorEntryCountsAsMismatch) {
    Eigen::MatrixXd d(2, 2);
    d << 1, 0, 0.25, 1;
    const auto r = check_symmetry(from_dense(d));
    EXPECT_FALSE(r.symmetric);
    EXPECT_EQ(r.max_abs_mismatch, 0.25);
    EXPECT_EQ(r.row, 1);
    EXPECT_EQ(r.col, 0);
}

TEST(CheckSymmetry, ToleranceIsRelativeToTheLargestEntry) {
    Eigen::MatrixXd d(2, 2);
    d << 1e6, 1, 1 + 1e-5, 1e6;  // mismatch 1e-5 against max|a| = 1e6
    EXPECT_FALSE(check_symmetry(from_dense(d), 1e-12).symmetric);
    EXPECT_TRUE(check_symmetry(from_dense(d), 1e-10).symmetric);
    d(0, 0) = d(1, 1) = 1.0;  // the same mismatch on a matrix of size 1 is large
    EXPECT_FALSE(check_symmetry(from_dense(d), 1e-10).symmetric);
}

TEST(CheckSymmetry, NonSquareIsNotSymmetric) {
    const auto r = check_symmetry(HostMatrix(2, 3));
    EXPECT_FALSE(r.symmetric);
    EXPECT_TRUE(std::isinf(r.max_abs_mismatch));
}

}  // namespace
