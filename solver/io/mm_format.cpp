#include "mm_format.hpp"

#include <vector>

namespace clcg::solver::mm {

void parse_banner(Scanner& sc, Header& h, Target target) {
    constexpr const char* expected = "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> "
                                     "<general|symmetric>' on the first line";
    // A UTF-8 byte order mark is harmless; skip it.
    if (sc.end() - sc.pos() >= 3 && std::memcmp(sc.pos(), "\xEF\xBB\xBF", 3) == 0) sc.set_pos(sc.pos() + 3);
    const std::string first = lower(sc.token());
    if (first != "%%matrixmarket") sc.fail(std::string("missing Matrix Market banner: ") + expected);

    std::vector<std::string> words;
    for (;;) {
        sc.skip_blanks();
        if (sc.at_line_end()) break;
        words.push_back(lower(sc.token()));
    }
    if (words.size() < 4) sc.fail(std::string("incomplete banner: ") + expected);
    if (words.size() > 4) sc.fail("unexpected word " + quote(words[4]) + " in banner; " + expected);

    const std::string& object = words[0];
    const std::string& format = words[1];
    const std::string& field = words[2];
    const std::string& symmetry = words[3];

    if (object != "matrix") sc.fail("unsupported object " + quote(object) + " in banner (only 'matrix')");

    if (format == "coordinate") {
        h.format = Format::coordinate;
    } else if (format == "array") {
        if (target == Target::matrix) {
            sc.fail("array (dense) format is not supported for matrices; store the matrix in coordinate "
                    "format");
        }
        h.format = Format::array;
    } else {
        sc.fail("unknown format " + quote(format) + " in banner (expected 'coordinate' or 'array')");
    }

    if (field == "real") {
        h.field = MmField::real;
    } else if (field == "integer") {
        h.field = MmField::integer;
    } else if (field == "pattern") {
        if (target == Target::vector) sc.fail("a 'pattern' file has no values and cannot be a vector");
        if (target == Target::dense) sc.fail("a 'pattern' file has no values and cannot be a dense matrix");
        h.field = MmField::pattern;
    } else if (field == "complex") {
        sc.fail("complex values are not supported (clcg solves real systems)");
    } else {
        sc.fail("unknown field " + quote(field) + " in banner (expected real, integer or pattern)");
    }

    if (symmetry == "general") {
        h.symmetry = MmSymmetry::general;
    } else if (symmetry == "symmetric") {
        if (target != Target::matrix) sc.fail("a vector or dense file must be 'general', not 'symmetric'");
        h.symmetry = MmSymmetry::symmetric;
    } else if (symmetry == "hermitian") {
        sc.fail("hermitian matrices are not supported (clcg solves real symmetric systems)");
    } else if (symmetry == "skew-symmetric") {
        sc.fail("skew-symmetric matrices are not supported (CG needs a symmetric matrix)");
    } else {
        sc.fail("unknown symmetry " + quote(symmetry) + " in banner (expected general or symmetric)");
    }
    sc.end_line(expected);
}

std::int64_t read_size(Scanner& sc, const char* what, const char* layout) {
    sc.expect_token(what, layout);
    const char* p = sc.pos();
    std::int64_t v = 0;
    if (parse_count_fast(p, sc.end(), v)) {
        sc.set_pos(p);
        return v;
    }
    const std::string_view tok = sc.token_at(sc.pos());
    std::string_view body = tok;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
    if (all_digits(body) && tok.front() == '-') sc.fail(std::string("negative ") + what + " " + quote(tok));
    if (all_digits(body)) {
        sc.fail(std::string(what) + " " + quote(tok) + " exceeds the 32-bit index limit (" +
                std::to_string(index_limit) + ")");
    }
    sc.fail(std::string("bad size line: ") + what + " " + quote(tok) + " is not an integer; " + layout);
}

const char* size_layout(const Header& h) {
    return h.format == Format::coordinate ? "the size line is 'rows columns entries'"
                                          : "the size line is 'rows columns'";
}

[[noreturn]] void fail_missing_size_line(const Scanner& sc, const Header& h) {
    sc.fail_at(sc.last_line(), std::string("missing size line; ") + size_layout(h));
}

void parse_size_line(Scanner& sc, Header& h, Target target) {
    const bool coordinate = h.format == Format::coordinate;
    const char* layout = size_layout(h);
    const std::size_t line = sc.line();  // the cursor is on its first token
    h.rows = read_size(sc, "row count", layout);
    h.cols = read_size(sc, "column count", layout);
    if (coordinate) h.entries = read_size(sc, "entry count", layout);
    sc.end_line(layout);

    auto check_limit = [&](std::int64_t v, const char* what) {
        if (v > index_limit) {
            sc.fail_at(line, std::string(what) + " " + std::to_string(v) + " exceeds the 32-bit index limit (" +
                                 std::to_string(index_limit) + ")");
        }
    };
    check_limit(h.rows, "row count");
    check_limit(h.cols, "column count");
    if (coordinate) check_limit(h.entries, "entry count");

    if (target == Target::matrix) {
        if (h.rows != h.cols) {
            sc.fail_at(line, "matrix is not square (" + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                 "); CG needs a square matrix");
        }
    } else if (target == Target::vector && h.cols != 1) {
        sc.fail_at(line, "a vector must be n x 1, but the file is " + std::to_string(h.rows) + " x " +
                             std::to_string(h.cols));
    } else if (target == Target::dense) {
        if (coordinate) sc.fail_at(line, "a dense matrix must be in array format ('matrix array real general')");
        if (h.cols < 1) sc.fail_at(line, "a dense matrix needs at least one column, but the file is " +
                                             std::to_string(h.rows) + " x 0");
        if (h.rows * h.cols > index_limit)
            sc.fail_at(line, "a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                 " array has more values than 32-bit indices address (" + std::to_string(index_limit) + ")");
    }
    if (!coordinate) {
        h.entries = h.rows * h.cols;
        return;
    }
    // Row storage (CSR row pointers, a dense vector) is allocated for every declared row,
    // so rows that no entry can reach must be bounded: otherwise one size line such as
    // '2000000000 2000000000 0' costs gigabytes. An entry reaches one row (two when
    // mirrored); a matrix row with no entry makes the matrix singular anyway.
    const std::int64_t reachable =
        (target == Target::matrix && h.symmetry == MmSymmetry::symmetric) ? 2 * h.entries : h.entries;
    if (h.rows - reachable > max_unreached_rows) {
        const std::string head = "row count " + std::to_string(h.rows) + " with only " + std::to_string(h.entries) +
                                 " entries: at least " + std::to_string(h.rows - reachable) + " rows";
        const std::string limit = "more than " + std::to_string(max_unreached_rows) + " are refused";
        if (target == Target::matrix) {
            sc.fail_at(line, head + " would be empty, so the matrix is singular (" + limit + ")");
        }
        sc.fail_at(line, head + " would be implicit zeros (" + limit + "; write the vector in array format)");
    }
}

const char* entry_layout(MmField field) {
    return field == MmField::pattern ? "a pattern entry is 'row column'" : "an entry is 'row column value'";
}

}  // namespace clcg::solver::mm
