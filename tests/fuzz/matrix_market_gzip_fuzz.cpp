// Fuzz target for the compressed path of the Matrix Market reader: gzip inflated whole by
// libdeflate, BGZF members inflated in place, zlib's stream (docs/RELIABILITY.md). Both ways in:
//
// - An input that starts with gzip's magic bytes is a compressed file as it comes: written as
//   fuzz.mtx.gz and read by read_matrix_market in every way (inflated whole or streamed, on one
//   thread or three), which must give the same outcome: the same bits or the same message. The
//   in-memory parser given the same bytes must agree on whether they hold a matrix, and which.
// - Any other input is text: compressed as one gzip member and as BGZF in three pieces, each
//   file read in every way, which must give what the serial parser gives for the text itself.
//
// InputError is the only exception allowed; a crash, a sanitizer report, a hang, a broken
// promise or an allocation over 64 x the input's size + 64 MiB (fuzz_support.hpp) is a finding.
// Built as the libFuzzer target matrix_market_gzip_fuzz (CLCG_BUILD_FUZZERS) and as
// matrix_market_gzip_replay, which replays the corpora and the regressions in every build.
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "clcg/solver/io/matrix_market.hpp"
#include "fuzz_support.hpp"

namespace {

namespace fs = std::filesystem;
using clcg::solver::ReadOptions;

constexpr const char* target = "matrix_market_gzip_fuzz";

// A folder of this process's own for the files it reads, removed at exit.
class ScratchDir {
public:
    ScratchDir() {
        const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
        std::string pattern = (base / "clcg-gzip-fuzz-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed under " + base.string());
        dir_ = pattern;
    }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }
    std::string file(const char* name) const { return (dir_ / name).string(); }

private:
    fs::path dir_;
};

const std::string& compressed_path() {
    static const ScratchDir dir;
    static const std::string path = dir.file("fuzz.mtx.gz");
    return path;
}

void write_file(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

// One gzip member of `text` at zlib's `level`.
std::string gzip_member(std::string_view text, int level) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (status != Z_STREAM_END) throw std::runtime_error("deflate failed");
    return out;
}

// Every way a gzip file is read: inflated whole (the BGZF path needs more than one thread) or
// streamed by zlib (a memory bound of 1 byte), on one thread or on three in 16-byte chunks.
const std::vector<ReadOptions>& read_ways() {
    static const std::vector<ReadOptions> ways = [] {
        const ReadOptions whole_serial{1, ReadOptions{}.chunk_bytes}, whole_parallel{3, 16};
        ReadOptions streamed_serial = whole_serial, streamed_parallel = whole_parallel;
        streamed_serial.gzip_memory_bytes = streamed_parallel.gzip_memory_bytes = 1;
        return std::vector<ReadOptions>{whole_serial, whole_parallel, streamed_serial, streamed_parallel};
    }();
    return ways;
}

std::string read_file_outcome(const std::string& path, const ReadOptions& options) {
    return clcg::fuzz::outcome([&] { return clcg::solver::read_matrix_market(path, nullptr, options); });
}

// The one known way libdeflate (whole) and zlib (streamed) disagree on data whose CRC matches: a
// dynamic block declaring 287-288 length or 31-32 distance codes (unused), which libdeflate reads
// and zlib refuses (docs/RELIABILITY.md, section 5). Our own compressed text never has one.
bool known_difference(const std::string& want, const std::string& got, const ReadOptions& options) {
    return options.gzip_memory_bytes == 1 && want.rfind("matrix", 0) == 0 &&
           got == "error " + compressed_path() + ": corrupt gzip data (too many length or distance symbols)";
}

// `compressed` as a file, read in every way: each must give `want` (when empty, what the first
// way gives), which is returned.
std::string expect_every_way_gives(std::string_view compressed, const char* what, std::string want = {}) {
    const std::string& path = compressed_path();
    write_file(path, compressed);
    for (const ReadOptions& options : read_ways()) {
        const std::string got = read_file_outcome(path, options);
        if (want.empty()) want = got;  // an outcome is never empty
        if (got != want && !known_difference(want, got, options)) {
            const auto said = [](const std::string& outcome) {
                return outcome.rfind("matrix", 0) == 0 ? std::string("a matrix") : outcome;
            };
            clcg::fuzz::broken_promise(target, std::string(what) + " read with " + std::to_string(options.threads) +
                                                   " thread(s), " +
                                                   (options.gzip_memory_bytes == 1 ? "streamed" : "whole") + ", gave " +
                                                   said(got) + " where " + said(want) + " was due");
        }
    }
    return want;
}

void fuzz_compressed_bytes(std::string_view bytes) {
    const std::string& path = compressed_path();
    const std::string serial = expect_every_way_gives(bytes, "the file");
    const std::string in_memory = clcg::fuzz::outcome([&] { return clcg::solver::parse_matrix_market(bytes, path); });
    const bool file_matrix = serial.rfind("matrix", 0) == 0, memory_matrix = in_memory.rfind("matrix", 0) == 0;
    if (file_matrix != memory_matrix || (file_matrix && serial != in_memory))
        clcg::fuzz::broken_promise(target, "the in-memory parser disagrees with the file reader on whether, or which, "
                                           "matrix the bytes hold");
    if (file_matrix) clcg::fuzz::check_matrix(target, clcg::solver::read_matrix_market(path));
}

void fuzz_text(std::string_view text) {
    const std::string want = clcg::fuzz::outcome(
        [&] { return clcg::solver::parse_matrix_market(text, compressed_path(), nullptr, read_ways().front()); });
    const int level = static_cast<int>(text.size() % 10);  // 0 (stored blocks) to 9
    expect_every_way_gives(gzip_member(text, level), "one gzip member", want);
    // BGZF in three pieces (each with its end-of-file member), cut inside lines.
    const std::size_t third = text.size() / 3;
    std::string bgzf;
    for (const std::size_t from : {std::size_t{0}, third, 2 * third})
        bgzf += clcg::solver::compress_bgzf(text.substr(from, from == 2 * third ? std::string_view::npos : third),
                                            level, 1);
    expect_every_way_gives(bgzf, "BGZF", want);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const clcg::fuzz::AllocationCap cap(size);
    const bool gzip_magic = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (gzip_magic) {
        fuzz_compressed_bytes(bytes);
    } else {
        fuzz_text(bytes);
    }
    return 0;
}
