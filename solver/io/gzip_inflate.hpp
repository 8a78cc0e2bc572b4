#pragma once
// gzip text inflated whole by libdeflate (io/ internal): the compressed bytes in memory, the
// text into one buffer sized from the trailer. libdeflate inflates 2-3x faster than zlib but
// cannot stream, so zlib's streaming reader (file_blocks.hpp) stays for texts too large for
// memory and for naming what is wrong with bad data, in zlib's words.
#include <libdeflate.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "file_blocks.hpp"

namespace clcg::solver::mm {

// One libdeflate decompressor (a few tens of KB of tables), one per thread.
class Inflater {
public:
    Inflater();
    ~Inflater() { libdeflate_free_decompressor(d_); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
    libdeflate_decompressor* get() const { return d_; }

private:
    libdeflate_decompressor* d_;
};

// Deflate writes at most 1032 bytes of text per compressed byte (a 258-byte match costs at
// least two 1-bit codes), so no gzip data holds more text than 1032 times its size, whatever
// its trailers say. Every inflate buffer stays within this: a member that needs more is corrupt.
constexpr std::size_t max_deflate_ratio = 1032;
// Matrix Market text compresses 2-12:1: a text size claimed beyond 64 times the compressed
// size is trusted for no buffer sized up front (the buffer grows from less as the text comes).
constexpr std::size_t trusted_deflate_ratio = 64;
// The most text `compressed_size` bytes of gzip data can hold (no overflow: bytes in memory
// are far fewer than 2^54).
inline std::size_t max_gzip_text(std::size_t compressed_size) { return max_deflate_ratio * compressed_size; }

// The text size to try first, from the compressed size and the trailer's ISIZE (the last
// member's text size mod 2^32): ISIZE where the compressed data could be all of that one
// member at under 64:1, else (several members, text past 4 GiB, a truncated file, a lying
// trailer) 4x the compressed size.
std::size_t gzip_text_size_guess(std::size_t compressed_size, std::uint32_t isize);
// ISIZE: the last 4 bytes, little-endian (0 for fewer).
std::uint32_t gzip_isize(std::string_view compressed);

// False when the gzip member at the start of `member` (one libdeflate accepted) has a header
// CRC (FHCRC) that does not match its header. libdeflate skips that CRC; zlib checks it, so
// without this a file would read whole but not streamed.
bool header_crc_matches(std::string_view member);

// The default of ReadOptions::gzip_memory_bytes: half the physical memory.
std::size_t default_gzip_memory_bytes();

enum class Inflated { whole, too_large, bad_data };

// Inflates every member of `compressed` into `text`. A short guess grows the buffer (doubling,
// never past what the data left can hold) and inflates the member that did not fit again
// (libdeflate cannot resume); members already inflated stay. too_large when the text would pass
// `max_text` bytes; bad_data for corrupt or truncated data (a member with more text than its
// bytes can hold included) or bytes after a member that start no valid member (the caller then
// lets zlib's reader name the error and the file). A guess from ISIZE has its pages faulted in
// on `threads` threads first; a larger guess (4x the compressed size) is left untouched beyond
// the text, so it costs address space, not memory.
Inflated inflate_gzip(std::string_view compressed, std::size_t max_text, unsigned threads, FileData& text);

// A gzip text in memory inflated whole: libdeflate, then for bad data zlib's gunzip, whose
// InputError names `name` and what is wrong.
FileData gunzip_whole(std::string_view compressed, const std::string& name);

}  // namespace clcg::solver::mm
