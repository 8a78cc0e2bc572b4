#include "parallel_entries.hpp"

#include <atomic>
#include <deque>
#include <limits>
#include <mutex>
#include <utility>

#include "file_blocks.hpp"

namespace clcg::solver::mm {
namespace {

// The banner and the size line from the first chunk of text; nothing when they are not
// there whole or are bad. `rest` gets what follows the size line.
std::optional<Header> read_header(std::string_view text, const std::string& name, std::string_view& rest) {
    try {
        reject_tar(text, name);
        if (all_blank(text)) return std::nullopt;
        Scanner sc(text, name);
        Header h;
        parse_banner(sc, h, Target::matrix);
        if (!sc.seek_content()) return std::nullopt;
        parse_size_line(sc, h, Target::matrix);
        rest = text.substr(static_cast<std::size_t>(sc.pos() - text.data()));
        return h;
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// Parses chunks of entry lines into one part each, on whichever worker, and puts the parts
// back in file order. A chunk with an error, or more entries than declared, stops it.
class EntryCollector {
public:
    EntryCollector(const Header& h, const std::string& name) : h_(h), name_(name) {}

    bool parse(std::size_t index, std::string_view lines) {
        Coo* part = nullptr;
        {
            std::lock_guard lock(mutex_);
            if (parts_.size() <= index) parts_.resize(index + 1);
            part = &parts_[index];
        }
        const bool pattern = h_.field == MmField::pattern;
        // Entry lines are rarely shorter than 12 bytes; the vectors grow if they are.
        const std::size_t guess = lines.size() / 12 + 1;
        part->row.reserve(guess);
        part->col.reserve(guess);
        if (!pattern) part->value.reserve(guess);
        Scanner sc(lines, name_);
        try {
            scan_entry_lines(sc, h_, std::numeric_limits<std::int64_t>::max(),
                             [&](int i, int j, double v, std::size_t) { part->add(i, j, v, pattern); });
        } catch (const InputError&) {
            bad_ = true;
            return false;
        }
        // More entries than declared: an error the serial reader names.
        return found_.fetch_add(part->size()) + part->size() <= h_.entries;
    }

    // The parts, or nothing when the serial reader has an error to name.
    std::optional<Entries> finish() {
        if (bad_ || found_ != h_.entries) return std::nullopt;
        Entries entries{h_, {}};
        entries.parts.reserve(parts_.size());
        for (Coo& part : parts_) entries.parts.push_back(std::move(part));
        return entries;
    }

private:
    Header h_;
    const std::string& name_;
    std::deque<Coo> parts_;  // deque: growing it keeps the parts workers are filling in place
    std::mutex mutex_;
    std::atomic<std::int64_t> found_{0};
    std::atomic<bool> bad_{false};
};

}  // namespace

std::optional<Entries> read_entries_in_parallel(const ReadBytes& read, const std::string& name, unsigned workers,
                                                std::size_t chunk_bytes) {
    // The header must lie in complete lines of the first chunk (a comment block longer than
    // that is read serially).
    const std::size_t first = std::max<std::size_t>(chunk_bytes, 1U << 16);
    std::string head(first, '\0');
    const std::size_t got = read(head.data(), first);
    const bool eof = got < first;
    head.resize(got);
    const std::size_t last_nl = head.rfind('\n');
    const std::size_t lines_end = eof ? head.size() : (last_nl == std::string::npos ? 0 : last_nl + 1);
    std::string_view rest;
    const std::optional<Header> header = read_header(std::string_view(head).substr(0, lines_end), name, rest);
    if (!header) return std::nullopt;
    EntryCollector collector(*header, name);
    std::string pending(rest);
    pending.append(head, lines_end, std::string::npos);
    parse_line_chunks(std::move(pending), read, chunk_bytes, workers,
                      [&](std::size_t index, std::string_view lines) { return collector.parse(index, lines); });
    return collector.finish();
}

std::optional<Entries> parse_entries_in_parallel(std::string_view text, const std::string& name, unsigned workers,
                                                 std::size_t chunk_bytes) {
    std::string_view rest;
    const std::optional<Header> header = read_header(text, name, rest);
    if (!header) return std::nullopt;
    EntryCollector collector(*header, name);
    parse_text_chunks(rest, chunk_bytes, workers,
                      [&](std::size_t index, std::string_view lines) { return collector.parse(index, lines); });
    return collector.finish();
}

}  // namespace clcg::solver::mm
