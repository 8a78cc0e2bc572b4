#include "bgzf.hpp"

#include <zlib.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <string>

#include "clcg/solver/io/host_threads.hpp"
#include "gzip_inflate.hpp"

namespace clcg::solver::mm {
namespace {

constexpr std::size_t max_member_text = std::size_t{1} << 16;  // BGZF's limit

unsigned byte_at(std::string_view s, std::size_t i) { return static_cast<unsigned char>(s[i]); }
unsigned le16(std::string_view s, std::size_t i) { return byte_at(s, i) | byte_at(s, i + 1) << 8; }
std::size_t le32(std::string_view s, std::size_t i) { return le16(s, i) | std::size_t{le16(s, i + 2)} << 16; }

// The compressed size of the member at `at` from its 'BC' subfield (RFC 1952 FEXTRA), or 0.
std::size_t bgzf_member_size(std::string_view c, std::size_t at) {
    constexpr std::size_t fixed_header = 12;  // ID1 ID2 CM FLG MTIME(4) XFL OS XLEN(2)
    if (c.size() - at < fixed_header || byte_at(c, at) != 0x1f || byte_at(c, at + 1) != 0x8b ||
        byte_at(c, at + 2) != 8 || (byte_at(c, at + 3) & 4) == 0)
        return 0;
    const std::size_t xlen = le16(c, at + 10);
    if (c.size() - at < fixed_header + xlen) return 0;
    for (std::size_t sub = at + fixed_header; sub + 4 <= at + fixed_header + xlen;) {
        const std::size_t length = le16(c, sub + 2);
        if (c[sub] == 'B' && c[sub + 1] == 'C' && length == 2 && sub + 6 <= at + fixed_header + xlen)
            return le16(c, sub + 4) + std::size_t{1};
        sub += 4 + length;
    }
    return 0;
}

void put_le(std::string& s, std::size_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) s += static_cast<char>((value >> (8 * i)) & 0xff);
}

// One BGZF member: the gzip header with the 'BC' field, raw deflate data, CRC32 and size.
std::string bgzf_member(std::string_view deflated, std::string_view text) {
    std::string m("\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06\0BC\x02\0", 16);
    put_le(m, 16 + 2 + deflated.size() + 8 - 1, 2);
    m += deflated;
    const uLong crc = crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
    put_le(m, crc, 4);
    put_le(m, text.size(), 4);
    return m;
}

}  // namespace

std::optional<std::vector<GzipMember>> bgzf_members(std::string_view compressed) {
    std::vector<GzipMember> members;
    std::size_t text = 0;
    for (std::size_t at = 0; at < compressed.size();) {
        const std::size_t size = bgzf_member_size(compressed, at);
        constexpr std::size_t trailer = 8;  // CRC32, ISIZE
        if (size < 12 + trailer || size > compressed.size() - at) return std::nullopt;
        const std::size_t header = 12 + le16(compressed, at + 10);  // the fixed part and the extra field
        if (header + trailer > size) return std::nullopt;
        // A trailer claiming more text than the member's data can hold is corrupt: not inflated in
        // place, so the reader for any gzip file names it.
        const std::size_t text_size = le32(compressed, at + size - 4);
        if (text_size > max_member_text || text_size > max_gzip_text(size - header - trailer)) return std::nullopt;
        members.push_back({at, size, text, text_size});
        text += text_size;
        at += size;
    }
    if (members.empty()) return std::nullopt;
    return members;
}

bool inflate_members(std::string_view compressed, const std::vector<GzipMember>& members, char* text,
                     unsigned threads) {
    std::atomic<bool> ok{true};
    threads = threads_for(members.size(), 16, threads);
    parallel_ranges(members.size(), threads, [&](std::size_t begin, std::size_t end, unsigned) {
        const Inflater inflater;
        for (std::size_t m = begin; m < end && ok; ++m) {
            const GzipMember& member = members[m];
            std::size_t used = 0;
            // Success only once the trailer's CRC and size have matched, and with no actual-size
            // pointer only when the member fills its text exactly; the header's CRC is ours to check.
            if (libdeflate_gzip_decompress_ex(inflater.get(), compressed.data() + member.offset, member.size,
                                              text + member.text_offset, member.text_size, &used,
                                              nullptr) != LIBDEFLATE_SUCCESS ||
                used != member.size || !header_crc_matches(compressed.substr(member.offset, member.size)))
                ok = false;
        }
    });
    return ok;
}

}  // namespace clcg::solver::mm

namespace clcg::solver {

std::string compress_bgzf(std::string_view text, int level, unsigned threads) {
    using namespace mm;
    constexpr std::size_t block = 0xff00;  // bgzip's: leaves room for incompressible data
    const std::size_t blocks = (text.size() + block - 1) / block;
    std::vector<std::string> members(blocks + 1);
    parallel_ranges(blocks, threads_for(blocks, 16, threads), [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t b = begin; b < end; ++b) {
            const std::string_view piece = text.substr(b * block, block);
            z_stream z{};
            if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
            std::string data(deflateBound(&z, static_cast<uLong>(piece.size())), '\0');
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
            z.avail_in = static_cast<uInt>(piece.size());
            z.next_out = reinterpret_cast<Bytef*>(data.data());
            z.avail_out = static_cast<uInt>(data.size());
            const int status = deflate(&z, Z_FINISH);
            data.resize(z.total_out);
            deflateEnd(&z);
            if (status != Z_STREAM_END) throw std::runtime_error("compress_bgzf: deflate failed");
            members[b] = bgzf_member(data, piece);
        }
    });
    members[blocks] = bgzf_member(std::string("\x03\x00", 2), {});  // the end-of-file marker: empty data
    std::string out;
    for (const std::string& m : members) out += m;
    return out;
}

}  // namespace clcg::solver

namespace clcg::solver::mm {

std::optional<FileData> inflate_bgzf(std::string_view compressed, std::size_t max_text, unsigned threads) {
    if (bgzf_member_size(compressed, 0) == 0) return std::nullopt;
    const auto members = bgzf_members(compressed);
    if (!members) return std::nullopt;
    FileData text;
    text.size = members->back().text_offset + members->back().text_size;
    // Sized up front from the trailers, so only as far as they are trusted; beyond, the reader
    // for any gzip file grows its buffer as the text comes.
    if (text.size > max_text || text.size / trusted_deflate_ratio > compressed.size()) return std::nullopt;
    text.bytes.reset(new char[text.size + 1]);
    if (!inflate_members(compressed, *members, text.bytes.get(), threads)) return std::nullopt;
    return text;
}

}  // namespace clcg::solver::mm
