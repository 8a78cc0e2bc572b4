#include "clcg/solver/io/host_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

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
    for (int i = 0; i < a.outerSize(); ++i) {
        for (HostMatrix::InnerIterator it(a, i); it; ++it) {
            const int j = static_cast<int>(it.col());
            const double v = it.value();
            rep.max_abs_entry = std::max(rep.max_abs_entry, std::abs(v));
            if (j == i) continue;
            const auto [b, e] = row_range(j);
            const int* hit = std::lower_bound(b, e, i);
            const double mirror = (hit != e && *hit == i) ? a.valuePtr()[hit - a.innerIndexPtr()] : 0.0;
            const double d = std::abs(v - mirror);
            if (d > rep.max_abs_mismatch) {
                rep.max_abs_mismatch = d;
                rep.row = i;
                rep.col = j;
            }
        }
    }
    rep.symmetric = rep.max_abs_mismatch <= relative_tolerance * rep.max_abs_entry;
    return rep;
}

}  // namespace clcg::solver

