#pragma once
// The entries of a Matrix Market matrix file read on several threads (io/ internal): the
// header on the calling thread, then chunks of entry lines parsed by workers while the
// calling thread reads or inflates the next chunks.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coo.hpp"
#include "line_chunks.hpp"
#include "mm_format.hpp"

namespace clcg::solver::mm {

struct Entries {
    Header header;
    std::vector<Coo> parts;  // one per chunk, in file order
};

// Nothing when the text has an error, or a header that does not fit the first chunk: the
// serial reader then reads it again and names the first error with its line, so the
// messages are the serial reader's by construction. An error costs one more read.
std::optional<Entries> read_entries_in_parallel(const ReadBytes& read, const std::string& name, unsigned workers,
                                                std::size_t chunk_bytes);
// The same for text in memory: chunks are views into it, nothing is copied.
std::optional<Entries> parse_entries_in_parallel(std::string_view text, const std::string& name, unsigned workers,
                                                 std::size_t chunk_bytes);

}  // namespace clcg::solver::mm
