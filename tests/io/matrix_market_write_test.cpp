// Writing Matrix Market files (same bits back) and the symmetry check of cg-solve.
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

