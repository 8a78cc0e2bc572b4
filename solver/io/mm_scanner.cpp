#include "mm_scanner.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace clcg::solver::mm {

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

}  // namespace clcg::solver::mm
