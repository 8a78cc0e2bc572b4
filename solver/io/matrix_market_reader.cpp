#include "clcg/solver/io/matrix_market.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "file_blocks.hpp"
#include "mm_format.hpp"

namespace clcg::solver::mm {
namespace {

// Entries in file order.
struct Coo {
    std::vector<int> row;
    std::vector<int> col;
    std::vector<double> value;  // empty for pattern files
    std::int64_t diagonal = 0;
    std::int64_t lower = 0;  // strictly below the diagonal
    std::int64_t upper = 0;
    std::int64_t size() const { return static_cast<std::int64_t>(row.size()); }
};

// Reserve no more than the input could hold, so a lying size line cannot make us
// allocate gigabytes for a tiny file.
std::size_t plausible(std::int64_t declared, std::size_t input_size, std::size_t min_bytes_per_item) {
    return static_cast<std::size_t>(
        std::min<std::int64_t>(declared, static_cast<std::int64_t>(input_size / min_bytes_per_item + 1)));
}

void reserve_entries(Coo& coo, const Header& h, std::size_t input_size) {
    const std::size_t n = plausible(h.entries, input_size, h.field == MmField::pattern ? 4 : 6);
    coo.row.reserve(n);
    coo.col.reserve(n);
    if (h.field != MmField::pattern) coo.value.reserve(n);
}

// Appends up to max_entries entry lines from the scanner's text; returns how many.
std::int64_t collect_entries(Scanner& sc, const Header& h, std::int64_t max_entries, Coo& coo) {
    const bool pattern = h.field == MmField::pattern;
    return scan_entry_lines(sc, h, max_entries, [&](int i, int j, double v, std::size_t) {
        coo.row.push_back(i);
        coo.col.push_back(j);
        if (!pattern) coo.value.push_back(v);
        if (i == j) {
            ++coo.diagonal;
        } else if (i > j) {
            ++coo.lower;
        } else {
            ++coo.upper;
        }
    });
}

// A symmetric file storing both (i,j) and (j,i), i != j, is ambiguous (sum? mirror?).
// Returns the first such position as (hi << 32 | lo), or nothing. Only called when the
// file has entries in both triangles.
std::optional<std::uint64_t> find_mirrored_pair(const Coo& coo) {
    std::vector<std::uint64_t> keys;  // position << 1 | came-from-upper
    keys.reserve(static_cast<std::size_t>(coo.lower + coo.upper));
    for (std::size_t k = 0; k < coo.row.size(); ++k) {
        const auto i = static_cast<std::uint64_t>(coo.row[k]);
        const auto j = static_cast<std::uint64_t>(coo.col[k]);
        if (i != j) keys.push_back(((std::max(i, j) << 32 | std::min(i, j)) << 1) | (i < j ? 1U : 0U));
    }
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 1; k < keys.size(); ++k) {
        if ((keys[k] >> 1) == (keys[k - 1] >> 1) && keys[k] != keys[k - 1]) return keys[k] >> 1;
    }
    return std::nullopt;
}

[[noreturn]] void report_mirrored_entry(std::string_view text, const std::string& name, std::uint64_t clash) {
    const int hi = static_cast<int>(clash >> 32), lo = static_cast<int>(clash & 0xffffffffU);
    // Rescan for the lines; only on this error path, so the fast path stores no lines.
    Scanner sc(text, name);
    Header h;
    parse_banner(sc, h, Target::matrix);
    if (!sc.seek_content()) fail_missing_size_line(sc, h);
    parse_size_line(sc, h, Target::matrix);
    std::size_t lower_line = 0, upper_line = 0;
    scan_entries(sc, h, [&](int i, int j, double, std::size_t line) {
        if (i == hi && j == lo && lower_line == 0) lower_line = line;
        if (i == lo && j == hi && upper_line == 0) upper_line = line;
    });
    const std::size_t first = std::min(lower_line, upper_line), second = std::max(lower_line, upper_line);
    const auto pos = [](int a, int b) { return "(" + std::to_string(a + 1) + "," + std::to_string(b + 1) + ")"; };
    const bool lower_first = lower_line < upper_line;
    sc.fail_at(second, "entry " + (lower_first ? pos(lo, hi) : pos(hi, lo)) + " mirrors entry " +
                           (lower_first ? pos(hi, lo) : pos(lo, hi)) + " on line " + std::to_string(first) +
                           ": a symmetric file must store only one triangle");
}

// Counting sort into CSR (expanding symmetric storage), then sort columns within rows
// where needed and sum duplicates in file order.
solver::HostMatrix build_csr(const Header& h, const Coo& coo, const std::string& name) {
    const bool symmetric = h.symmetry == MmSymmetry::symmetric;
    const auto n = static_cast<int>(h.rows);
    const std::size_t m = coo.row.size();
    const std::int64_t expanded = symmetric ? coo.size() + coo.lower + coo.upper : coo.size();
    if (expanded > index_limit) {
        throw InputError(name, 0,
                         "the expanded symmetric matrix has " + std::to_string(expanded) +
                             " nonzeros, beyond the 32-bit index limit (" + std::to_string(index_limit) + ")");
    }
    const bool pattern = h.field == MmField::pattern;

    solver::HostMatrix a(n, static_cast<int>(h.cols));
    a.resizeNonZeros(static_cast<Eigen::Index>(expanded));
    int* outer = a.outerIndexPtr();
    int* inner = a.innerIndexPtr();
    double* val = a.valuePtr();
    std::fill(outer, outer + n + 1, 0);
    for (std::size_t k = 0; k < m; ++k) {
        ++outer[coo.row[k] + 1];
        if (symmetric && coo.row[k] != coo.col[k]) ++outer[coo.col[k] + 1];
    }
    for (int r = 0; r < n; ++r) outer[r + 1] += outer[r];
    std::vector<int> next(outer, outer + n);
    for (std::size_t k = 0; k < m; ++k) {
        const int i = coo.row[k], j = coo.col[k];
        const double v = pattern ? 1.0 : coo.value[k];
        int at = next[i]++;
        inner[at] = j;
        val[at] = v;
        if (symmetric && i != j) {
            at = next[j]++;
            inner[at] = i;
            val[at] = v;
        }
    }

    std::vector<std::pair<int, double>> scratch;
    int write = 0;
    for (int r = 0; r < n; ++r) {
        const int begin = outer[r], end = outer[r + 1];
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
        outer[r] = write;
        for (int k = begin; k < end; ++k) {
            if (write > outer[r] && inner[write - 1] == inner[k]) {
                val[write - 1] += val[k];
            } else {
                inner[write] = inner[k];
                val[write] = val[k];
                ++write;
            }
        }
    }
    outer[n] = write;
    a.resizeNonZeros(write);
    return a;
}

void check_not_empty(std::string_view text, const std::string& name) {
    if (all_blank(text)) throw InputError(name, 0, "empty file");
}

template <class F>
auto translate_bad_alloc(const std::string& name, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        throw InputError(name, 0, "not enough memory for the sizes the file declares");
    }
}

// The matrix reader over blocks of complete lines; line numbers continue across blocks.
// whole_text() gives the full text again for the one error that needs a second pass.
template <class Blocks, class WholeText>
solver::HostMatrix parse_matrix_blocks(Blocks& blocks, const std::string& name, solver::MatrixMarketInfo* info,
                                       WholeText&& whole_text) {
    return translate_bad_alloc(name, [&] {
        const std::size_t size_hint = blocks.size_hint();
        std::string_view block = blocks.next();
        reject_tar(block, name);
        if (all_blank(block)) {
            // Blank through to the end: empty; otherwise the banner is missing.
            for (std::string_view more = blocks.next();; more = blocks.next()) {
                if (more.empty()) throw InputError(name, 0, "empty file");
                if (!all_blank(more)) break;
            }
        }
        Scanner sc(block, name);
        Header h;
        parse_banner(sc, h, Target::matrix);
        auto advance = [&] {
            const std::string_view next = blocks.next();
            if (next.empty()) return false;
            sc = Scanner(next, name, sc.line());
            return true;
        };
        while (!sc.seek_content()) {
            if (!advance()) fail_missing_size_line(sc, h);
        }
        parse_size_line(sc, h, Target::matrix);

        Coo coo;
        reserve_entries(coo, h, size_hint);
        std::int64_t found = 0;
        for (;;) {
            found += collect_entries(sc, h, h.entries - found, coo);
            if (found == h.entries) break;
            if (!advance()) {
                sc.fail_at(sc.last_line(), "truncated: expected " + std::to_string(h.entries) + " entries, found " +
                                               std::to_string(found));
            }
        }
        for (;;) {
            if (sc.seek_content()) sc.fail("more entries than the " + std::to_string(h.entries) + " declared");
            if (!advance()) break;
        }
        if (h.symmetry == MmSymmetry::symmetric && coo.lower > 0 && coo.upper > 0) {
            if (const auto clash = find_mirrored_pair(coo)) report_mirrored_entry(whole_text(), name, *clash);
        }
        if (info != nullptr) *info = solver::MatrixMarketInfo{h.field, h.symmetry, h.rows, h.cols, h.entries};
        return build_csr(h, coo, name);
    });
}

}  // namespace
}  // namespace clcg::solver::mm

namespace clcg::solver {

HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors, MatrixMarketInfo* info) {
    if (mm::is_gzip(text)) {
        const std::string inflated = mm::gunzip(text, name_for_errors);
        return parse_matrix_market(inflated, name_for_errors, info);
    }
    mm::TextBlocks blocks(text);
    return mm::parse_matrix_blocks(blocks, name_for_errors, info, [&] { return text; });
}

HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info) {
    std::unique_ptr<char[]> keep;  // owns the text of the error-path second pass
    const auto whole_text = [&] {
        mm::FileData data = mm::read_whole_file(path);
        const std::string_view view = data.view();
        keep = std::move(data.bytes);
        return view;
    };
    if (mm::is_gzip_file(path)) {
        mm::GzipBlocks blocks(path);
        return mm::parse_matrix_blocks(blocks, path, info, whole_text);
    }
    mm::FileBlocks blocks(path);
    return mm::parse_matrix_blocks(blocks, path, info, whole_text);
}

Eigen::VectorXd parse_vector_market(std::string_view text, const std::string& name_for_errors) {
    using namespace mm;
    if (is_gzip(text)) return parse_vector_market(gunzip(text, name_for_errors), name_for_errors);
    reject_tar(text, name_for_errors);
    check_not_empty(text, name_for_errors);
    return translate_bad_alloc(name_for_errors, [&] {
        Scanner sc(text, name_for_errors);
        Header h;
        parse_banner(sc, h, Target::vector);
        if (!sc.seek_content()) fail_missing_size_line(sc, h);
        parse_size_line(sc, h, Target::vector);
        if (h.format == Format::array) {
            std::vector<double> values;
            values.reserve(plausible(h.entries, text.size(), 2));
            scan_array(sc, h, [&](double v) { values.push_back(v); });
            return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(values.data(),
                                                                     static_cast<Eigen::Index>(values.size())));
        }
        Coo coo;
        reserve_entries(coo, h, text.size());
        scan_entries(sc, h, [&](int i, int j, double x, std::size_t line) {
            coo.row.push_back(i);
            coo.col.push_back(j);
            coo.value.push_back(x);
            (void)line;
        });
        Eigen::VectorXd v = Eigen::VectorXd::Zero(h.rows);
        for (std::size_t k = 0; k < coo.row.size(); ++k) v[coo.row[k]] += coo.value[k];
        return v;
    });
}

Eigen::VectorXd read_vector_market(const std::string& path) {
    const mm::FileData data = mm::read_whole_file(path);
    return parse_vector_market(data.view(), path);
}

void check_vector_length(const Eigen::VectorXd& v, Eigen::Index expected, const std::string& file,
                         const char* what) {
    if (v.size() != expected) {
        throw InputError(file, 0,
                         std::string(what) + " has " + std::to_string(v.size()) + " entries but the matrix has " +
                             std::to_string(expected) + " rows");
    }
}

}  // namespace clcg::solver
