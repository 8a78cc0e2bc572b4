#pragma once
// BGZF files (bgzip from htslib, `bgzip -@ 16 A.mtx`): gzip members of at most 64 KiB of
// text, each giving its compressed size in a 'BC' extra field and its text size in its
// trailer, so every member can be inflated on its own thread straight into its place in the
// text (io/ internal). An ordinary gzip file is one member that only one thread can inflate.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "file_blocks.hpp"

namespace clcg::solver::mm {

struct GzipMember {
    std::size_t offset = 0;  // in the compressed file
    std::size_t size = 0;
    std::size_t text_offset = 0;  // in the inflated text
    std::size_t text_size = 0;
};

// The members of a BGZF file, or nothing when `compressed` is not BGZF from start to end or a
// member's trailer claims more text than its data can hold.
std::optional<std::vector<GzipMember>> bgzf_members(std::string_view compressed);

// Inflates every member into text (text_offset + text_size of the last member bytes) on
// `threads` threads with libdeflate, checking each member's CRC and size; false when any is
// corrupt.
bool inflate_members(std::string_view compressed, const std::vector<GzipMember>& members, char* text,
                     unsigned threads);

// The text of a BGZF file (its compressed bytes in memory) inflated on `threads` threads;
// nothing when the file is not BGZF, its text is over `max_text` bytes or over 64 times the
// compressed size (trailers trusted no further), or a member is corrupt (the caller then reads
// it as any gzip file).
std::optional<FileData> inflate_bgzf(std::string_view compressed, std::size_t max_text, unsigned threads);

}  // namespace clcg::solver::mm
