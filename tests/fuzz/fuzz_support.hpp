#pragma once
// What the Matrix Market fuzz targets share: how a finding is reported, the outcome of one read
// (for comparing the ways of reading the same bytes), and the allocation cap.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "clcg/solver/io/matrix_market.hpp"

namespace clcg::fuzz {

[[noreturn]] inline void broken_promise(const char* target, const std::string& what) {
    std::fprintf(stderr, "%s: the reader broke its promise: %s\n", target, what.c_str());
    std::abort();
}

// A parsed matrix keeps the reader's promises: square, compressed CSR, row pointers spanning the
// entries, columns sorted and unique, no NaN; and the symmetry check runs on it, as in cg-solve.
inline void check_matrix(const char* target, const clcg::solver::HostMatrix& a) {
    if (a.rows() != a.cols()) broken_promise(target, "matrix is not square");
    if (!a.isCompressed()) broken_promise(target, "matrix is not compressed");
    const int* outer = a.outerIndexPtr();
    const int* inner = a.innerIndexPtr();
    const double* value = a.valuePtr();
    if (outer[0] != 0 || outer[a.rows()] != a.nonZeros()) broken_promise(target, "row pointers do not span the entries");
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
        if (outer[r] > outer[r + 1]) broken_promise(target, "row pointers decrease");
        for (int k = outer[r]; k < outer[r + 1]; ++k) {
            if (inner[k] < 0 || inner[k] >= a.cols()) broken_promise(target, "column index out of range");
            if (k > outer[r] && inner[k] <= inner[k - 1]) broken_promise(target, "columns not sorted and unique");
            // Duplicates may sum to +-inf (1e308 + 1e308); NaN can only come from inf - inf.
            if (std::isnan(value[k])) broken_promise(target, "NaN value");
        }
    }
    (void)clcg::solver::check_symmetry(a);
}

// The outcome of read(): "matrix <rows> " and its arrays as bytes, or "error <message>".
template <class Read>
std::string outcome(Read&& read) {
    try {
        const clcg::solver::HostMatrix a = read();
        const auto bytes = [](const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); };
        return "matrix " + std::to_string(a.rows()) + " " +
               bytes(a.outerIndexPtr(), sizeof(int) * std::size_t(a.rows() + 1)) +
               bytes(a.innerIndexPtr(), sizeof(int) * std::size_t(a.nonZeros())) +
               bytes(a.valuePtr(), sizeof(double) * std::size_t(a.nonZeros()));
    } catch (const clcg::solver::InputError& e) {
        return std::string("error ") + e.what();
    }
}

// The fuzz rule "a huge allocation is a finding", per input: while an AllocationCap lives, one
// allocation of more than 64 times the input's size plus 64 MiB aborts. The allocator hooks
// call check_allocation: a sanitizer malloc hook in the libFuzzer build
// (allocation_cap_hook.cpp), a replaced operator new in the replay (matrix_market_replay.cpp).
inline std::atomic<std::size_t> allocation_cap{0};  // 0: no input is being read

inline std::size_t cap_for_input(std::size_t input_size) { return 64 * input_size + (std::size_t{64} << 20); }

class AllocationCap {
public:
    explicit AllocationCap(std::size_t input_size) { allocation_cap = cap_for_input(input_size); }
    ~AllocationCap() { allocation_cap = 0; }
    AllocationCap(const AllocationCap&) = delete;
    AllocationCap& operator=(const AllocationCap&) = delete;
};

// True when `bytes` passes the cap; reports it on stderr without allocating.
inline bool over_allocation_cap(std::size_t bytes) {
    const std::size_t cap = allocation_cap.load(std::memory_order_relaxed);
    if (cap == 0 || bytes <= cap) return false;
    std::fprintf(stderr, "fuzz: an allocation of %zu bytes, over the cap of %zu (64 x the input's size + 64 MiB)\n",
                 bytes, cap);
    return true;
}

}  // namespace clcg::fuzz
