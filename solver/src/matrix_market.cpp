#include "clcg/solver/matrix_market.hpp"

#include "clcg/solver/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

namespace clcg::solver {

namespace {

std::string compose_message(const std::string& file, std::size_t line, const std::string& message) {
    std::string s = file;
    if (line != 0) {
        s += ':';
        s += std::to_string(line);
    }
    s += ": ";
    s += message;
    return s;
}

}  // namespace

InputError::InputError(std::string file, std::size_t line, const std::string& message)
    : std::runtime_error(compose_message(file, line, message)), file_(std::move(file)), line_(line) {}

}  // namespace clcg::solver

namespace clcg::detail {
namespace {

using solver::InputError;
using solver::MmField;
using solver::MmSymmetry;

constexpr std::int64_t index_limit = std::numeric_limits<int>::max();
// Declared rows that no stored entry can reach (empty matrix rows, implicit zeros of a
// coordinate vector): beyond this many the file is refused rather than paid for in memory.
constexpr std::int64_t max_unreached_rows = std::int64_t{1} << 24;

// '\r' counts as a blank so CRLF files need no special case.
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_separator(char c) { return is_blank(c) || c == '\n'; }

// Tokens quoted in messages: bounded and printable, whatever the file holds.
std::string quote(std::string_view token) {
    constexpr std::size_t max_shown = 40;
    std::string s = "'";
    for (std::size_t i = 0; i < token.size() && i < max_shown; ++i) {
        const auto c = static_cast<unsigned char>(token[i]);
        s += std::isprint(c) ? static_cast<char>(c) : '?';
    }
    if (token.size() > max_shown) s += "...";
    s += '\'';
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Cursor over the whole text that tracks the 1-based line number.
class Scanner {
public:
    // A file read in blocks gets one Scanner per block; first_line carries the count on.
    Scanner(std::string_view text, const std::string& name, std::size_t first_line = 1)
        : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), line_(first_line), name_(&name) {}

    [[noreturn]] void fail(const std::string& message) const { throw InputError(*name_, line_, message); }
    [[noreturn]] void fail_at(std::size_t line, const std::string& message) const {
        throw InputError(*name_, line, message);
    }

    std::size_t line() const { return line_; }
    const char* pos() const { return p_; }
    const char* end() const { return end_; }
    void set_pos(const char* p) { p_ = p; }

    // Number of the file's last line; used for "truncated" messages once at the end.
    std::size_t last_line() const {
        return (end_ != begin_ && end_[-1] == '\n' && line_ > 1) ? line_ - 1 : line_;
    }

    void skip_blanks() {
        while (p_ != end_ && is_blank(*p_)) ++p_;
    }
    bool at_line_end() const { return p_ == end_ || *p_ == '\n'; }

    void next_line() {
        const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
        if (nl == nullptr) {
            p_ = end_;
        } else {
            p_ = static_cast<const char*>(nl) + 1;
            ++line_;
        }
    }

    // Skips blank and `%` comment lines. Returns false at the end of the text; otherwise
    // leaves the cursor on the first token of a content line.
    bool seek_content() {
        for (;;) {
            skip_blanks();
            if (p_ == end_) return false;
            if (*p_ == '\n') {
                ++p_;
                ++line_;
                continue;
            }
            if (*p_ == '%') {
                next_line();
                continue;
            }
            return true;
        }
    }

    std::string_view token() {
        const char* s = p_;
        while (p_ != end_ && !is_separator(*p_)) ++p_;
        return {s, static_cast<std::size_t>(p_ - s)};
    }

    // Peeks at the token starting at `from` without moving.
    std::string_view token_at(const char* from) const {
        const char* q = from;
        while (q != end_ && !is_separator(*q)) ++q;
        return {from, static_cast<std::size_t>(q - from)};
    }

    // Requires another token on this line.
    void expect_token(const char* what, const char* layout) {
        skip_blanks();
        if (at_line_end()) [[unlikely]] fail_missing(what, layout);
    }

    // Requires the line to end here, then moves to the next one.
    void end_line(const char* layout) {
        skip_blanks();
        if (!at_line_end()) [[unlikely]] fail_extra(layout);
        if (p_ != end_) {
            ++p_;
            ++line_;
        }
    }

    [[gnu::cold, gnu::noinline]] [[noreturn]] void fail_missing(const char* what, const char* layout) const {
        fail(std::string("missing ") + what + "; " + layout);
    }
    [[gnu::cold, gnu::noinline]] [[noreturn]] void fail_extra(const char* layout) const {
        fail("unexpected extra token " + quote(token_at(p_)) + "; " + layout);
    }

private:
    const char* begin_;
    const char* p_;
    const char* end_;
    std::size_t line_;
    const std::string* name_;
};

// Parses an unsigned decimal with an optional '+' (what strtol would take, minus the
// negative numbers that no index or size may have). Returns false for anything else,
// including numbers too long to be a valid size; diagnose_integer() explains why.
inline bool parse_count_fast(const char*& p, const char* end, std::int64_t& value) {
    const char* s = p;
    if (s != end && *s == '+') ++s;
    const char* q = s;
    std::uint64_t x = 0;
    // 18 digits cannot overflow int64; anything longer is out of range anyway.
    while (q != end && static_cast<unsigned>(*q - '0') < 10U && q - s < 18) {
        x = x * 10 + static_cast<unsigned>(*q - '0');
        ++q;
    }
    if (q == s || (q != end && !is_separator(*q))) return false;
    value = static_cast<std::int64_t>(x);
    p = q;
    return true;
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void diagnose_integer(const Scanner& sc, std::string_view tok, const std::string& what,
                                   std::int64_t max) {
    std::string_view body = tok;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
    const std::string range = " out of range [1, " + std::to_string(max) + "]";
    if (all_digits(body) && tok.front() == '-') sc.fail(what + " " + quote(tok) + range + " (negative)");
    if (all_digits(body)) sc.fail(what + " " + quote(tok) + range);
    sc.fail("bad " + what + " " + quote(tok) + " (not an integer)");
}

[[gnu::cold, gnu::noinline]] [[noreturn]] void bad_index(const Scanner& sc, const char* at, const char* what,
                                                        std::int64_t max) {
    std::int64_t v = 0;
    if (!parse_count_fast(at, sc.end(), v)) diagnose_integer(sc, sc.token_at(at), what, max);
    sc.fail(std::string(what) + " " + std::to_string(v) + " out of range [1, " + std::to_string(max) + "]" +
            (v == 0 ? " (Matrix Market indices are 1-based)" : ""));
}

// Index in [1, max]; messages are built off the hot path.
inline std::int64_t read_index(Scanner& sc, const char* what, std::int64_t max) {
    const char* p = sc.pos();
    std::int64_t v = 0;
    if (!parse_count_fast(p, sc.end(), v) || v < 1 || v > max) [[unlikely]] {
        bad_index(sc, sc.pos(), what, max);
    }
    sc.set_pos(p);
    return v;
}

// strtod on a copy of the token: covers what from_chars leaves out (hex floats,
// underflow to zero or denormals) with C's exact rules.
bool strtod_token(std::string_view tok, double& value, bool& overflow) {
    std::string copy(tok);
    char* endp = nullptr;
    errno = 0;
    const double v = std::strtod(copy.c_str(), &endp);
    if (copy.empty() || endp != copy.c_str() + copy.size()) return false;
    overflow = errno == ERANGE && std::isinf(v);
    value = v;
    return true;
}

[[gnu::cold, gnu::noinline]] [[noreturn]] void diagnose_value(const Scanner& sc, std::string_view tok, bool integer_field) {
    double v = 0.0;
    bool overflow = false;
    if (integer_field) {
        std::string_view body = tok;
        if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
        if (all_digits(body)) sc.fail("integer value " + quote(tok) + " is out of range");
        sc.fail("bad value " + quote(tok) + ": the file declares an integer field");
    }
    if (strtod_token(tok, v, overflow)) {
        if (overflow) sc.fail("value " + quote(tok) + " is out of the range of double");
        sc.fail("value " + quote(tok) + " is not finite (NaN and Inf are not allowed)");
    }
    sc.fail("bad value " + quote(tok) + " (not a number)");
}

// What from_chars turned down: hex floats and underflow are fine for strtod, the rest
// is an error.
[[gnu::cold, gnu::noinline]] double read_real_slow(Scanner& sc, const char* p) {
    const std::string_view tok = sc.token_at(p);
    double v = 0.0;
    bool overflow = false;
    if (strtod_token(tok, v, overflow) && !overflow && std::isfinite(v)) {
        sc.set_pos(p + tok.size());
        return v;
    }
    diagnose_value(sc, tok, false);
}

inline double read_real(Scanner& sc) {
    const char* p = sc.pos();
    const char* end = sc.end();
    const char* q = p;
    // from_chars takes no '+', strtod does; "+-1" must stay an error.
    if (q != end && *q == '+' && q + 1 != end && q[1] != '-' && q[1] != '+') ++q;
    double v = 0.0;
    const auto r = std::from_chars(q, end, v);
    if (r.ec == std::errc() && (r.ptr == end || is_separator(*r.ptr)) && std::isfinite(v)) [[likely]] {
        sc.set_pos(r.ptr);
        return v;
    }
    return read_real_slow(sc, p);
}

inline double read_integer_value(Scanner& sc) {
    const char* p = sc.pos();
    const char* end = sc.end();
    const char* q = p;
    if (q != end && *q == '+' && q + 1 != end && q[1] != '-' && q[1] != '+') ++q;
    std::int64_t v = 0;
    const auto r = std::from_chars(q, end, v);
    if (r.ec == std::errc() && (r.ptr == end || is_separator(*r.ptr))) {
        sc.set_pos(r.ptr);
        return static_cast<double>(v);
    }
    diagnose_value(sc, sc.token_at(p), true);
}

inline double read_value(Scanner& sc, MmField field) {
    return field == MmField::integer ? read_integer_value(sc) : read_real(sc);
}

enum class Format { coordinate, array };

struct Header {
    Format format = Format::coordinate;
    MmField field = MmField::real;
    MmSymmetry symmetry = MmSymmetry::general;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t entries = 0;  // coordinate: declared entries; array: rows * cols
};

enum class Target { matrix, vector };

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
        h.field = MmField::pattern;
    } else if (field == "complex") {
        sc.fail("complex values are not supported (clcg solves real systems)");
    } else {
        sc.fail("unknown field " + quote(field) + " in banner (expected real, integer or pattern)");
    }

    if (symmetry == "general") {
        h.symmetry = MmSymmetry::general;
    } else if (symmetry == "symmetric") {
        if (target == Target::vector) sc.fail("a vector file must be 'general', not 'symmetric'");
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
    } else if (h.cols != 1) {
        sc.fail_at(line, "a vector must be n x 1, but the file is " + std::to_string(h.rows) + " x " +
                             std::to_string(h.cols));
    }
    if (!coordinate) {
        h.entries = h.rows;
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

// Calls sink(row, col, value, line) (0-based indices) for up to max_entries entry lines,
// checking tokens and ranges; returns how many it found before max_entries or the end.
template <class Sink>
std::int64_t scan_entry_lines(Scanner& sc, const Header& h, std::int64_t max_entries, Sink&& sink) {
    const char* layout = entry_layout(h.field);
    std::int64_t found = 0;
    while (found < max_entries && sc.seek_content()) {
        const std::int64_t i = read_index(sc, "row index", h.rows);
        sc.expect_token("column index", layout);
        const std::int64_t j = read_index(sc, "column index", h.cols);
        double v = 1.0;
        if (h.field != MmField::pattern) {
            sc.expect_token("value", layout);
            v = read_value(sc, h.field);
        }
        const std::size_t line = sc.line();
        sc.end_line(layout);
        sink(static_cast<int>(i - 1), static_cast<int>(j - 1), v, line);
        ++found;
    }
    return found;
}

// All declared entries, then nothing but comments and blank lines. The cursor must be
// just after the size line.
template <class Sink>
void scan_entries(Scanner& sc, const Header& h, Sink&& sink) {
    const std::int64_t found = scan_entry_lines(sc, h, h.entries, sink);
    if (found < h.entries) {
        sc.fail_at(sc.last_line(), "truncated: expected " + std::to_string(h.entries) + " entries, found " +
                                       std::to_string(found));
    }
    if (sc.seek_content()) sc.fail("more entries than the " + std::to_string(h.entries) + " declared");
}

// Array format: one value per line, column-major; for vectors there is one column.
template <class Sink>
void scan_array(Scanner& sc, const Header& h, Sink&& sink) {
    constexpr const char* layout = "an array file has one value per line";
    std::int64_t found = 0;
    while (found < h.entries) {
        if (!sc.seek_content()) {
            sc.fail_at(sc.last_line(), "truncated: expected " + std::to_string(h.entries) + " values, found " +
                                           std::to_string(found));
        }
        const double v = read_value(sc, h.field);
        sc.end_line(layout);
        sink(v);
        ++found;
    }
    if (sc.seek_content()) sc.fail("more values than the " + std::to_string(h.entries) + " declared");
}

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

class FileHandle {
public:
    explicit FileHandle(const std::string& path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
        if (::fstat(fd_, &st_) != 0) {
            const int err = errno;
            ::close(fd_);
            throw InputError(path, 0, std::string("cannot stat: ") + std::strerror(err));
        }
        if (S_ISDIR(st_.st_mode)) {
            ::close(fd_);
            throw InputError(path, 0, "is a directory, not a Matrix Market file");
        }
    }
    ~FileHandle() { ::close(fd_); }
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;

    int fd() const { return fd_; }
    // Size of a regular file, 0 for pipes and devices.
    std::size_t size_hint() const { return S_ISREG(st_.st_mode) ? static_cast<std::size_t>(st_.st_size) : 0; }

    // Reads up to n bytes, retrying short reads; returns fewer only at the end.
    std::size_t read_up_to(char* p, std::size_t n, const std::string& path) const {
        std::size_t got = 0;
        while (got < n) {
            const ssize_t r = ::read(fd_, p + got, n - got);
            if (r < 0) {
                if (errno == EINTR) continue;
                throw InputError(path, 0, std::string("read error: ") + std::strerror(errno));
            }
            if (r == 0) break;
            got += static_cast<std::size_t>(r);
        }
        return got;
    }

private:
    int fd_ = -1;
    struct stat st_ {};
};

struct FileData {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::string_view view() const { return {bytes.get(), size}; }
};

// Whole file in one buffer (vectors, and the rare error path that needs the text again).
FileData read_whole_file(const std::string& path) {
    const FileHandle file(path);
    FileData d;
    std::size_t capacity = file.size_hint() + 1;
    d.bytes.reset(new char[capacity]);
    for (;;) {
        d.size += file.read_up_to(d.bytes.get() + d.size, capacity - d.size, path);
        if (d.size < capacity) break;
        std::unique_ptr<char[]> bigger(new char[capacity * 2]);
        std::memcpy(bigger.get(), d.bytes.get(), d.size);
        d.bytes = std::move(bigger);
        capacity *= 2;
    }
    return d;
}

// Text in memory: one block.
class TextBlocks {
public:
    explicit TextBlocks(std::string_view text) : text_(text) {}
    std::string_view next() { return std::exchange(text_, std::string_view()); }
    std::size_t size_hint() const { return text_.size(); }

private:
    std::string_view text_;
};

// A file read through one reused buffer, handed out as runs of complete lines. Much
// faster than one big buffer: a 100 MB allocation costs more in page faults than
// parsing saves, and a 1 MiB buffer stays in cache.
class FileBlocks {
public:
    explicit FileBlocks(const std::string& path)
        : path_(path), file_(path), size_hint_(file_.size_hint()), buffer_(new char[capacity_]) {}

    std::size_t size_hint() const { return size_hint_; }

    // Complete lines (the last block may end without '\n'); empty at the end.
    std::string_view next() {
        // Keep the partial line after the previous block.
        std::memmove(buffer_.get(), buffer_.get() + handed_, filled_ - handed_);
        filled_ -= handed_;
        handed_ = 0;
        for (;;) {
            if (!eof_) {
                const std::size_t got = file_.read_up_to(buffer_.get() + filled_, capacity_ - filled_, path_);
                filled_ += got;
                eof_ = filled_ < capacity_;
            }
            const void* nl = memrchr(buffer_.get(), '\n', filled_);
            if (nl != nullptr && !eof_) {
                handed_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get()) + 1;
                return {buffer_.get(), handed_};
            }
            if (eof_) {
                handed_ = filled_;
                return {buffer_.get(), handed_};
            }
            // One line longer than the buffer: grow it.
            std::unique_ptr<char[]> bigger(new char[capacity_ * 2]);
            std::memcpy(bigger.get(), buffer_.get(), filled_);
            buffer_ = std::move(bigger);
            capacity_ *= 2;
        }
    }

private:
    std::string path_;
    FileHandle file_;
    std::size_t size_hint_;
    std::size_t capacity_ = 1U << 20;
    std::unique_ptr<char[]> buffer_;
    std::size_t filled_ = 0;
    std::size_t handed_ = 0;
    bool eof_ = false;
};

bool all_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos; }

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
}  // namespace clcg::detail

namespace clcg::solver {

HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors, MatrixMarketInfo* info) {
    detail::TextBlocks blocks(text);
    return detail::parse_matrix_blocks(blocks, name_for_errors, info, [&] { return text; });
}

HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info) {
    detail::FileBlocks blocks(path);
    std::unique_ptr<char[]> keep;  // owns the text of the error-path second pass
    return detail::parse_matrix_blocks(blocks, path, info, [&] {
        detail::FileData data = detail::read_whole_file(path);
        const std::string_view view = data.view();
        keep = std::move(data.bytes);
        return view;
    });
}

Eigen::VectorXd parse_vector_market(std::string_view text, const std::string& name_for_errors) {
    using namespace detail;
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
    const detail::FileData data = detail::read_whole_file(path);
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

namespace {

// Buffered text output with to_chars: same digits as %.17g, far faster than printf.
class MmWriter {
public:
    explicit MmWriter(const std::string& path) : out_(path) { buf_.reserve(chunk + 128); }

    void text(std::string_view s) {
        buf_ += s;
        maybe_flush();
    }
    void number(long long x) { put(std::to_chars(tmp_, tmp_ + sizeof tmp_, x)); }
    void number(double x) { put(std::to_chars(tmp_, tmp_ + sizeof tmp_, x, std::chars_format::general, 17)); }
    void ch(char c) {
        buf_ += c;
        if (c == '\n') maybe_flush();
    }
    void comment(std::string_view c) {
        while (!c.empty()) {
            const std::size_t nl = c.find('\n');
            text("% ");
            text(c.substr(0, nl));
            ch('\n');
            if (nl == std::string_view::npos) break;
            c.remove_prefix(nl + 1);
        }
    }
    void commit() {
        out_.write(buf_);
        buf_.clear();
        out_.commit();
    }

private:
    static constexpr std::size_t chunk = 1U << 20;
    void put(std::to_chars_result r) { buf_.append(tmp_, r.ptr); }
    void maybe_flush() {
        if (buf_.size() >= chunk) {
            out_.write(buf_);
            buf_.clear();
        }
    }
    AtomicFile out_;
    std::string buf_;
    char tmp_[64];
};

}  // namespace

void write_matrix_market(const std::string& path, const HostMatrix& a, bool symmetric_lower,
                         std::string_view comment) {
    if (symmetric_lower && a.rows() != a.cols()) {
        throw std::invalid_argument("write_matrix_market: symmetric storage needs a square matrix, got " +
                                    std::to_string(a.rows()) + " x " + std::to_string(a.cols()));
    }
    long long count = 0;
    for (int r = 0; r < a.outerSize(); ++r) {
        for (HostMatrix::InnerIterator it(a, r); it; ++it) {
            if (!symmetric_lower || it.col() <= r) ++count;
        }
    }
    MmWriter w(path);
    w.text(symmetric_lower ? "%%MatrixMarket matrix coordinate real symmetric\n"
                           : "%%MatrixMarket matrix coordinate real general\n");
    w.comment(comment);
    w.number(static_cast<long long>(a.rows()));
    w.ch(' ');
    w.number(static_cast<long long>(a.cols()));
    w.ch(' ');
    w.number(count);
    w.ch('\n');
    for (int r = 0; r < a.outerSize(); ++r) {
        for (HostMatrix::InnerIterator it(a, r); it; ++it) {
            if (symmetric_lower && it.col() > r) continue;
            w.number(static_cast<long long>(r) + 1);
            w.ch(' ');
            w.number(static_cast<long long>(it.col()) + 1);
            w.ch(' ');
            w.number(it.value());
            w.ch('\n');
        }
    }
    w.commit();
}

void write_vector_market(const std::string& path, const Eigen::VectorXd& v) {
    MmWriter w(path);
    w.text("%%MatrixMarket matrix array real general\n");
    w.number(static_cast<long long>(v.size()));
    w.text(" 1\n");
    for (Eigen::Index k = 0; k < v.size(); ++k) {
        w.number(v[k]);
        w.ch('\n');
    }
    w.commit();
}

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
