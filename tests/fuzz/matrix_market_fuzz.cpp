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
#include "clcg/solver/io/matrix_market.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void broken_promise(const char* what) {
    std::fprintf(stderr, "matrix_market_fuzz: parser broke its promise: %s\n", what);
    std::abort();
}

void check_matrix(const clcg::solver::HostMatrix& a) {
    if (a.rows() != a.cols()) broken_promise("matrix is not square");
    if (!a.isCompressed()) broken_promise("matrix is not compressed");
    const int* outer = a.outerIndexPtr();
    const int* inner = a.innerIndexPtr();
    const double* value = a.valuePtr();
    if (outer[0] != 0 || outer[a.rows()] != a.nonZeros()) broken_promise("row pointers do not span the entries");
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
        if (outer[r] > outer[r + 1]) broken_promise("row pointers decrease");
        for (int k = outer[r]; k < outer[r + 1]; ++k) {
            if (inner[k] < 0 || inner[k] >= a.cols()) broken_promise("column index out of range");
            if (k > outer[r] && inner[k] <= inner[k - 1]) broken_promise("columns not sorted and unique");
            // Duplicates may sum to +-inf (1e308 + 1e308); NaN can only come from inf - inf.
            if (std::isnan(value[k])) broken_promise("NaN value");
        }
    }
    (void)clcg::solver::check_symmetry(a);
}

void check_vector(const Eigen::VectorXd& v) {
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        if (std::isnan(v[k])) broken_promise("NaN value in a vector");
    }
}

// The outcome of one parse: the matrix's arrays as bytes, or the message.
std::string outcome(std::string_view text, const std::string& name, const clcg::solver::ReadOptions& options) {
    try {
        const clcg::solver::HostMatrix a = clcg::solver::parse_matrix_market(text, name, nullptr, options);
        const auto bytes = [](const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); };
        return "matrix " + std::to_string(a.rows()) + " " +
               bytes(a.outerIndexPtr(), sizeof(int) * std::size_t(a.rows() + 1)) +
               bytes(a.innerIndexPtr(), sizeof(int) * std::size_t(a.nonZeros())) +
               bytes(a.valuePtr(), sizeof(double) * std::size_t(a.nonZeros()));
    } catch (const clcg::solver::InputError& e) {
        return std::string("error ") + e.what();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string name = "fuzz.mtx";
    try {
        clcg::solver::MatrixMarketInfo info;
        check_matrix(clcg::solver::parse_matrix_market(text, name, &info));
    } catch (const clcg::solver::InputError&) {
    }
    if (outcome(text, name, {1, 1}) != outcome(text, name, {3, 16}))
        broken_promise("the parallel reader's outcome differs from the serial one's");
    try {
        check_vector(clcg::solver::parse_vector_market(text, name));
    } catch (const clcg::solver::InputError&) {
    }
    return 0;
}
