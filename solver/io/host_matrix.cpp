#include "clcg/solver/io/host_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::solver {

SymmetryReport check_symmetry(const HostMatrix& a, double relative_tolerance) {
    SymmetryReport rep;
    if (a.rows() != a.cols()) {
        rep.max_abs_mismatch = std::numeric_limits<double>::infinity();
        rep.symmetric = false;
        return rep;
    }
    // Row j's stored range; handles uncompressed matrices too.
    auto row_range = [&](int j) {
        const int* inner = a.innerIndexPtr();
        const int begin = a.outerIndexPtr()[j];
        const int end = a.isCompressed() ? a.outerIndexPtr()[j + 1] : begin + a.innerNonZeroPtr()[j];
        return std::pair<const int*, const int*>(inner + begin, inner + end);
    };
    // Rows in ranges, one a thread; merged in range order, so the first position in row-major
    // order that attains the largest mismatch wins, as on one thread.
    const unsigned threads = threads_for(static_cast<std::size_t>(a.nonZeros()), 1U << 16);
    std::vector<SymmetryReport> part(threads);
    parallel_ranges(static_cast<std::size_t>(a.outerSize()), threads, [&](std::size_t b, std::size_t e, unsigned t) {
        SymmetryReport& r = part[t];
        for (int i = static_cast<int>(b); i < static_cast<int>(e); ++i) {
            for (HostMatrix::InnerIterator it(a, i); it; ++it) {
                const int j = static_cast<int>(it.col());
                const double v = it.value();
                r.max_abs_entry = std::max(r.max_abs_entry, std::abs(v));
                if (j == i) continue;
                const auto [lo, hi] = row_range(j);
                const int* hit = std::lower_bound(lo, hi, i);
                const double mirror = (hit != hi && *hit == i) ? a.valuePtr()[hit - a.innerIndexPtr()] : 0.0;
                const double d = std::abs(v - mirror);
                if (d > r.max_abs_mismatch) {
                    r.max_abs_mismatch = d;
                    r.row = i;
                    r.col = j;
                }
            }
        }
    });
    for (const SymmetryReport& r : part) {
        rep.max_abs_entry = std::max(rep.max_abs_entry, r.max_abs_entry);
        if (r.max_abs_mismatch > rep.max_abs_mismatch) {
            rep.max_abs_mismatch = r.max_abs_mismatch;
            rep.row = r.row;
            rep.col = r.col;
        }
    }
    rep.symmetric = rep.max_abs_mismatch <= relative_tolerance * rep.max_abs_entry;
    return rep;
}

Eigen::VectorXd times_ones(const HostMatrix& a) {
    Eigen::VectorXd b(a.rows());
    const unsigned threads = threads_for(static_cast<std::size_t>(a.nonZeros()), 1U << 16);
    parallel_ranges(static_cast<std::size_t>(a.rows()), threads, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i) {
            double sum = 0.0;
            for (HostMatrix::InnerIterator it(a, static_cast<Eigen::Index>(i)); it; ++it) sum += it.value();
            b[static_cast<Eigen::Index>(i)] = sum;
        }
    });
    return b;
}

}  // namespace clcg::solver
