#include "clcg/solver/distributed/sorted_ids.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {

std::vector<std::int64_t> sorted_distinct(std::vector<std::int64_t> ids) {
  if (std::is_sorted(ids.begin(), ids.end())) {
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  }
  const unsigned threads = solver::threads_for(ids.size(), std::size_t(1) << 16);
  std::vector<std::vector<std::int64_t>> parts(threads);
  solver::parallel_ranges(ids.size(), threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    std::vector<std::int64_t>& part = parts[t];
    part.assign(ids.begin() + std::ptrdiff_t(begin), ids.begin() + std::ptrdiff_t(end));
    std::sort(part.begin(), part.end());
    part.erase(std::unique(part.begin(), part.end()), part.end());
  });
  while (parts.size() > 1) {  // pairs of sorted, distinct parts into one (set_union keeps one of each)
    std::vector<std::vector<std::int64_t>> merged((parts.size() + 1) / 2);
    solver::parallel_ranges(merged.size(), unsigned(merged.size()), [&](std::size_t begin, std::size_t end, unsigned) {
      for (std::size_t i = begin; i < end; ++i) {
        if (2 * i + 1 == parts.size()) {
          merged[i] = std::move(parts[2 * i]);
          continue;
        }
        const std::vector<std::int64_t>&a = parts[2 * i], &b = parts[2 * i + 1];
        merged[i].resize(a.size() + b.size());
        merged[i].erase(std::set_union(a.begin(), a.end(), b.begin(), b.end(), merged[i].begin()), merged[i].end());
      }
    });
    parts = std::move(merged);
  }
  return parts.empty() ? std::vector<std::int64_t>{} : std::move(parts.front());
}

std::vector<std::int64_t> sorted_distinct_below(std::span<const std::int64_t> ids, std::int64_t universe) {
  const std::size_t words = std::size_t(std::max<std::int64_t>(universe, 0) + 63) / 64;
  std::vector<std::uint64_t> bits(words, 0);
  std::atomic<bool> outside{false};
  solver::parallel_for(ids.size(), std::size_t(1) << 16, [&](std::size_t k) {
    const std::int64_t id = ids[k];
    if (id < 0 || id >= universe) {
      outside.store(true, std::memory_order_relaxed);
      return;
    }
    const std::uint64_t bit = std::uint64_t(1) << (id % 64);
    std::uint64_t& word = bits[std::size_t(id / 64)];
    // (read first: most ids repeat, and a plain read leaves the cache line shared)
    if ((std::atomic_ref<std::uint64_t>(word).load(std::memory_order_relaxed) & bit) == 0)
      std::atomic_ref<std::uint64_t>(word).fetch_or(bit, std::memory_order_relaxed);
  });
  if (outside)
    throw std::out_of_range("sorted_distinct_below: an id outside [0, " + std::to_string(universe) + ")");
  // Each thread's words counted, then written from its first slot.
  const unsigned threads = solver::threads_for(words, std::size_t(1) << 14);
  std::vector<std::size_t> first(std::size_t(threads) + 1, 0);
  solver::parallel_ranges(words, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t w = begin; w < end; ++w) first[t + 1] += std::size_t(std::popcount(bits[w]));
  });
  for (unsigned t = 0; t < threads; ++t) first[t + 1] += first[t];
  std::vector<std::int64_t> out(first.back());
  solver::parallel_ranges(words, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    std::size_t at = first[t];
    for (std::size_t w = begin; w < end; ++w)
      for (std::uint64_t b = bits[w]; b != 0; b &= b - 1) out[at++] = std::int64_t(64 * w) + std::countr_zero(b);
  });
  return out;
}

}  // namespace clcg::distributed
