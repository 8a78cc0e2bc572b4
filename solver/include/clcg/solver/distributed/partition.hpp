#pragma once
// How a global matrix's rows are split over MPI ranks: contiguous blocks, rank r holding rows
// [offsets[r], offsets[r+1]). Every cut is a multiple of the dot chunk (dot_chunk), so each
// chunk of a dot product lies on one rank and its partial sum is the same on any rank count.
#include <cstdint>
#include <string>
#include <vector>

namespace clcg::distributed {

// Elements per dot-product chunk for a problem of `rows` rows: the power of two >= rows / 4096
// (about 4096 partials per dot at most, whatever the size), at least 32. A function of the
// global size only.
std::int64_t dot_chunk(std::int64_t rows);

struct Partition {
  std::vector<std::int64_t> offsets{0};  // ranks + 1, non-decreasing, from 0 to rows
  std::int64_t chunk = 32;

  int ranks() const noexcept { return int(offsets.size()) - 1; }
  std::int64_t rows() const noexcept { return offsets.back(); }
  std::int64_t begin(int rank) const noexcept { return offsets[std::size_t(rank)]; }
  std::int64_t size(int rank) const noexcept { return offsets[std::size_t(rank) + 1] - offsets[std::size_t(rank)]; }
  int owner(std::int64_t row) const noexcept;  // the rank holding `row` (0 <= row < rows())
};

// Cuts balancing the nonzeros (row_ptr: rows + 1 offsets of the global CSR), each rounded to
// the nearest multiple of the chunk and of `unit` (a block system's node size: a node's rows
// stay on one rank). Ranks past the rows get none.
Partition balanced_partition(const std::vector<std::int64_t>& row_ptr, int ranks, std::int64_t unit = 1);
// Cuts balancing the rows (generated problems, whose rows are alike).
Partition uniform_partition(std::int64_t rows, int ranks, std::int64_t unit = 1);
// The caller's cuts: ranks - 1 row numbers, non-decreasing, each a multiple of the chunk and of
// `unit` (std::invalid_argument saying which is not).
Partition explicit_partition(std::int64_t rows, int ranks, const std::vector<std::int64_t>& cuts,
                             std::int64_t unit = 1);
// "0,4096,8192" for --partition.
std::vector<std::int64_t> parse_cuts(const std::string& text);

}  // namespace clcg::distributed
