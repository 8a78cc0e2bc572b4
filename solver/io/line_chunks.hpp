#pragma once
// Text cut into chunks of complete lines and parsed on several threads while the calling
// thread reads (or inflates) the next chunks (io/ internal). Chunks are numbered in text
// order, so the caller can put per-chunk results back together in that order.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace clcg::solver::mm {

// Reads up to n bytes into p; returns fewer only at the end of the text.
using ReadBytes = std::function<std::size_t(char* p, std::size_t n)>;
// Parses chunk `index`; returns false to stop the reading early (the text is bad).
using ParseChunk = std::function<bool(std::size_t index, std::string_view lines)>;

// Hands `pending` (text already read) followed by everything `read` gives, cut after a '\n'
// about every chunk_bytes (a longer line makes a longer chunk; the last chunk may end
// without '\n'), to parse() on `workers` threads. At most 2 * workers + 1 chunks are in
// memory at once, in buffers that are reused. An exception from read() or parse() stops
// the reading and is rethrown once every worker has stopped.
void parse_line_chunks(std::string pending, const ReadBytes& read, std::size_t chunk_bytes, unsigned workers,
                       const ParseChunk& parse);

// The same for text already in memory: the chunks are views into `text`, cut after a '\n'
// about every chunk_bytes, and taken in order by `workers` threads.
void parse_text_chunks(std::string_view text, std::size_t chunk_bytes, unsigned workers, const ParseChunk& parse);

}  // namespace clcg::solver::mm
