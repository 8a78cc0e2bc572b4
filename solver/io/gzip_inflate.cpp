#include "gzip_inflate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::solver::mm {

Inflater::Inflater() : d_(libdeflate_alloc_decompressor()) {
    if (d_ == nullptr) throw std::bad_alloc();
}

std::uint32_t gzip_isize(std::string_view compressed) {
    if (compressed.size() < 4) return 0;
    std::uint32_t isize = 0;
    for (std::size_t i = 0; i < 4; ++i)
        isize |= std::uint32_t{static_cast<unsigned char>(compressed[compressed.size() - 4 + i])} << (8 * i);
    return isize;
}

std::size_t gzip_text_size_guess(std::size_t compressed_size, std::uint32_t isize) {
    // Deflate grows incompressible text only by its stored blocks' 5 bytes per 65535, and a
    // member adds 18 bytes of header and trailer: a smaller ISIZE is not the whole text. Matrix
    // Market text compresses 2-12:1; an ISIZE over 64:1 is more likely the last bytes of a
    // truncated file, or of bytes after the last member, and not worth faulting in.
    const std::size_t overhead = 18 + compressed_size / 8192;
    const std::size_t least = compressed_size > overhead ? compressed_size - overhead : 0;
    const bool plausible = isize >= least && isize / trusted_deflate_ratio <= compressed_size;
    return plausible ? isize : 4 * compressed_size;
}

bool header_crc_matches(std::string_view member) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(member[i]); };
    constexpr unsigned fhcrc = 2, fextra = 4, fname = 8, fcomment = 16;  // RFC 1952 FLG bits
    if (member.size() < 10 || (byte(3) & fhcrc) == 0) return true;
    std::size_t at = 10;
    if ((byte(3) & fextra) != 0) at += member.size() >= 12 ? 2 + (byte(10) | byte(11) << 8) : member.size();
    for (const unsigned field : {fname, fcomment}) {  // zero-terminated
        if ((byte(3) & field) == 0) continue;
        while (at < member.size() && byte(at) != 0) ++at;
        ++at;
    }
    if (at + 2 > member.size()) return false;
    const std::uint32_t crc = libdeflate_crc32(0, member.data(), at);
    return (crc & 0xffff) == (byte(at) | std::uint32_t{byte(at + 1)} << 8);
}

std::size_t default_gzip_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::numeric_limits<std::size_t>::max();
    return static_cast<std::size_t>(pages) / 2 * static_cast<std::size_t>(page);
}

namespace {

// The buffer size to try after `capacity` bytes were too few for the member that starts `in`
// bytes into `compressed_size` bytes of gzip data, `text_size` bytes of text before it: twice as
// much, and while the first member (maybe the only one, so of size ISIZE + k * 2^32) did not
// fit, at least the next size of that form; never more than the data left can hold (a lying
// ISIZE asked for 4 GiB here). `capacity` itself when it already holds that much: the member
// is corrupt.
std::size_t gzip_buffer_growth(std::size_t capacity, std::size_t text_size, std::size_t in,
                               std::size_t compressed_size, std::uint32_t isize) {
    constexpr std::size_t wrap = std::size_t{1} << 32;  // ISIZE is the size mod 2^32
    const std::size_t most = text_size + max_gzip_text(compressed_size - in);
    if (capacity >= most) return capacity;
    const std::size_t doubled = std::max<std::size_t>(2 * capacity, std::size_t{1} << 20);
    const bool wrapped_size = in == 0 && capacity >= isize && (capacity - isize) % wrap == 0;
    return std::min(wrapped_size ? std::max(doubled, capacity + wrap) : doubled, most);
}

}  // namespace

Inflated inflate_gzip(std::string_view compressed, std::size_t max_text, unsigned threads, FileData& text) {
    const Inflater inflater;
    const std::uint32_t isize = gzip_isize(compressed);
    std::size_t capacity = std::min(gzip_text_size_guess(compressed.size(), isize), max_text);
    text.bytes.reset(new char[capacity + 1]);
    text.size = 0;
    if (capacity == isize) {
        // Most likely the exact size: fault its pages in on every thread first. On the inflating
        // thread alone they cost a quarter of the inflate time or more.
        char* bytes = text.bytes.get();
        parallel_ranges(capacity, threads_for(capacity, std::size_t{8} << 20, threads),
                        [&](std::size_t begin, std::size_t end, unsigned) {
                            std::memset(bytes + begin, 0, end - begin);
                        });
    }
    for (std::size_t in = 0; in < compressed.size();) {
        std::size_t member_in = 0, member_out = 0;
        const libdeflate_result result = libdeflate_gzip_decompress_ex(
            inflater.get(), compressed.data() + in, compressed.size() - in, text.bytes.get() + text.size,
            capacity - text.size, &member_in, &member_out);
        if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
            const std::size_t next = gzip_buffer_growth(capacity, text.size, in, compressed.size(), isize);
            if (next == capacity) return Inflated::bad_data;  // more text than the data can hold
            if (capacity >= max_text) return Inflated::too_large;
            capacity = std::min(next, max_text);
            std::unique_ptr<char[]> bigger(new char[capacity + 1]);
            std::memcpy(bigger.get(), text.bytes.get(), text.size);
            text.bytes = std::move(bigger);
            continue;  // the same member again
        }
        if (result != LIBDEFLATE_SUCCESS || !header_crc_matches(compressed.substr(in, member_in)))
            return Inflated::bad_data;
        in += member_in;
        text.size += member_out;
    }
    return Inflated::whole;
}

FileData gunzip_whole(std::string_view compressed, const std::string& name) {
    FileData text;
    if (inflate_gzip(compressed, default_gzip_memory_bytes(), 1, text) == Inflated::whole) return text;
    const std::string streamed = gunzip(compressed, name);  // throws for bad data, in zlib's words
    text.bytes.reset(new char[streamed.size() + 1]);
    std::memcpy(text.bytes.get(), streamed.data(), streamed.size());
    text.size = streamed.size();
    return text;
}

}  // namespace clcg::solver::mm
