// Matrix Market I/O for clcg: a strict, fast reader and an atomic writer.
//
// Accepted matrix files
//   %%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>
//   (keywords case-insensitive), then `%` comment lines and blank lines anywhere,
//   then the size line `rows cols entries`, then exactly `entries` lines `i j [value]`
//   with 1-based indices. LF or CRLF line endings, spaces or tabs between tokens.
//   Values are read as C's strtod reads them (`+1.5`, `.199E+04`, `-.4755112`, `1e-3`,
//   hex floats; values that underflow become 0). Integer fields need integer values;
//   pattern entries have no value and count as 1.0.
//   Duplicated entries are summed (the SuiteSparse convention). A symmetric file may
//   store either triangle (or a mix), but not both (i,j) and (j,i) for i != j; it is
//   expanded once into full storage.
//   A 0x0 matrix with 0 entries is valid and gives an empty matrix.
//
// Rejected (InputError): missing/bad banner, objects other than `matrix`, array format
//   for a matrix, complex/hermitian/skew-symmetric, unknown words, non-square sizes,
//   bad/negative sizes, sizes or expanded nonzero counts beyond 32-bit int indices,
//   coordinate sizes whose declared rows exceed what the entries can reach by more than
//   2^24 (empty matrix rows, implicit vector zeros: refused rather than allocated),
//   indices 0 or beyond the size, too few or too many entries, bad or extra/missing
//   tokens, NaN/Inf or out-of-range values, empty files, directories, unreadable files.
//
// Error messages are "<file>:<line>: <message>" with a 1-based line number, or
// "<file>: <message>" where no line applies (cannot open, empty file). A truncated file
// reports the last line of the file.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/io/input_error.hpp"

namespace clcg::solver {

enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric };

// What the file declared (before expansion and duplicate summing).
struct MatrixMarketInfo {
    MmField field = MmField::real;
    MmSymmetry symmetry = MmSymmetry::general;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t stored_entries = 0;  // the count on the size line
};

// How a matrix file is read. On several threads the result has the same bits and an error
// the same message (and line) as on one: the entries are parsed in chunks of lines while
// the next chunks are read or inflated, and a chunk with an error makes the serial reader
// read the file again to name it.
struct ReadOptions {
    unsigned threads = 0;  // 0: host_threads() (CLCG_THREADS, else every core) for text over
                           // 1 MiB, 1 below; 1: the serial reader
    std::size_t chunk_bytes = std::size_t{4} << 20;  // text parsed per task
    // A gzip file whose compressed bytes and text fit in this many bytes is read whole and
    // inflated whole (libdeflate; a BGZF file's members on every thread), then parsed in
    // memory; the text is freed before the CSR is built. A larger one is inflated as a stream
    // (zlib, one thread inflating while the others parse). 0: half the physical memory.
    std::size_t gzip_memory_bytes = 0;
};

// Reads a coordinate matrix file (see the top of this header). Throws InputError.
HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr);
HostMatrix read_matrix_market(const std::string& path, MatrixMarketInfo* info, const ReadOptions& options);

// The same parser on text already in memory; name_for_errors is used in messages.
HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors,
                               MatrixMarketInfo* info = nullptr);
HostMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors, MatrixMarketInfo* info,
                               const ReadOptions& options);

// Reads a vector: `matrix array <real|integer> general` with size line `n 1` and one
// value per line, or a coordinate n x 1 `general` file (missing entries are 0,
// duplicates summed). Throws InputError.
Eigen::VectorXd read_vector_market(const std::string& path);
Eigen::VectorXd parse_vector_market(std::string_view text, const std::string& name_for_errors);

// Reads a dense matrix: `matrix array <real|integer> general`, size line `rows cols` (cols >= 1),
// then rows x cols values one a line, column by column (the Matrix Market array order). For
// near-null-space vectors (n x k) and node coordinates (nodes x d). Throws InputError.
Eigen::MatrixXd read_dense_market(const std::string& path);
Eigen::MatrixXd parse_dense_market(std::string_view text, const std::string& name_for_errors);

// Throws InputError("<file>: <what> has <n> entries but the matrix has <expected> rows").
void check_vector_length(const Eigen::VectorXd& v, Eigen::Index expected, const std::string& file,
                         const char* what);

// Writes `coordinate real general` (all entries), or with symmetric_lower the entries
// with col <= row as `coordinate real symmetric` (the matrix must be square; its upper
// triangle is not checked). Values use %.17g so a read gives back the same doubles.
// `comment` (optional, may span lines) is written as `%` lines after the banner.
// The file is replaced atomically; throws std::runtime_error on any I/O failure.
void write_matrix_market(const std::string& path, const HostMatrix& a, bool symmetric_lower = false,
                         std::string_view comment = {});

// `text` gzip-compressed as BGZF (what bgzip writes: independent members of at most 64 KiB
// of text), on `threads` threads (0: host_threads()). Any gzip reader reads it; clcg's reader
// inflates its members on every core. Throws std::runtime_error if zlib fails.
std::string compress_bgzf(std::string_view text, int level = 6, unsigned threads = 0);

// Writes `matrix array real general`, size line `n 1`, %.17g values; atomic.
void write_vector_market(const std::string& path, const Eigen::VectorXd& v);
// The same for rows x cols, column by column (what read_dense_market reads).
void write_dense_market(const std::string& path, const Eigen::MatrixXd& m);

}  // namespace clcg::solver
