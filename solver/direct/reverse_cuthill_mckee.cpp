#include "clcg/solver/direct/reverse_cuthill_mckee.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace clcg::solver {
namespace {

struct Levels {
  std::size_t last_begin = 0;  // where the last level begins in the visit order
  std::size_t count = 0;       // how many levels
};

struct Graph {
  const CsrView& a;
  std::vector<int> degree;

  explicit Graph(const CsrView& m) : a(m), degree(std::size_t(m.rows)) {
    for (std::int32_t r = 0; r < a.rows; ++r)
      for (std::int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
        degree[std::size_t(r)] += a.col_idx[std::size_t(p)] != r;
  }

  // Breadth-first from `start` over the rows neither taken nor seen (marking them seen),
  // appended to `visit`; each row's new neighbours by increasing degree, then index.
  Levels search(int start, const std::vector<char>& taken, std::vector<char>& seen, std::vector<int>& visit) const {
    Levels levels;
    std::size_t begin = visit.size();
    visit.push_back(start);
    seen[std::size_t(start)] = 1;
    std::vector<std::pair<int, int>> fresh;  // (degree, row)
    while (begin < visit.size()) {
      const std::size_t end = visit.size();
      levels.last_begin = begin;
      ++levels.count;
      for (std::size_t v = begin; v < end; ++v) {
        const int r = visit[v];
        fresh.clear();
        for (std::int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
          const std::size_t c = std::size_t(a.col_idx[std::size_t(p)]);
          if (taken[c] || seen[c]) continue;
          seen[c] = 1;
          fresh.emplace_back(degree[c], int(c));
        }
        std::sort(fresh.begin(), fresh.end());
        for (const auto& entry : fresh) visit.push_back(entry.second);
      }
      begin = end;
    }
    return levels;
  }

  // George and Liu's pseudo-peripheral row among the rows not taken that `start` reaches:
  // search again from the last level's row of least degree while that makes the search deeper.
  int peripheral(int start, const std::vector<char>& taken, std::vector<char>& seen) const {
    std::vector<int> visit;
    int best = start;
    std::size_t depth = 0;
    for (int round = 0; round < 8; ++round) {
      visit.clear();
      const Levels levels = search(best, taken, seen, visit);
      for (const int r : visit) seen[std::size_t(r)] = 0;  // unmarked for the next round
      if (round > 0 && levels.count <= depth) break;
      depth = levels.count;
      int next = visit[levels.last_begin];
      for (std::size_t v = levels.last_begin; v < visit.size(); ++v)
        if (degree[std::size_t(visit[v])] < degree[std::size_t(next)]) next = visit[v];
      if (next == best) break;
      best = next;
    }
    return best;
  }
};

}  // namespace

std::vector<int> reverse_cuthill_mckee(const CsrView& a) {
  if (a.rows != a.cols)
    throw std::invalid_argument("reverse Cuthill-McKee needs a square matrix, got " + std::to_string(a.rows) + " x " +
                                std::to_string(a.cols));
  const std::size_t n = std::size_t(a.rows);
  const Graph graph(a);
  // A matrix whose pattern is not symmetric may lead a search into rows already ordered: every
  // search skips the taken rows, so each row is ordered once.
  std::vector<char> taken(n, 0), seen(n, 0);
  std::vector<int> order;
  order.reserve(n);
  for (std::size_t r = 0; r < n; ++r) {  // each part from its first row not yet ordered
    if (taken[r]) continue;
    graph.search(graph.peripheral(int(r), taken, seen), taken, taken, order);
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace clcg::solver
