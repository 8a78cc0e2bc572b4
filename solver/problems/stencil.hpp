#pragma once
// How the generators (problems/) build their matrices: size checks, and a CSR written row by
// row on every host core. Private to problems/.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::detail {

using solver::HostMatrix;

inline constexpr std::int64_t index_limit = std::numeric_limits<int>::max();

inline void require_positive(int v, const char* what, const char* generator) {
    if (v < 1) throw std::invalid_argument(std::string(generator) + ": " + what + " must be >= 1, got " + std::to_string(v));
}

// Rows and the worst-case nonzero count must fit the int indices of HostMatrix.
inline int checked_size(std::int64_t rows, std::int64_t per_row, const char* generator) {
    if (rows > index_limit || rows * per_row > index_limit) {
        throw std::invalid_argument(std::string(generator) + ": " + std::to_string(rows) +
                                    " rows exceed the 32-bit index limit of the matrix");
    }
    return static_cast<int>(rows);
}

// Writes one row's entries, columns ascending.
struct RowWriter {
    int* col;
    double* value;
    void add(int c, double v) {
        *col++ = c;
        *value++ = v;
    }
};

// An n x n CSR built on every host core (threads own ranges of rows, so the bits do not
// depend on their count): row_length(r) nonzeros in row r, fill_row(r, writer) writes them.
template <class Length, class Fill>
HostMatrix stencil_csr(int n, Length&& row_length, Fill&& fill_row) {
    HostMatrix a(n, n);
    const unsigned threads = solver::threads_for(static_cast<std::size_t>(n), 1U << 15);
    int* outer = a.outerIndexPtr();
    std::vector<std::int64_t> base(threads + 1, 0);
    solver::parallel_ranges(static_cast<std::size_t>(n), threads, [&](std::size_t b, std::size_t e, unsigned t) {
        std::int64_t nnz = 0;  // rows b .. r, counted from the range's start
        for (std::size_t r = b; r < e; ++r) outer[r + 1] = static_cast<int>(nnz += row_length(static_cast<int>(r)));
        base[t + 1] = nnz;
    });
    for (unsigned t = 0; t < threads; ++t) base[t + 1] += base[t];
    a.resizeNonZeros(static_cast<Eigen::Index>(base[threads]));
    solver::parallel_ranges(static_cast<std::size_t>(n), threads, [&](std::size_t b, std::size_t e, unsigned t) {
        for (std::size_t r = b; r < e; ++r) outer[r + 1] += static_cast<int>(base[t]);
        for (std::size_t r = b; r < e; ++r) {
            const int start = r == b ? static_cast<int>(base[t]) : outer[r];
            fill_row(static_cast<int>(r), RowWriter{a.innerIndexPtr() + start, a.valuePtr() + start});
        }
    });
    return a;
}

}  // namespace clcg::detail
