// Fuzz target for the Matrix Market reader: the same bytes go to the matrix parser and
// to the vector parser. InputError is the only exception a parser may throw; anything
// else (another exception, a crash, a sanitizer report, a hang, a huge allocation) is a
// finding. Parsed results are checked against the reader's promises (compressed CSR,
// sorted unique columns, square, finite values) and the symmetry check runs on them,
// as cg-solve does. The parallel reader (3 threads, chunks of 16 bytes) must give what the
// serial one gives: the same bits, or the same message.
//
// Built twice: with -fsanitize=fuzzer (CLCG_BUILD_FUZZERS, clang) as the libFuzzer
// target, and with matrix_market_replay.cpp as a plain program that replays the corpus
// and the regression inputs in the normal build (ctest fuzz.replay_corpus).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "clcg/solver/io/matrix_market.hpp"
#include "fuzz_support.hpp"

namespace {

constexpr const char* target = "matrix_market_fuzz";

void check_vector(const Eigen::VectorXd& v) {
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        if (std::isnan(v[k])) clcg::fuzz::broken_promise(target, "NaN value in a vector");
    }
}

std::string outcome(std::string_view text, const std::string& name, const clcg::solver::ReadOptions& options) {
    return clcg::fuzz::outcome([&] { return clcg::solver::parse_matrix_market(text, name, nullptr, options); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string name = "fuzz.mtx";
    try {
        clcg::solver::MatrixMarketInfo info;
        clcg::fuzz::check_matrix(target, clcg::solver::parse_matrix_market(text, name, &info));
    } catch (const clcg::solver::InputError&) {
    }
    if (outcome(text, name, {1, 1}) != outcome(text, name, {3, 16}))
        clcg::fuzz::broken_promise(target, "the parallel reader's outcome differs from the serial one's");
    try {
        check_vector(clcg::solver::parse_vector_market(text, name));
    } catch (const clcg::solver::InputError&) {
    }
    return 0;
}
