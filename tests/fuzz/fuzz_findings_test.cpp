// What the Matrix Market fuzzing found, pinned by exact behaviour (docs/RELIABILITY.md).
// The inputs themselves are replayed by ctest fuzz.replay_corpus from tests/fuzz/regressions.
#include "clcg/solver/io/matrix_market.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using clcg::solver::InputError;
using clcg::solver::parse_matrix_market;
using clcg::solver::parse_vector_market;

const std::string general = "%%MatrixMarket matrix coordinate real general\n";
const std::string symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
constexpr long long limit = 1LL << 24;  // rows no entry can reach, at most

// Runs f, expects InputError on `line` whose message contains `part`.
template <class F>
void expect_input_error(F&& f, std::size_t line, const std::string& part) {
    try {
        f();
        FAIL() << "no InputError; expected one containing: " << part;
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}

TEST(FuzzFindings, MatrixSizeLineWithBillionsOfEmptyRowsIsRefusedBeforeAllocating) {
    expect_input_error([] { parse_matrix_market(general + "2000000000 2000000000 0\n", "a.mtx"); }, 2,
                       "row count 2000000000 with only 0 entries: at least 2000000000 rows would be empty, so the "
                       "matrix is singular (more than 16777216 are refused)");
}

TEST(FuzzFindings, CoordinateVectorWithBillionsOfImplicitZerosIsRefusedBeforeAllocating) {
    expect_input_error([] { parse_vector_market(general + "% rhs\n2000000000 1 1\n1 1 5\n", "b.mtx"); }, 3,
                       "at least 1999999999 rows would be implicit zeros");
}

TEST(FuzzFindings, SymmetricEntriesReachTwoRows) {
    const std::string rows = std::to_string(2 * 1 + limit);
    // One off-diagonal entry reaches two rows: exactly at the limit is accepted...
    EXPECT_EQ(parse_matrix_market(symmetric + rows + " " + rows + " 1\n2 1 1\n", "a.mtx").rows(), 2 + limit);
    // ...one more row is not.
    const std::string over = std::to_string(2 * 1 + limit + 1);
    expect_input_error([&] { parse_matrix_market(symmetric + over + " " + over + " 1\n2 1 1\n", "a.mtx"); }, 2,
                       "rows would be empty");
}

TEST(FuzzFindings, EmptyRowsAndImplicitZerosUpToTheLimitAreStillRead) {
    const std::string n = std::to_string(limit);
    EXPECT_EQ(parse_matrix_market(general + n + " " + n + " 0\n", "a.mtx").nonZeros(), 0);
    const Eigen::VectorXd v = parse_vector_market(general + n + " 1 1\n" + n + " 1 2.5\n", "b.mtx");
    ASSERT_EQ(v.size(), limit);
    EXPECT_EQ(v[limit - 1], 2.5);
    EXPECT_EQ(v[0], 0.0);
}

TEST(FuzzFindings, ArrayVectorDeclaringBillionsOfValuesIsTruncatedNotAllocated) {
    expect_input_error([] { parse_vector_market("%%MatrixMarket matrix array real general\n2000000000 1\n1\n", "b.mtx"); },
                       3, "truncated: expected 2000000000 values, found 1");
}

}  // namespace
