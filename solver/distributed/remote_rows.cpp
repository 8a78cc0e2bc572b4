#include "clcg/solver/distributed/remote_rows.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {
namespace {

constexpr std::size_t rows_a_thread = std::size_t(1) << 14;

}  // namespace

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  if (!counts.empty()) std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
  return offsets;
}

std::vector<std::int64_t> foreign_columns(const LocalRows& rows, const Partition& partition, int rank) {
  const std::int64_t begin = partition.begin(rank), end = begin + partition.size(rank);
  std::vector<std::int64_t> out;
  for (std::int64_t c : rows.col)
    if (c < begin || c >= end) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RemoteRows fetch_rows(MPI_Comm comm, const Partition& partition, const LocalRows& rows,
                      const std::vector<std::int64_t>& wanted) {
  const int ranks = partition.ranks();
  std::vector<int> ask_counts(std::size_t(ranks), 0);
  for (std::int64_t id : wanted) ++ask_counts[std::size_t(partition.owner(id))];
  std::vector<int> asked_counts;
  const std::vector<std::int64_t> asked = all_to_all(comm, wanted, ask_counts, &asked_counts);
  // The answers, request by request: each row's length, then its columns and values.
  std::vector<std::int64_t> lengths(asked.size()), cols;
  std::vector<double> values;
  std::vector<int> entry_counts(std::size_t(ranks), 0);
  for (std::size_t r = 0, at = 0; r < std::size_t(ranks); ++r)
    for (int q = 0; q < asked_counts[r]; ++q, ++at) {
      const std::int64_t i = asked[at] - rows.row_begin;
      if (i < 0 || i >= rows.rows())
        throw std::logic_error("fetch_rows: row " + std::to_string(asked[at]) + " asked of a rank that lacks it");
      const std::int64_t first = rows.row_ptr[std::size_t(i)], last = rows.row_ptr[std::size_t(i) + 1];
      lengths[at] = last - first;
      entry_counts[r] += int(last - first);
      cols.insert(cols.end(), rows.col.begin() + first, rows.col.begin() + last);
      values.insert(values.end(), rows.values.begin() + first, rows.values.begin() + last);
    }
  RemoteRows out;
  out.ids = wanted;
  const std::vector<std::int64_t> got_lengths = all_to_all(comm, lengths, asked_counts);
  out.row_ptr.resize(got_lengths.size() + 1);
  std::partial_sum(got_lengths.begin(), got_lengths.end(), out.row_ptr.begin() + 1);
  out.col = all_to_all(comm, cols, entry_counts);
  out.values = all_to_all(comm, values, entry_counts);
  return out;
}

LocalRows transpose_rows(MPI_Comm comm, const LocalRows& rows, const Partition& columns) {
  const int ranks = columns.ranks(), rank = comm_rank(comm);
  // Every entry (i, c, v) goes to c's owner as (c, i) and v, in row order: what a rank receives
  // from lower ranks comes first, so each transposed row ends up sorted by i.
  std::vector<int> counts(std::size_t(ranks), 0);
  for (std::int64_t c : rows.col) ++counts[std::size_t(columns.owner(c))];
  std::vector<int> at = offsets_of(counts);
  std::vector<std::int64_t> pairs(2 * rows.col.size());
  std::vector<double> values(rows.col.size());
  for (std::int64_t i = 0; i < rows.rows(); ++i)
    for (std::int64_t k = rows.row_ptr[std::size_t(i)]; k < rows.row_ptr[std::size_t(i) + 1]; ++k) {
      const std::int64_t c = rows.col[std::size_t(k)];
      const std::size_t slot = std::size_t(at[std::size_t(columns.owner(c))]++);
      pairs[2 * slot] = c;
      pairs[2 * slot + 1] = rows.row_begin + i;
      values[slot] = rows.values[std::size_t(k)];
    }
  std::vector<int> pair_counts(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) pair_counts[r] = 2 * counts[r];
  const std::vector<std::int64_t> got = all_to_all(comm, pairs, pair_counts);
  const std::vector<double> got_values = all_to_all(comm, values, counts);
  LocalRows t;
  t.global_rows = columns.rows();
  t.row_begin = columns.begin(rank);
  const std::size_t n = std::size_t(columns.size(rank)), entries = got_values.size();
  t.row_ptr.assign(n + 1, 0);
  for (std::size_t e = 0; e < entries; ++e) ++t.row_ptr[std::size_t(got[2 * e] - t.row_begin) + 1];
  std::partial_sum(t.row_ptr.begin(), t.row_ptr.end(), t.row_ptr.begin());
  std::vector<std::int64_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  t.col.resize(entries);
  t.values.resize(entries);
  for (std::size_t e = 0; e < entries; ++e) {  // stable: each row keeps the arrival order, sorted by i
    const std::size_t slot = std::size_t(next[std::size_t(got[2 * e] - t.row_begin)]++);
    t.col[slot] = got[2 * e + 1];
    t.values[slot] = got_values[e];
  }
  return t;
}

LocalRows multiply_rows(const LocalRows& a, const LocalRows& owned, const RemoteRows& remote) {
  const std::size_t n = std::size_t(a.rows());
  const auto b_row = [&](std::int64_t j, std::int64_t& first, std::int64_t& last,
                         const std::vector<std::int64_t>*& cols, const std::vector<double>*& vals) {
    const std::int64_t i = j - owned.row_begin;
    if (i >= 0 && i < owned.rows()) {
      first = owned.row_ptr[std::size_t(i)], last = owned.row_ptr[std::size_t(i) + 1];
      cols = &owned.col, vals = &owned.values;
      return;
    }
    const auto at = std::lower_bound(remote.ids.begin(), remote.ids.end(), j);
    if (at == remote.ids.end() || *at != j)
      throw std::logic_error("multiply_rows: row " + std::to_string(j) + " of B is neither owned nor fetched");
    const std::size_t r = std::size_t(at - remote.ids.begin());
    first = remote.row_ptr[r], last = remote.row_ptr[r + 1];
    cols = &remote.col, vals = &remote.values;
  };
  // Each thread makes the rows of its range; then they are joined in order.
  const unsigned threads = solver::threads_for(n, rows_a_thread);
  std::vector<LocalRows> parts(threads);
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    LocalRows& part = parts[t];
    std::vector<std::pair<std::int64_t, double>> row;
    // Each row's columns in an open-addressing table (at least twice the products it may
    // hold): where each column's sum is, found in O(1); the sums still run in A's row order.
    std::vector<std::int64_t> table_col;
    std::vector<std::int32_t> table_at;
    struct Span {
      std::int64_t first, last;
      const std::vector<std::int64_t>* cols;
      const std::vector<double>* vals;
    };
    std::vector<Span> spans;
    for (std::size_t i = begin; i < end; ++i) {
      row.clear();
      spans.clear();
      std::int64_t products = 0;
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        Span s{};
        b_row(a.col[std::size_t(k)], s.first, s.last, s.cols, s.vals);
        spans.push_back(s);
        products += s.last - s.first;
      }
      unsigned bits = 1;
      while ((std::int64_t(1) << bits) < 2 * products) ++bits;
      table_col.assign(std::size_t(1) << bits, -1);
      table_at.resize(table_col.size());
      const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const double v = a.values[std::size_t(k)];
        const Span& s = spans[std::size_t(k - a.row_ptr[i])];
        for (std::int64_t l = s.first; l < s.last; ++l) {
          const std::int64_t c = (*s.cols)[std::size_t(l)];
          std::uint64_t h = (std::uint64_t(c) * 0x9e3779b97f4a7c15ULL) >> (64 - bits);
          while (table_col[h] != c && table_col[h] != -1) h = (h + 1) & mask;
          if (table_col[h] == -1) table_col[h] = c, table_at[h] = std::int32_t(row.size()), row.emplace_back(c, 0.0);
          row[std::size_t(table_at[h])].second += v * (*s.vals)[std::size_t(l)];
        }
      }
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& [c, v] : row) part.col.push_back(c), part.values.push_back(v);
      part.row_ptr.push_back(std::int64_t(part.col.size()));
    }
  });
  LocalRows c;
  c.global_rows = a.global_rows;
  c.row_begin = a.row_begin;
  for (const LocalRows& part : parts) {
    const std::int64_t base = c.row_ptr.back();
    for (std::size_t i = 1; i < part.row_ptr.size(); ++i) c.row_ptr.push_back(base + part.row_ptr[i]);
    c.col.insert(c.col.end(), part.col.begin(), part.col.end());
    c.values.insert(c.values.end(), part.values.begin(), part.values.end());
  }
  return c;
}

}  // namespace clcg::distributed
