#include "clcg/solver/distributed/remote_rows.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/sorted_ids.hpp"
#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {
namespace {

constexpr std::size_t entries_a_thread = std::size_t(1) << 14;

}  // namespace

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  if (!counts.empty()) std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
  return offsets;
}

std::vector<int> slots_by_thread(std::vector<std::vector<int>>& sent) {
  std::vector<int> counts(sent.empty() ? 0 : sent.front().size(), 0);
  for (const std::vector<int>& mine : sent)
    for (std::size_t r = 0; r < counts.size(); ++r) counts[r] += mine[r];
  std::vector<int> at = offsets_of(counts);
  for (std::vector<int>& mine : sent)  // each thread's first slot for each rank
    for (std::size_t r = 0; r < counts.size(); ++r) std::swap(mine[r], at[r]), at[r] += mine[r];
  return counts;
}

std::vector<std::int64_t> foreign_columns(const LocalRows& rows, const Partition& partition, int rank) {
  const std::int64_t begin = partition.begin(rank), end = begin + partition.size(rank);
  // Each thread its share of the entries (in row order), then sorted together.
  const std::size_t entries = rows.col.size();
  const unsigned threads = solver::threads_for(entries, std::size_t(1) << 20);
  std::vector<std::vector<std::int64_t>> found(threads);
  solver::parallel_ranges(entries, threads, [&](std::size_t first, std::size_t last, unsigned t) {
    for (std::size_t k = first; k < last; ++k)
      if (rows.col[k] < begin || rows.col[k] >= end) found[t].push_back(rows.col[k]);
  });
  std::vector<std::int64_t> out;
  for (const auto& part : found) out.insert(out.end(), part.begin(), part.end());
  return sorted_distinct(std::move(out));
}

std::vector<std::int64_t> ask_owners(MPI_Comm comm, const Partition& partition, const std::vector<std::int64_t>& wanted,
                                     std::vector<int>& asked_counts) {
  std::vector<int> ask_counts(std::size_t(partition.ranks()), 0);
  for (std::int64_t id : wanted) ++ask_counts[std::size_t(partition.owner(id))];
  return all_to_all(comm, wanted, ask_counts, &asked_counts);
}

RemoteRows fetch_rows(MPI_Comm comm, const Partition& partition, const LocalRows& rows,
                      const std::vector<std::int64_t>& wanted) {
  std::vector<int> asked_counts;
  const std::vector<std::int64_t> asked = ask_owners(comm, partition, wanted, asked_counts);
  std::vector<std::int64_t> lengths(asked.size());
  std::vector<int> entry_counts(asked_counts.size(), 0);  // the entries answered to each rank
  solver::BulkVector<std::int64_t> col;
  solver::BulkVector<double> values;
  for (std::size_t r = 0, q = 0; r < asked_counts.size(); ++r)
    for (int k = 0; k < asked_counts[r]; ++k, ++q) {
      const std::int64_t i = asked[q] - rows.row_begin;
      if (i < 0 || i >= rows.rows())
        throw std::logic_error("fetch_rows: row " + std::to_string(asked[q]) + " asked of a rank that lacks it");
      const std::int64_t first = rows.row_ptr[std::size_t(i)], last = rows.row_ptr[std::size_t(i) + 1];
      lengths[q] = last - first;
      entry_counts[r] += int(last - first);
      col.insert(col.end(), rows.col.begin() + first, rows.col.begin() + last);
      values.insert(values.end(), rows.values.begin() + first, rows.values.begin() + last);
    }
  RemoteRows out;
  out.ids = wanted;
  const std::vector<std::int64_t> got_lengths = all_to_all(comm, lengths, asked_counts);
  out.row_ptr.resize(got_lengths.size() + 1);
  std::partial_sum(got_lengths.begin(), got_lengths.end(), out.row_ptr.begin() + 1);
  out.col = all_to_all(comm, col, entry_counts);
  out.values = all_to_all(comm, values, entry_counts);
  return out;
}

ForeignEntries send_to_column_owners(MPI_Comm comm, const OutgoingEntries& out, std::int64_t row_begin,
                                     const Partition& columns) {
  const int ranks = columns.ranks();
  // Each entry (i, c, v) goes to c's owner as (c, i) and v. The threads take ranges of the
  // entries; each one's for a rank go after those of the threads before it, so each rank gets
  // them in row order.
  const std::size_t n = out.values.size();
  const unsigned threads = solver::threads_for(n, entries_a_thread);
  std::vector<std::vector<int>> sent(threads, std::vector<int>(std::size_t(ranks), 0));  // by thread, by rank
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t e = begin; e < end; ++e) ++sent[t][std::size_t(columns.owner(out.cols[e]))];
  });
  const std::vector<int> counts = slots_by_thread(sent);
  solver::BulkVector<std::int64_t> pairs(2 * n);  // filled below
  solver::BulkVector<double> values(n);
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t slot = std::size_t(sent[t][std::size_t(columns.owner(out.cols[e]))]++);
      pairs[2 * slot] = out.cols[e];
      pairs[2 * slot + 1] = row_begin + out.rows[e];
      values[slot] = out.values[e];
    }
  });
  std::vector<int> pair_counts(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) pair_counts[r] = 2 * counts[r];
  ForeignEntries got;
  got.pairs = all_to_all(comm, pairs, pair_counts);
  got.values = all_to_all(comm, values, counts);
  return got;
}

}  // namespace clcg::distributed
