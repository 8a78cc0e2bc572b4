// Matrix Market files clcg accepts, in memory and from files of any size.
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

}  // namespace
