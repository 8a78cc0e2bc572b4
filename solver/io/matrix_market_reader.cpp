#include "clcg/solver/io/matrix_market.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "bgzf.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "coo.hpp"
#include "file_blocks.hpp"
#include "gzip_inflate.hpp"
#include "mm_format.hpp"
#include "parallel_entries.hpp"

namespace clcg::solver::mm {
namespace {

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
    return scan_entry_lines(sc, h, max_entries, [&](int i, int j, double v, std::size_t) { coo.add(i, j, v, pattern); });
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

// The checks after every entry is read (mirrored entries of a symmetric file), then the CSR.
template <class WholeText>
solver::HostMatrix finish_matrix(const Header& h, const std::vector<Coo>& parts, const std::string& name,
                                 solver::MatrixMarketInfo* info, WholeText&& whole_text, unsigned threads) {
    std::int64_t lower = 0, upper = 0;
    for (const Coo& part : parts) {
        lower += part.lower;
        upper += part.upper;
    }
    if (h.symmetry == MmSymmetry::symmetric && lower > 0 && upper > 0) {
        if (const auto clash = find_mirrored_pair(parts)) report_mirrored_entry(whole_text(), name, *clash);
    }
    if (info != nullptr) *info = solver::MatrixMarketInfo{h.field, h.symmetry, h.rows, h.cols, h.entries};
    return build_csr(h, parts, name, threads);
}

// The serial matrix reader over blocks of complete lines; line numbers continue across blocks.
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

        std::vector<Coo> parts(1);
        Coo& coo = parts.front();
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
        return finish_matrix(h, parts, name, info, whole_text, 1);
    });
}

// Text smaller than this is read on one thread: starting threads would cost more.
constexpr std::size_t parallel_threshold = 1U << 20;

unsigned reading_threads(const solver::ReadOptions& options, std::size_t size_hint) {
    if (options.threads != 0) return options.threads;
    const unsigned threads = solver::host_threads();  // checks CLCG_THREADS whatever the size
    return size_hint != 0 && size_hint < parallel_threshold ? 1 : threads;
}

// How read() keeps the calling thread: copying a file leaves it mostly idle,
// inflating keeps it busy, so the parsers get one thread less.
enum class Reading { copies, inflates };

// The parallel reader where it pays, else (and for any error in the text) serial().
template <class Serial, class WholeText>
solver::HostMatrix read_matrix(const ReadBytes& read, Reading reading, std::size_t size_hint, const std::string& name,
                               solver::MatrixMarketInfo* info, const solver::ReadOptions& options, Serial&& serial,
                               WholeText&& whole_text) {
    const unsigned threads = reading_threads(options, size_hint);
    if (threads <= 1) return serial();
    const unsigned parsers = reading == Reading::inflates ? threads - 1 : threads;
    return translate_bad_alloc(name, [&] {
        std::optional<Entries> entries;
        try {
            entries = read_entries_in_parallel(read, name, parsers, options.chunk_bytes);
        } catch (const InputError&) {  // corrupt gzip data, a read error: the serial reader says which comes first
            return serial();
        }
        if (!entries) return serial();
        return finish_matrix(entries->header, entries->parts, name, info, whole_text, threads);
    });
}

// Uncompressed text in memory: parsed in place on several threads where it pays. Once the
// entries are parsed, release() may free the text before the CSR is built; whole_text() then
// gives it back for the one error that needs it again.
template <class WholeText, class Release>
solver::HostMatrix parse_text(std::string_view text, const std::string& name, solver::MatrixMarketInfo* info,
                              const solver::ReadOptions& options, WholeText&& whole_text, Release&& release) {
    const auto serial = [&] {
        TextBlocks blocks(text);
        return parse_matrix_blocks(blocks, name, info, whole_text);
    };
    const unsigned threads = reading_threads(options, text.size());
    if (threads <= 1) return serial();
    return translate_bad_alloc(name, [&] {
        std::optional<Entries> entries = parse_entries_in_parallel(text, name, threads, options.chunk_bytes);
        if (!entries) return serial();
        release();
        return finish_matrix(entries->header, entries->parts, name, info, whole_text, threads);
    });
}

solver::HostMatrix parse_text(std::string_view text, const std::string& name, solver::MatrixMarketInfo* info,
                              const solver::ReadOptions& options) {
    return parse_text(text, name, info, options, [&] { return text; }, [] {});
}

// A regular gzip file. Normally read whole, inflated whole by libdeflate (a BGZF file's members
// on every thread) and parsed in memory like plain text. Data libdeflate rejects is read again
// by zlib's streaming serial reader, which names the first error in file order (a parse error in
// text before the bad data, else the bad data); a text too large for memory
// (ReadOptions::gzip_memory_bytes) is inflated as a zlib stream while the other threads parse.
template <class WholeText>
solver::HostMatrix read_gzip_matrix(const std::string& path, solver::MatrixMarketInfo* info,
                                    const solver::ReadOptions& options, WholeText&& reread) {
    const auto streamed_serial = [&] {
        GzipBlocks blocks(path);
        return parse_matrix_blocks(blocks, path, info, reread);
    };
    const std::size_t limit = options.gzip_memory_bytes != 0 ? options.gzip_memory_bytes : default_gzip_memory_bytes();
    FileData text;
    Inflated inflated = Inflated::too_large;
    std::size_t guess = 0;
    unsigned threads = 1;
    try {
        const FileHandle file(path);
        const std::size_t compressed_size = file.size_hint();
        char trailer[4] = {};
        const std::size_t tail = std::min<std::size_t>(compressed_size, 4);
        guess = gzip_text_size_guess(
            compressed_size, gzip_isize({trailer, file.read_at(trailer, tail, compressed_size - tail, path)}));
        threads = reading_threads(options, guess);
        if (compressed_size < limit && guess <= limit - compressed_size) {
            const FileData compressed = read_file_bytes(file, path, threads);
            const std::size_t max_text = compressed.size < limit ? limit - compressed.size : 0;
            std::optional<FileData> bgzf;
            if (threads > 1) bgzf = inflate_bgzf(compressed.view(), max_text, threads);
            if (bgzf) {
                text = std::move(*bgzf);
                inflated = Inflated::whole;
            } else {
                inflated = inflate_gzip(compressed.view(), max_text, threads, text);
            }
        }
    } catch (const std::bad_alloc&) {  // more than this machine will give: stream it
        text = FileData{};
        inflated = Inflated::too_large;
    }
    if (inflated == Inflated::bad_data) return streamed_serial();
    if (inflated == Inflated::whole) {
        const std::string_view view = text.view();
        const auto whole_text = [&] { return text.bytes ? view : reread(); };
        return parse_text(view, path, info, options, whole_text, [&] { text.bytes.reset(); });
    }
    if (threads <= 1) return streamed_serial();
    GzipStream stream(path);
    return read_matrix([&](char* p, std::size_t n) { return stream.read_up_to(p, n); }, Reading::inflates, guess, path,
                       info, options, streamed_serial, reread);
}

}  // namespace
}  // namespace clcg::solver::mm

namespace clcg::solver {

HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors, MatrixMarketInfo* info) {
    return parse_matrix_market(text, name_for_errors, info, ReadOptions{});
}

HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors, MatrixMarketInfo* info,
                               const ReadOptions& options) {
    if (mm::is_gzip(text)) {
        const mm::FileData inflated = mm::gunzip_whole(text, name_for_errors);
        return mm::parse_text(inflated.view(), name_for_errors, info, options);
    }
    return mm::parse_text(text, name_for_errors, info, options);
}

HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info) {
    return read_matrix_market(path, info, ReadOptions{});
}

HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info, const ReadOptions& options) {
    std::unique_ptr<char[]> keep;  // owns the text of the error-path second pass
    const auto whole_text = [&] {
        mm::FileData data = mm::read_whole_file(path);
        const std::string_view view = data.view();
        keep = std::move(data.bytes);
        return view;
    };
    {
        const mm::FileHandle file(path);
        if (!file.regular()) {  // a pipe can be read only once: read it whole, then parse it in memory
            const mm::FileData data = mm::read_file_bytes(file, path);
            return parse_matrix_market(data.view(), path, info, options);
        }
    }
    if (mm::is_gzip_file(path)) return mm::read_gzip_matrix(path, info, options, whole_text);
    const mm::FileHandle file(path);
    const auto serial = [&] {
        mm::FileBlocks blocks(path);
        return mm::parse_matrix_blocks(blocks, path, info, whole_text);
    };
    return mm::read_matrix([&](char* p, std::size_t n) { return file.read_up_to(p, n, path); }, mm::Reading::copies,
                           file.size_hint(), path, info, options, serial, whole_text);
}

namespace {

// An array file's values (column-major, rows x cols as declared) or, for a vector, an n x 1
// coordinate file's; `target` says which size lines are accepted.
Eigen::MatrixXd parse_array_market(std::string_view text, const std::string& name_for_errors, mm::Target target) {
    using namespace mm;
    if (is_gzip(text)) return parse_array_market(gunzip_whole(text, name_for_errors).view(), name_for_errors, target);
    reject_tar(text, name_for_errors);
    check_not_empty(text, name_for_errors);
    return translate_bad_alloc(name_for_errors, [&] {
        Scanner sc(text, name_for_errors);
        Header h;
        parse_banner(sc, h, target);
        if (!sc.seek_content()) fail_missing_size_line(sc, h);
        parse_size_line(sc, h, target);
        if (h.format == Format::array) {
            std::vector<double> values;
            values.reserve(plausible(h.entries, text.size(), 2));
            scan_array(sc, h, [&](double v) { values.push_back(v); });
            return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(values.data(), static_cast<Eigen::Index>(h.rows),
                                                                     static_cast<Eigen::Index>(h.cols)));
        }
        Coo coo;
        reserve_entries(coo, h, text.size());
        scan_entries(sc, h, [&](int i, int j, double x, std::size_t line) {
            coo.row.push_back(i);
            coo.col.push_back(j);
            coo.value.push_back(x);
            (void)line;
        });
        Eigen::MatrixXd v = Eigen::MatrixXd::Zero(h.rows, 1);
        for (std::size_t k = 0; k < coo.row.size(); ++k) v(coo.row[k], 0) += coo.value[k];
        return v;
    });
}

}  // namespace

Eigen::VectorXd parse_vector_market(std::string_view text, const std::string& name_for_errors) {
    return parse_array_market(text, name_for_errors, mm::Target::vector).col(0);
}

Eigen::VectorXd read_vector_market(const std::string& path) {
    const mm::FileData data = mm::read_whole_file(path);
    return parse_vector_market(data.view(), path);
}

Eigen::MatrixXd parse_dense_market(std::string_view text, const std::string& name_for_errors) {
    return parse_array_market(text, name_for_errors, mm::Target::dense);
}

Eigen::MatrixXd read_dense_market(const std::string& path) {
    const mm::FileData data = mm::read_whole_file(path);
    return parse_dense_market(data.view(), path);
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
