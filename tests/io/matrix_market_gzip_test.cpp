// gzip-compressed Matrix Market files: told by content, read as the same lines (same matrix,
// same line numbers in messages), corrupt or truncated archives and tar files named plainly;
// inflated whole (libdeflate) or streamed (zlib, over ReadOptions::gzip_memory_bytes) alike,
// whatever the members and the trailer's size say.
#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "io/mm_test_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace clcg::test;

using clcg::solver::ReadOptions;

std::string read_message(const std::string& path, const ReadOptions& options = {}) {
    try {
        clcg::solver::read_matrix_market(path, nullptr, options);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// Every way a gzip file is read: inflated whole on one thread and on three, and streamed by zlib
// (a memory bound below the file's size) on one and on three.
std::vector<ReadOptions> gzip_read_options() {
    ReadOptions streamed_serial{1, ReadOptions{}.chunk_bytes}, streamed{3, 1U << 16};
    streamed_serial.gzip_memory_bytes = streamed.gzip_memory_bytes = 1;
    return {{1, ReadOptions{}.chunk_bytes}, {3, 1U << 16}, streamed_serial, streamed};
}

std::string how(const ReadOptions& options) {
    return std::to_string(options.threads) + " thread(s), " + (options.gzip_memory_bytes == 1 ? "streamed" : "whole");
}

// A 2D Poisson matrix's lines: regular text that compresses about 10:1.
std::string compressible_text() {
    TempDir dir;
    clcg::solver::write_matrix_market(dir.file("p.mtx"), clcg::solver::poisson_2d(300, 300), true, "compressible");
    std::ifstream in(dir.file("p.mtx"), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// `text` gzip-compressed as one member per piece between the cuts.
std::string members(const std::string& text, const std::vector<std::size_t>& cuts) {
    std::string out;
    std::size_t from = 0;
    for (const std::size_t cut : cuts) {
        out += gzip(std::string_view(text).substr(from, cut - from));
        from = cut;
    }
    return out + gzip(std::string_view(text).substr(from));
}

void expect_reads_as(const std::string& path, const HostMatrix& want) {
    for (const ReadOptions& options : gzip_read_options()) {
        SCOPED_TRACE(how(options));
        expect_identical(clcg::solver::read_matrix_market(path, nullptr, options), want);
    }
}

std::string large_text() {
    // Several MB of text: the compressed reader hands it out in many blocks.
    const HostMatrix a = clcg::solver::random_spd(60000, 9, 7);
    TempDir dir;
    clcg::solver::write_matrix_market(dir.file("a.mtx"), a, true, "large");
    std::ifstream in(dir.file("a.mtx"), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MatrixMarketGzip, CompressedFileGivesTheSameMatrixAsThePlainOne) {
    TempDir dir;
    const std::string text = large_text();
    ASSERT_GT(text.size(), 3u << 20);
    write_text(dir.file("a.mtx"), text);
    write_text(dir.file("a.mtx.gz"), gzip(text));
    MatrixMarketInfo plain_info, gz_info;
    const HostMatrix plain = clcg::solver::read_matrix_market(dir.file("a.mtx"), &plain_info);
    const HostMatrix compressed = clcg::solver::read_matrix_market(dir.file("a.mtx.gz"), &gz_info);
    expect_identical(compressed, plain);
    EXPECT_EQ(gz_info.stored_entries, plain_info.stored_entries);
    EXPECT_EQ(gz_info.symmetry, MmSymmetry::symmetric);
    expect_identical(parse_matrix_market(gzip(text), "in memory"), plain);  // text in memory, too
}

TEST(MatrixMarketGzip, ToldByContentNotByName) {
    TempDir dir;
    const std::string text = real_general + "2 2 2\n1 1 4\n2 2 5\n";
    write_text(dir.file("compressed.mtx"), gzip(text));
    write_text(dir.file("plain.mtx.gz"), text);
    EXPECT_EQ(dense(clcg::solver::read_matrix_market(dir.file("compressed.mtx")))(1, 1), 5.0);
    EXPECT_EQ(dense(clcg::solver::read_matrix_market(dir.file("plain.mtx.gz")))(0, 0), 4.0);
}

TEST(MatrixMarketGzip, ErrorsGiveTheLineOfTheUncompressedFile) {
    TempDir dir;
    std::string text = large_text();
    const std::size_t line = 150000;  // far past the first decompressed block
    std::size_t at = 0;
    for (std::size_t k = 1; k < line; ++k) at = text.find('\n', at) + 1;
    text.replace(at, text.find('\n', at) - at, "1 1 oops");
    write_text(dir.file("bad.mtx"), text);
    write_text(dir.file("bad.mtx.gz"), gzip(text));
    const std::string plain = read_message(dir.file("bad.mtx"));
    EXPECT_NE(plain.find(":" + std::to_string(line) + ": bad value 'oops'"), std::string::npos) << plain;
    for (const ReadOptions& options : gzip_read_options()) {
        const std::string compressed = read_message(dir.file("bad.mtx.gz"), options);
        EXPECT_EQ(compressed.substr(compressed.find(':')), plain.substr(plain.find(':'))) << how(options);
    }
}

TEST(MatrixMarketGzip, SeveralMembersAreReadOneAfterTheOther) {
    TempDir dir;
    const std::string first = real_general + "3 3 3\n1 1 1\n", second = "2 2 2\n3 3 3\n";
    write_text(dir.file("two.mtx.gz"), gzip(first) + gzip(second));
    EXPECT_EQ(dense(clcg::solver::read_matrix_market(dir.file("two.mtx.gz"))).diagonal(), Eigen::Vector3d(1, 2, 3));
}

TEST(MatrixMarketGzip, MembersCutAnywhereReadAsOneText) {
    TempDir dir;
    const std::string text = compressible_text();
    write_text(dir.file("p.mtx"), text);
    const HostMatrix want = clcg::solver::read_matrix_market(dir.file("p.mtx"));
    // Empty members, cuts inside lines and numbers; the last member's size (the trailer's ISIZE)
    // is a third of the text.
    const std::size_t third = text.size() / 3;
    write_text(dir.file("cut.mtx.gz"), members(text, {0, 1000, 1003, third, third, 2 * third + 7}));
    expect_reads_as(dir.file("cut.mtx.gz"), want);
}

TEST(MatrixMarketGzip, ATrailerSizeShortOfTheTextStillReadsRight) {
    TempDir dir;
    const std::string text = compressible_text();
    write_text(dir.file("p.mtx"), text);
    const HostMatrix want = clcg::solver::read_matrix_market(dir.file("p.mtx"));
    // One large member, then one of the last 20 bytes: the trailer's ISIZE (20) is far below
    // the text, and the text is over 4x the compressed size, the guess when ISIZE cannot be it.
    const std::string last_small = members(text, {text.size() - 20});
    ASSERT_GT(text.size(), 4 * last_small.size());
    write_text(dir.file("last_small.mtx.gz"), last_small);
    expect_reads_as(dir.file("last_small.mtx.gz"), want);
    // A small member, then the rest: ISIZE is most of the text, so the first member fits and
    // the second does not.
    write_text(dir.file("first_small.mtx.gz"), members(text, {100}));
    expect_reads_as(dir.file("first_small.mtx.gz"), want);
}

TEST(MatrixMarketGzip, AWrongTrailerSizeOrBytesAfterTheLastMemberAreCorruptData) {
    TempDir dir;
    const std::string compressed = gzip(compressible_text());
    std::string wrong_size = compressed;
    wrong_size[wrong_size.size() - 4] = static_cast<char>(wrong_size[wrong_size.size() - 4] ^ 1);
    write_text(dir.file("wrong_size.mtx.gz"), wrong_size);
    write_text(dir.file("trailing.mtx.gz"), compressed + "\x01\x02 not a gzip member");
    for (const char* name : {"wrong_size.mtx.gz", "trailing.mtx.gz"}) {
        for (const ReadOptions& options : gzip_read_options()) {
            const std::string message = read_message(dir.file(name), options);
            EXPECT_EQ(message.rfind(dir.file(name) + ": corrupt gzip data (", 0), 0u)
                << how(options) << ": " << message;
        }
    }
}

// The process's peak address space (VmPeak), in bytes; 0 where /proc does not tell. A buffer
// sized from a lying trailer is never written, so only the address space shows it. ctest runs
// each test in its own process, so the peak starts low.
std::size_t address_space_peak() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmPeak:", 0) == 0) return std::stoull(line.substr(7)) * 1024;  // "VmPeak:  123 kB"
    }
    return 0;
}

// Reads `path` in every way and in memory: corrupt gzip data, named with the file, and no buffer
// sized from what the trailers claim (the address space grows by less than 1 GiB; threads and
// their malloc arenas take a few hundred MiB of it).
void expect_corrupt_without_claimed_buffer(const std::string& path, const std::string& bytes) {
    const std::size_t peak_before = address_space_peak();
    for (const ReadOptions& options : gzip_read_options()) {
        const std::string message = read_message(path, options);
        EXPECT_EQ(message.rfind(path + ": corrupt gzip data (", 0), 0u) << how(options) << ": " << message;
    }
    try {
        parse_matrix_market(bytes, "in memory");
        ADD_FAILURE() << "no InputError in memory";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("in memory: corrupt gzip data (", 0), 0u) << e.what();
    }
    if (peak_before == 0) GTEST_SKIP() << "no VmPeak in /proc/self/status: the address space is not checked";
    EXPECT_LT(address_space_peak() - peak_before, std::size_t{1} << 30);
}

TEST(MatrixMarketGzip, AnIsizeShortOfItsMemberIsCorruptAndSizesNoBufferPast4GiB) {
    // The fuzz finding (tests/fuzz/regressions/gzip-isize-below-text-*): an ISIZE that could be
    // the whole text (a little below the compressed size) but is short of it. The buffer used to
    // grow to ISIZE + 4 GiB, the next size of the form a single member's text can have.
    TempDir dir;
    std::string compressed = gzip(real_general + "2 2 2\n1 1 4.5\n2 2 5.25\n% " + std::string(200, 'x') + "\n");
    const std::size_t isize = compressed.size() - 18;
    for (std::size_t i = 0; i < 4; ++i) compressed[compressed.size() - 4 + i] = static_cast<char>(isize >> (8 * i));
    write_text(dir.file("short_isize.mtx.gz"), compressed);
    expect_corrupt_without_claimed_buffer(dir.file("short_isize.mtx.gz"), compressed);
}

TEST(MatrixMarketGzip, ABgzfMemberClaimingMoreTextThanItsDataCanHoldIsCorruptAndSizesNoBuffer) {
    // Deflate expands at most 1032:1: 30,000 empty BGZF members (2 bytes of data each) whose
    // trailers claim 64 KiB each, 1.9 GiB in all, were a buffer of that size.
    TempDir dir;
    const std::string empty = clcg::solver::compress_bgzf("", 6, 1);  // the end-of-file member alone
    std::string lying = empty;
    for (std::size_t i = 0; i < 4; ++i) lying[lying.size() - 4 + i] = static_cast<char>(std::size_t{1} << 16 >> (8 * i));
    std::string compressed = clcg::solver::compress_bgzf(real_general + "1 1 1\n1 1 2\n", 6, 1);
    for (int k = 0; k < 30000; ++k) compressed += lying;
    write_text(dir.file("claims.mtx.gz"), compressed);
    expect_corrupt_without_claimed_buffer(dir.file("claims.mtx.gz"), compressed);
}

TEST(MatrixMarketGzip, TextCompressedPastTheTrustedRatioStillReadsRight) {
    // A comment of 8 MB of one letter compresses several hundred to one: no trailer is trusted that
    // far, so the buffer grows from a small start, up to what deflate can hold (1032:1), and a
    // BGZF file is inflated as any gzip file.
    TempDir dir;
    const std::string text = real_symmetric + "% " + std::string(std::size_t{8} << 20, 'x') + "\n3 3 3\n1 1 2\n2 2 3\n3 1 -1\n";
    const HostMatrix want = parse(text);
    const std::string one_member = gzip(text, 9), bgzf = clcg::solver::compress_bgzf(text, 9, 1);
    ASSERT_GT(text.size(), 64 * one_member.size());
    ASSERT_GT(text.size(), 64 * bgzf.size());
    write_text(dir.file("one_member.mtx.gz"), one_member);
    write_text(dir.file("bgzf.mtx.gz"), bgzf);
    expect_reads_as(dir.file("one_member.mtx.gz"), want);
    expect_reads_as(dir.file("bgzf.mtx.gz"), want);
    expect_identical(parse_matrix_market(one_member, "in memory"), want);
}

// `member` with a header CRC (FHCRC: the low 16 bits of the CRC-32 of the header before it)
// inserted where its header ends; a wrong one unless `right`.
std::string with_header_crc(std::string member, std::size_t header_end, bool right) {
    member[3] = static_cast<char>(member[3] | 2);
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(member.data()), static_cast<uInt>(header_end));
    const unsigned value = (crc & 0xffff) ^ (right ? 0 : 1);
    return member.insert(header_end, {static_cast<char>(value & 0xff), static_cast<char>(value >> 8)});
}

TEST(MatrixMarketGzip, AHeaderCrcIsCheckedWholeAndStreamed) {
    // libdeflate skips the header CRC and zlib checks it: a wrong one read as a matrix whole and
    // as corrupt data streamed.
    TempDir dir;
    const std::string text = real_general + "2 2 2\n1 1 4\n2 2 5\n";
    write_text(dir.file("right.mtx.gz"), with_header_crc(gzip(text), 10, true));
    expect_reads_as(dir.file("right.mtx.gz"), parse(text));
    // A BGZF member's (inflated on its own): its block size (bytes 16-17) grows by the 2 bytes.
    const std::string bgzf = clcg::solver::compress_bgzf(text, 6, 1);
    const std::size_t eof_member = 28;
    std::string first = bgzf.substr(0, bgzf.size() - eof_member);
    first[16] = static_cast<char>(first[16] + 2);
    ASSERT_EQ(static_cast<unsigned char>(first[17]), (first.size() + 1) >> 8) << "no carry into the high byte";
    const std::string wrong_bgzf = with_header_crc(first, 18, false) + bgzf.substr(first.size());
    for (const auto& [name, bytes] : {std::pair("wrong.mtx.gz", with_header_crc(gzip(text), 10, false)),
                                      std::pair("wrong_bgzf.mtx.gz", wrong_bgzf)}) {
        write_text(dir.file(name), bytes);
        for (const ReadOptions& options : gzip_read_options()) {
            EXPECT_EQ(read_message(dir.file(name), options), dir.file(name) + ": corrupt gzip data (header crc mismatch)")
                << how(options);
        }
    }
}

TEST(MatrixMarketGzip, ALaterMemberTruncatedIsNamed) {
    TempDir dir;
    const std::string text = compressible_text();
    const std::string two = members(text, {text.size() / 2});
    write_text(dir.file("truncated.mtx.gz"), two.substr(0, two.size() - 100));
    for (const ReadOptions& options : gzip_read_options()) {
        const std::string message = read_message(dir.file("truncated.mtx.gz"), options);
        EXPECT_NE(message.find("truncated gzip file"), std::string::npos) << how(options) << ": " << message;
    }
}

TEST(MatrixMarketGzip, TruncatedAndCorruptArchivesAreNamed) {
    TempDir dir;
    const std::string compressed = gzip(large_text());
    write_text(dir.file("truncated.mtx.gz"), compressed.substr(0, compressed.size() / 2));
    EXPECT_NE(read_message(dir.file("truncated.mtx.gz")).find("truncated gzip file"), std::string::npos);
    std::string corrupt = compressed;
    for (std::size_t k = 1000; k < 1064; ++k) corrupt[k] = static_cast<char>(corrupt[k] ^ 0x5a);
    write_text(dir.file("corrupt.mtx.gz"), corrupt);
    const std::string message = read_message(dir.file("corrupt.mtx.gz"));
    EXPECT_EQ(message.rfind(dir.file("corrupt.mtx.gz"), 0), 0u) << message;
    EXPECT_NE(message.find("corrupt gzip data"), std::string::npos) << message;
    EXPECT_THROW(parse_matrix_market(corrupt, "in memory"), InputError);
    write_text(dir.file("only_magic.mtx.gz"), "\x1f\x8b");
    EXPECT_NE(read_message(dir.file("only_magic.mtx.gz")).find("gzip"), std::string::npos);
    write_text(dir.file("empty.mtx.gz"), gzip(""));
    EXPECT_NE(read_message(dir.file("empty.mtx.gz")).find("empty file"), std::string::npos);
}

TEST(MatrixMarketGzip, TarArchivesAreNamedWithWhatToDo) {
    TempDir dir;
    std::string tar(1024, '\0');  // one header block: a name, then "ustar" at byte 257
    tar.replace(0, 12, "bcsstk16.mtx");
    tar.replace(257, 5, "ustar");
    write_text(dir.file("bcsstk16.tar"), tar);
    write_text(dir.file("bcsstk16.tar.gz"), gzip(tar));
    for (const char* name : {"bcsstk16.tar", "bcsstk16.tar.gz"}) {
        const std::string message = read_message(dir.file(name));
        EXPECT_NE(message.find("is a tar archive"), std::string::npos) << message;
        EXPECT_NE(message.find("tar xzf"), std::string::npos) << message;
    }
}

TEST(MatrixMarketGzip, VectorsToo) {
    TempDir dir;
    write_text(dir.file("b.mtx.gz"), gzip("%%MatrixMarket matrix array real general\n3 1\n1\n2\n3.5\n"));
    EXPECT_EQ(clcg::solver::read_vector_market(dir.file("b.mtx.gz")), Eigen::Vector3d(1, 2, 3.5));
}

}  // namespace
