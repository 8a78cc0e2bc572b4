#pragma once
// Matrix Market entries as read, before they become the CSR HostMatrix (io/ internal). A file
// read on several threads gives one part per chunk of text; parts in file order hold the
// entries in file order, which fixes the order duplicates are summed in.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "clcg/solver/io/host_matrix.hpp"
#include "mm_format.hpp"

namespace clcg::solver::mm {

struct Coo {
    std::vector<int> row;
    std::vector<int> col;
    std::vector<double> value;  // empty for pattern files
    std::int64_t diagonal = 0;
    std::int64_t lower = 0;  // strictly below the diagonal
    std::int64_t upper = 0;
    // The rows and columns the part touches, so a thread building some rows of the CSR can
    // skip the parts that cannot reach them.
    int min_row = std::numeric_limits<int>::max(), max_row = -1;
    int min_col = std::numeric_limits<int>::max(), max_col = -1;

    std::int64_t size() const { return static_cast<std::int64_t>(row.size()); }
    void add(int i, int j, double v, bool pattern) {
        row.push_back(i);
        col.push_back(j);
        if (!pattern) value.push_back(v);
        if (i == j) {
            ++diagonal;
        } else if (i > j) {
            ++lower;
        } else {
            ++upper;
        }
        min_row = std::min(min_row, i);
        max_row = std::max(max_row, i);
        min_col = std::min(min_col, j);
        max_col = std::max(max_col, j);
    }
};

// A symmetric file storing both (i,j) and (j,i), i != j, is ambiguous (sum? mirror?).
// Returns the first such position as (hi << 32 | lo), or nothing.
std::optional<std::uint64_t> find_mirrored_pair(const std::vector<Coo>& parts);

// Counting sort into CSR (expanding symmetric storage), columns sorted within rows and
// duplicates summed in file order, on `threads` threads that each own a range of rows (the
// same bits for any count). InputError naming `name` when the expanded matrix is too large.
HostMatrix build_csr(const Header& h, const std::vector<Coo>& parts, const std::string& name, unsigned threads);

}  // namespace clcg::solver::mm
