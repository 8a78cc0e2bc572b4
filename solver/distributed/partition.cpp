#include "clcg/solver/distributed/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace clcg::distributed {
namespace {
std::int64_t round_to_chunk(std::int64_t row, std::int64_t chunk, std::int64_t rows) {
  return std::min(rows, (row + chunk / 2) / chunk * chunk);
}

// Cuts on multiples of the chunk and of `unit` (a node's rows stay on one rank).
Partition from_targets(std::int64_t rows, int ranks, std::int64_t chunk, std::int64_t unit, auto&& target_row) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  if (unit < 1) throw std::invalid_argument("a partition's unit must be at least 1");
  Partition p;
  p.chunk = chunk;
  const std::int64_t step = std::lcm(chunk, unit);
  p.offsets.assign(std::size_t(ranks) + 1, 0);
  for (int r = 1; r < ranks; ++r)
    p.offsets[std::size_t(r)] = std::max(p.offsets[std::size_t(r) - 1], round_to_chunk(target_row(r), step, rows));
  p.offsets.back() = rows;
  return p;
}
}  // namespace

std::int64_t dot_chunk(std::int64_t rows) {
  std::int64_t chunk = 32;
  while (chunk * 4096 < rows) chunk *= 2;
  return chunk;
}

int Partition::owner(std::int64_t row) const noexcept {
  return int(std::upper_bound(offsets.begin(), offsets.end(), row) - offsets.begin()) - 1;
}

Partition balanced_partition(const std::vector<std::int64_t>& row_ptr, int ranks, std::int64_t unit) {
  const std::int64_t rows = std::int64_t(row_ptr.size()) - 1, nnz = row_ptr.back();
  return from_targets(rows, ranks, dot_chunk(rows), unit, [&](int r) {
    const std::int64_t wanted = nnz / ranks * r + nnz % ranks * r / ranks;
    return std::int64_t(std::lower_bound(row_ptr.begin(), row_ptr.end(), wanted) - row_ptr.begin());
  });
}

Partition uniform_partition(std::int64_t rows, int ranks, std::int64_t unit) {
  return from_targets(rows, ranks, dot_chunk(rows), unit, [&](int r) { return rows / ranks * r + rows % ranks * r / ranks; });
}

Partition explicit_partition(std::int64_t rows, int ranks, const std::vector<std::int64_t>& cuts, std::int64_t unit) {
  if (int(cuts.size()) != ranks - 1)
    throw std::invalid_argument("--partition needs " + std::to_string(ranks - 1) + " cut rows for " +
                                std::to_string(ranks) + " ranks, got " + std::to_string(cuts.size()));
  Partition p;
  p.chunk = dot_chunk(rows);
  p.offsets = {0};
  for (std::int64_t cut : cuts) {
    if (cut < p.offsets.back() || cut > rows)
      throw std::invalid_argument("--partition: cut " + std::to_string(cut) + " is outside [" +
                                  std::to_string(p.offsets.back()) + ", " + std::to_string(rows) + "]");
    if (cut % p.chunk != 0 && cut != rows)
      throw std::invalid_argument("--partition: cut " + std::to_string(cut) + " is not a multiple of the dot chunk " +
                                  std::to_string(p.chunk) + " (rows / 4096 rounded up to a power of two, at least 32)");
    if (cut % unit != 0)
      throw std::invalid_argument("--partition: cut " + std::to_string(cut) + " is not a multiple of the block size " +
                                  std::to_string(unit) + " (a node's rows stay on one rank)");
    p.offsets.push_back(cut);
  }
  p.offsets.push_back(rows);
  return p;
}

std::vector<std::int64_t> parse_cuts(const std::string& text) {
  std::vector<std::int64_t> cuts;
  std::size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 0)
      throw std::invalid_argument("--partition: '" + item + "' is not a row number (expected e.g. 4096,8192)");
    cuts.push_back(value);
    at = comma + 1;
  }
  return cuts;
}

}  // namespace clcg::distributed
