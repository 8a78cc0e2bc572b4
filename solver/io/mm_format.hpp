#pragma once
// The Matrix Market header (banner and size line) and the entry scanners (io/ internal),
// shared by the matrix and the vector readers.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mm_scanner.hpp"

namespace clcg::solver::mm {

enum class Format { coordinate, array };

struct Header {
    Format format = Format::coordinate;
    MmField field = MmField::real;
    MmSymmetry symmetry = MmSymmetry::general;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t entries = 0;  // coordinate: declared entries; array: rows * cols
};

enum class Target { matrix, vector, dense };  // dense: an array of rows x (1 or more) columns

// Reads and checks the banner line; the cursor moves to the next line.
void parse_banner(Scanner& sc, Header& h, Target target);
// Reads the size line (the cursor on its first token) and checks it against the target.
void parse_size_line(Scanner& sc, Header& h, Target target);
[[noreturn]] void fail_missing_size_line(const Scanner& sc, const Header& h);
const char* entry_layout(MmField field);

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

}  // namespace clcg::solver::mm
