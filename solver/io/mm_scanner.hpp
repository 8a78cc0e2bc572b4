#pragma once
// The Matrix Market reader's cursor and number parsing (io/ internal): a Scanner walks text
// that holds complete lines and knows the 1-based line number; the fast paths are inline
// here, the error paths (messages) out of line in mm_scanner.cpp.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <limits>
#include <string>
#include <string_view>

#include "clcg/solver/io/input_error.hpp"
#include "clcg/solver/io/matrix_market.hpp"

namespace clcg::solver::mm {

constexpr std::int64_t index_limit = std::numeric_limits<int>::max();
// Declared rows that no stored entry can reach (empty matrix rows, implicit zeros of a
// coordinate vector): beyond this many the file is refused rather than paid for in memory.
constexpr std::int64_t max_unreached_rows = std::int64_t{1} << 24;


// '\r' counts as a blank so CRLF files need no special case.
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_separator(char c) { return is_blank(c) || c == '\n'; }

// Tokens quoted in messages: bounded and printable, whatever the file holds.
std::string quote(std::string_view token);
std::string lower(std::string_view s);
bool all_digits(std::string_view s);

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

[[noreturn]] void diagnose_integer(const Scanner& sc, std::string_view tok, const std::string& what, std::int64_t max);
[[gnu::cold, gnu::noinline]] [[noreturn]] void bad_index(const Scanner& sc, const char* at, const char* what,
                                                        std::int64_t max);
// strtod on a copy of the token: covers what from_chars leaves out (hex floats, underflow to
// zero or denormals) with C's exact rules.
bool strtod_token(std::string_view tok, double& value, bool& overflow);
[[gnu::cold, gnu::noinline]] [[noreturn]] void diagnose_value(const Scanner& sc, std::string_view tok,
                                                             bool integer_field);
// What from_chars turned down: hex floats and underflow are fine for strtod, the rest is an error.
[[gnu::cold, gnu::noinline]] double read_real_slow(Scanner& sc, const char* p);

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

}  // namespace clcg::solver::mm
