#include <algorithm>
#include <cstring>
#include <utility>

#include "clcg/solver/io/host_threads.hpp"
#include "coo.hpp"

namespace clcg::solver::mm {

std::optional<std::uint64_t> find_mirrored_pair(const std::vector<Coo>& parts) {
    std::vector<std::uint64_t> keys;  // position << 1 | came-from-upper
    std::size_t off_diagonal = 0;
    for (const Coo& part : parts) off_diagonal += static_cast<std::size_t>(part.lower + part.upper);
    keys.reserve(off_diagonal);
    for (const Coo& part : parts) {
        for (std::size_t k = 0; k < part.row.size(); ++k) {
            const auto i = static_cast<std::uint64_t>(part.row[k]);
            const auto j = static_cast<std::uint64_t>(part.col[k]);
            if (i != j) keys.push_back(((std::max(i, j) << 32 | std::min(i, j)) << 1) | (i < j ? 1U : 0U));
        }
    }
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 1; k < keys.size(); ++k) {
        if ((keys[k] >> 1) == (keys[k - 1] >> 1) && keys[k] != keys[k - 1]) return keys[k] >> 1;
    }
    return std::nullopt;
}

namespace {

// One thread's rows [begin, end) of the CSR under construction.
class RowRange {
public:
    RowRange(const Header& h, const std::vector<Coo>& parts, HostMatrix& a, int begin, int end)
        : parts_(parts), a_(a), begin_(begin), end_(end), symmetric_(h.symmetry == MmSymmetry::symmetric),
          pattern_(h.field == MmField::pattern) {}

    // Calls f(row, col, value) for the entries of the expanded matrix in these rows, in file
    // order (a mirrored entry right after the one it mirrors).
    template <class F>
    void for_each_entry(F&& f) const {
        for (const Coo& part : parts_) {
            const bool rows_in = part.max_row >= begin_ && part.min_row < end_;
            const bool cols_in = symmetric_ && part.max_col >= begin_ && part.min_col < end_;
            if (!rows_in && !cols_in) continue;
            for (std::size_t k = 0; k < part.row.size(); ++k) {
                const int i = part.row[k], j = part.col[k];
                const double v = pattern_ ? 1.0 : part.value[k];
                if (i >= begin_ && i < end_) f(i, j, v);
                if (symmetric_ && i != j && j >= begin_ && j < end_) f(j, i, v);
            }
        }
    }

    // outer[r + 1] = nonzeros of rows begin..r (counting from this range's start); returns
    // the range's total.
    std::int64_t count() {
        int* outer = a_.outerIndexPtr();
        std::fill(outer + begin_ + 1, outer + end_ + 1, 0);
        for_each_entry([&](int i, int, double) { ++outer[i + 1]; });
        std::int64_t sum = 0;
        for (int r = begin_; r < end_; ++r) {
            sum += outer[r + 1];
            outer[r + 1] = static_cast<int>(sum);
        }
        return sum;
    }

    // With the range's first nonzero at `base`: places the entries, then sorts each row by
    // column and sums duplicates, packing the range's nonzeros from `base` on. Returns how
    // many it kept.
    int fill(int base) {
        int* outer = a_.outerIndexPtr();
        int* inner = a_.innerIndexPtr();
        double* val = a_.valuePtr();
        for (int r = begin_ + 1; r <= end_; ++r) outer[r] += base;
        std::vector<int> next(static_cast<std::size_t>(end_ - begin_));
        for (int r = begin_; r < end_; ++r) next[static_cast<std::size_t>(r - begin_)] = r == begin_ ? base : outer[r];
        for_each_entry([&](int i, int j, double v) {
            const int at = next[static_cast<std::size_t>(i - begin_)]++;
            inner[at] = j;
            val[at] = v;
        });

        std::vector<std::pair<int, double>> scratch;
        int write = base;
        for (int r = begin_; r < end_; ++r) {
            const int begin = r == begin_ ? base : outer[r], end = outer[r + 1];
            // Files are usually sorted by row or column, which leaves each row sorted here.
            bool sorted = true;
            for (int k = begin + 1; k < end && sorted; ++k) sorted = inner[k] >= inner[k - 1];
            if (!sorted) {
                scratch.clear();
                for (int k = begin; k < end; ++k) scratch.emplace_back(inner[k], val[k]);
                std::stable_sort(scratch.begin(), scratch.end(),
                                 [](const auto& x, const auto& y) { return x.first < y.first; });
                for (int k = begin; k < end; ++k) {
                    inner[k] = scratch[static_cast<std::size_t>(k - begin)].first;
                    val[k] = scratch[static_cast<std::size_t>(k - begin)].second;
                }
            }
            if (r > begin_) outer[r] = write;  // outer[begin_] belongs to the range before
            const int row_start = write;
            for (int k = begin; k < end; ++k) {
                if (write > row_start && inner[write - 1] == inner[k]) {
                    val[write - 1] += val[k];
                } else {
                    inner[write] = inner[k];
                    val[write] = val[k];
                    ++write;
                }
            }
        }
        if (end_ > begin_) outer[end_] = write;
        return write - base;
    }

private:
    const std::vector<Coo>& parts_;
    HostMatrix& a_;
    int begin_, end_;
    bool symmetric_, pattern_;
};

}  // namespace

HostMatrix build_csr(const Header& h, const std::vector<Coo>& parts, const std::string& name, unsigned threads) {
    const bool symmetric = h.symmetry == MmSymmetry::symmetric;
    const auto n = static_cast<int>(h.rows);
    std::int64_t stored = 0, off_diagonal = 0;
    for (const Coo& part : parts) {
        stored += part.size();
        off_diagonal += part.lower + part.upper;
    }
    const std::int64_t expanded = symmetric ? stored + off_diagonal : stored;
    if (expanded > index_limit) {
        throw InputError(name, 0,
                         "the expanded symmetric matrix has " + std::to_string(expanded) +
                             " nonzeros, beyond the 32-bit index limit (" + std::to_string(index_limit) + ")");
    }
    HostMatrix a(n, static_cast<int>(h.cols));
    a.resizeNonZeros(static_cast<Eigen::Index>(expanded));
    a.outerIndexPtr()[0] = 0;
    // Below ~64k nonzeros a thread costs more than it saves.
    threads = std::min<unsigned>(threads_for(static_cast<std::size_t>(expanded), 1U << 16, threads),
                                 static_cast<unsigned>(std::max(n, 1)));
    std::vector<std::int64_t> range_nnz(threads);
    std::vector<int> kept(threads), range_begin(threads + 1);
    parallel_ranges(static_cast<std::size_t>(n), threads, [&](std::size_t b, std::size_t e, unsigned t) {
        range_begin[t] = static_cast<int>(b);
        if (t + 1 == threads) range_begin[threads] = static_cast<int>(e);
        range_nnz[t] = RowRange(h, parts, a, static_cast<int>(b), static_cast<int>(e)).count();
    });
    std::vector<int> base(threads + 1, 0);
    for (unsigned t = 0; t < threads; ++t) base[t + 1] = base[t] + static_cast<int>(range_nnz[t]);
    parallel_ranges(static_cast<std::size_t>(n), threads, [&](std::size_t b, std::size_t e, unsigned t) {
        kept[t] = RowRange(h, parts, a, static_cast<int>(b), static_cast<int>(e)).fill(base[t]);
    });
    // Duplicates summed leave gaps between the ranges: close them, in order.
    int* outer = a.outerIndexPtr();
    int packed = 0;
    for (unsigned t = 0; t < threads; ++t) {
        const int shift = base[t] - packed;
        if (shift > 0) {
            std::memmove(a.innerIndexPtr() + packed, a.innerIndexPtr() + base[t], sizeof(int) * std::size_t(kept[t]));
            std::memmove(a.valuePtr() + packed, a.valuePtr() + base[t], sizeof(double) * std::size_t(kept[t]));
            for (int r = range_begin[t] + 1; r <= range_begin[t + 1]; ++r) outer[r] -= shift;
        }
        packed += kept[t];
    }
    a.resizeNonZeros(packed);
    return a;
}

}  // namespace clcg::solver::mm
