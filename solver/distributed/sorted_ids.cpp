#include "clcg/solver/distributed/sorted_ids.hpp"

#include <algorithm>
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

}  // namespace clcg::distributed
