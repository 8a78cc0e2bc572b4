#include "clcg/solver/multigrid/coarsening.hpp"

#include "clcg/solver/io/host_threads.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace clcg::solver {

void parallel_rows(std::size_t n, const std::function<void(std::size_t, std::size_t)>& f) {
  parallel_ranges(n, threads_for(n, 4096), [&](std::size_t begin, std::size_t end, unsigned) { f(begin, end); });
}

namespace {

std::vector<double> diagonal(const HostCsr& a) {
  std::vector<double> d(std::size_t(a.rows), 0.0);
  parallel_rows(d.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        if (std::size_t(a.col_idx[std::size_t(k)]) == i) d[i] += a.values[std::size_t(k)];
  });
  return d;
}

}  // namespace

std::vector<char> strong_connections(const HostCsr& a, double theta) {
  const std::vector<double> d = diagonal(a);
  std::vector<double> most(d.size(), 0.0);  // m_i: row i's largest a_ij^2 / |a_ii a_jj|
  parallel_rows(std::size_t(a.rows), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::size_t j = std::size_t(a.col_idx[std::size_t(k)]);
        const double v = a.values[std::size_t(k)], dd = std::abs(d[i] * d[j]);
        if (j != i && dd != 0) most[i] = std::max(most[i], v * v / dd);
      }
  });
  std::vector<char> strong(a.col_idx.size(), 0);
  parallel_rows(std::size_t(a.rows), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::size_t j = std::size_t(a.col_idx[std::size_t(k)]);
        const double v = a.values[std::size_t(k)], dd = std::abs(d[i] * d[j]);
        strong[std::size_t(k)] = j != i && v != 0 && (dd == 0 || v * v >= theta * theta * std::max(most[i], most[j]) * dd);
      }
  });
  return strong;
}

namespace {


}  // namespace

namespace {
std::uint32_t row_hash(std::uint32_t i) {
  i ^= i >> 16;
  i *= 0x7feb352dU;
  i ^= i >> 15;
  i *= 0x846ca68bU;
  i ^= i >> 16;
  return i;
}
}  // namespace

std::uint64_t mis_key(std::uint32_t state, std::uint32_t row) {
  return (std::uint64_t(state) << 62) | (std::uint64_t(row_hash(row) & 0x3fffffffU) << 32) | row;
}

Aggregates aggregate(const HostCsr& a, const std::vector<char>& strong) {
  const std::size_t n = std::size_t(a.rows);
  const auto neighbours = [&](std::size_t i, auto&& f) {
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (strong[std::size_t(k)]) f(std::size_t(a.col_idx[std::size_t(k)]));
  };
  std::vector<std::uint32_t> state(n, mis_out);
  for (std::size_t i = 0; i < n; ++i) neighbours(i, [&](std::size_t) { state[i] = mis_undecided; });
  // Rounds of the distance-2 independent set: the largest key within two steps decides.
  std::vector<std::uint64_t> key(n), most(n);
  const auto spread = [&](const std::vector<std::uint64_t>& in, std::vector<std::uint64_t>& out) {
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = in[i];
      neighbours(i, [&](std::size_t j) { out[i] = std::max(out[i], in[j]); });
    }
  };
  for (unsigned round = 1; ; ++round) {
    for (std::size_t i = 0; i < n; ++i) key[i] = mis_key(state[i], std::uint32_t(i));
    spread(key, most);
    spread(most, key);
    bool left = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != mis_undecided) continue;
      if (std::uint32_t(key[i]) == i || round == max_mis_rounds)
        state[i] = mis_in;
      else if (key[i] >> 62 == mis_in)
        state[i] = mis_out;
      else
        left = true;
    }
    if (!left) break;
  }
  // Seeds numbered in row order; their neighbours join the seed with the largest key; rows two
  // steps away join the neighbour's aggregate with the largest key.
  Aggregates result;
  std::vector<std::int32_t> seed(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (state[i] == mis_in) seed[i] = result.count++;
  const auto join = [&](const auto& joined, std::vector<std::int32_t>& out) {
    for (std::size_t i = 0; i < n; ++i) {
      if (out[i] >= 0) continue;
      std::uint64_t best = 0;
      neighbours(i, [&](std::size_t j) {
        if (joined(j) >= 0 && mis_key(mis_in, std::uint32_t(j)) > best) best = mis_key(mis_in, std::uint32_t(j)), out[i] = joined(j);
      });
    }
  };
  std::vector<std::int32_t> first = seed;
  join([&](std::size_t j) { return seed[j]; }, first);
  result.of_row = first;
  join([&](std::size_t j) { return first[j]; }, result.of_row);
  return result;
}

HostCsr transpose(const HostCsr& m) {
  HostCsr t;
  t.rows = m.cols;
  t.cols = m.rows;
  t.row_ptr.assign(std::size_t(m.cols) + 1, 0);
  for (std::int32_t c : m.col_idx) ++t.row_ptr[std::size_t(c) + 1];
  for (std::size_t i = 1; i < t.row_ptr.size(); ++i) t.row_ptr[i] += t.row_ptr[i - 1];
  t.col_idx.resize(m.col_idx.size());
  t.values.resize(m.values.size());
  std::vector<std::int32_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (std::int32_t i = 0; i < m.rows; ++i)  // rows in order: every transposed row comes out sorted
    for (std::int32_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
      const std::int32_t at = next[std::size_t(m.col_idx[std::size_t(k)])]++;
      t.col_idx[std::size_t(at)] = i;
      t.values[std::size_t(at)] = m.values[std::size_t(k)];
    }
  return t;
}

HostCsr multiply(const HostCsr& a, const HostCsr& b) {
  if (a.cols != b.rows) throw std::invalid_argument("multiply: inner sizes differ");
  const std::size_t n = std::size_t(a.rows);
  HostCsr c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.row_ptr.assign(n + 1, 0);
  // Pass 1: nonzeros per row (a marker per column, one array per thread's range).
  parallel_rows(n, [&](std::size_t begin, std::size_t end) {
    std::vector<std::int32_t> marker(std::size_t(b.cols), -1);
    for (std::size_t i = begin; i < end; ++i) {
      std::int32_t count = 0;
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::size_t r = std::size_t(a.col_idx[std::size_t(k)]);
        for (std::int32_t l = b.row_ptr[r]; l < b.row_ptr[r + 1]; ++l) {
          std::int32_t& seen = marker[std::size_t(b.col_idx[std::size_t(l)])];
          if (seen != std::int32_t(i)) seen = std::int32_t(i), ++count;
        }
      }
      c.row_ptr[i + 1] = count;
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (std::uint64_t(c.row_ptr[i]) + std::uint64_t(c.row_ptr[i + 1]) > max_csr_index)
      throw std::length_error("a Galerkin product has more nonzeros than 32-bit CSR indices address");
    c.row_ptr[i + 1] += c.row_ptr[i];
  }
  c.col_idx.resize(std::size_t(c.row_ptr[n]));
  c.values.resize(c.col_idx.size());
  // Pass 2: the values, accumulated in the order of A's row, then each row sorted by column.
  parallel_rows(n, [&](std::size_t begin, std::size_t end) {
    std::vector<std::int32_t> slot(std::size_t(b.cols), -1);
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::size_t i = begin; i < end; ++i) {
      row.clear();
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::size_t r = std::size_t(a.col_idx[std::size_t(k)]);
        const double v = a.values[std::size_t(k)];
        for (std::int32_t l = b.row_ptr[r]; l < b.row_ptr[r + 1]; ++l) {
          const std::int32_t col = b.col_idx[std::size_t(l)];
          std::int32_t& at = slot[std::size_t(col)];
          if (at < 0) at = std::int32_t(row.size()), row.emplace_back(col, 0.0);
          row[std::size_t(at)].second += v * b.values[std::size_t(l)];
        }
      }
      for (const auto& [col, v] : row) slot[std::size_t(col)] = -1;
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      std::size_t at = std::size_t(c.row_ptr[i]);
      for (const auto& [col, v] : row) c.col_idx[at] = col, c.values[at++] = v;
    }
  });
  return c;
}

bool keeps_every_entry(const HostCsr& a, const std::vector<char>& strong) {
  for (std::size_t i = 0; i < std::size_t(a.rows); ++i) {
    int diagonals = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const bool diagonal = std::size_t(a.col_idx[std::size_t(k)]) == i;
      diagonals += diagonal;
      if (!diagonal && !strong[std::size_t(k)]) return false;
    }
    if (diagonals != 1) return false;
  }
  return true;
}

HostCsr filtered_matrix(const HostCsr& a, const std::vector<char>& strong) {
  if (keeps_every_entry(a, strong)) return a;
  const std::size_t n = std::size_t(a.rows);
  HostCsr filtered;
  filtered.rows = filtered.cols = a.rows;
  filtered.row_ptr.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t count = 1;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) count += strong[std::size_t(k)];
    filtered.row_ptr[i + 1] = filtered.row_ptr[i] + count;
  }
  filtered.col_idx.resize(std::size_t(filtered.row_ptr[n]));
  filtered.values.resize(filtered.col_idx.size());
  parallel_rows(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double dia = 0;
      std::size_t at = std::size_t(filtered.row_ptr[i]) + 1;  // the diagonal goes first
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::int32_t j = a.col_idx[std::size_t(k)];
        const double v = a.values[std::size_t(k)];
        if (std::size_t(j) == i || !strong[std::size_t(k)])
          dia += v;
        else
          filtered.col_idx[at] = j, filtered.values[at++] = v;
      }
      filtered.col_idx[std::size_t(filtered.row_ptr[i])] = std::int32_t(i);
      filtered.values[std::size_t(filtered.row_ptr[i])] = dia;
    }
  });
  return filtered;
}

std::vector<double> inverse_diagonal(const HostCsr& a) {
  std::vector<double> inv_diag = diagonal(a);
  for (double& d : inv_diag) d = d != 0 ? 1 / d : 0.0;
  return inv_diag;
}

HostCsr node_matrix(const HostCsr& a, int block) {
  const std::size_t nodes = std::size_t(a.rows) / std::size_t(block);
  HostCsr n;
  n.rows = n.cols = std::int32_t(nodes);
  n.row_ptr.assign(nodes + 1, 0);
  std::map<std::int32_t, double> row;  // node column -> sum of squares, in column order
  for (std::size_t u = 0; u < nodes; ++u) {
    row.clear();
    for (std::size_t c = 0; c < std::size_t(block); ++c) {
      const std::size_t i = u * std::size_t(block) + c;
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        row[a.col_idx[std::size_t(k)] / block] += a.values[std::size_t(k)] * a.values[std::size_t(k)];
    }
    for (const auto& [v, sum] : row) n.col_idx.push_back(v), n.values.push_back(std::sqrt(sum));
    n.row_ptr[u + 1] = n.nnz();
  }
  return n;
}

double dependent_candidate(ElementType type) { return type == ElementType::f64 ? 1e-10 : 1e-5; }

namespace {

// One aggregate's step of tentative_prolongator(): q (m rows x k, column-major: its rows'
// candidates) becomes Q_g in place and r (k x k, row-major, zero on entry) gets R_g.
void factor_aggregate(double* q, std::size_t m, int k, double* r, double dependent) {
  const std::size_t kk = std::size_t(k);
  for (std::size_t j = 0; j < kk; ++j) {
    double* v = &q[j * m];
    double before = 0;
    if (j > 0)
      for (std::size_t e = 0; e < m; ++e) before += v[e] * v[e];
    for (int pass = 0; pass < (j > 0 ? 2 : 0); ++pass)
      for (std::size_t l = 0; l < j; ++l) {
        const double* ql = &q[l * m];
        double dot = 0;
        for (std::size_t e = 0; e < m; ++e) dot += ql[e] * v[e];
        for (std::size_t e = 0; e < m; ++e) v[e] -= dot * ql[e];
        r[l * kk + j] += dot;
      }
    double sum = 0;
    for (std::size_t e = 0; e < m; ++e) sum += v[e] * v[e];
    const double norm = std::sqrt(sum);
    const bool kept = norm != 0 && (j == 0 || norm > dependent * std::sqrt(before));
    for (std::size_t e = 0; e < m; ++e) v[e] = kept ? v[e] / norm : 0.0;
    r[j * kk + j] = kept ? norm : 0.0;
  }
}

}  // namespace

HostCsr tentative_prolongator(const Aggregates& aggregates, int block, const std::vector<double>& candidates, int k,
                              std::vector<double>& coarse_candidates) {
  const std::size_t n = aggregates.of_row.size() * std::size_t(block), kk = std::size_t(k);
  // Each aggregate's rows in order (from members[first[g]]), and its block of B column by column.
  const std::size_t count = std::size_t(aggregates.count);
  const auto group = [&](std::size_t i) { return aggregates.of_row[i / std::size_t(block)]; };
  std::vector<std::size_t> first(count + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (group(i) >= 0) ++first[std::size_t(group(i)) + 1];
  for (std::size_t g = 0; g < count; ++g) first[g + 1] += first[g];
  std::vector<std::size_t> members(first.back()), next(first.begin(), first.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (group(i) >= 0) members[next[std::size_t(group(i))]++] = i;
  HostCsr tentative;
  tentative.rows = std::int32_t(n);
  tentative.cols = aggregates.count * k;
  tentative.row_ptr.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    tentative.row_ptr[i + 1] = tentative.row_ptr[i] + (group(i) >= 0 ? k : 0);
  tentative.col_idx.resize(std::size_t(tentative.row_ptr[n]));
  tentative.values.resize(tentative.col_idx.size());
  coarse_candidates.assign(count * kk * kk, 0.0);
  const double dependent = dependent_candidate(ElementType::f64);
  // Aggregates by ranges on the host's threads: each writes only its own rows and block of R.
  parallel_rows(count, [&](std::size_t begin, std::size_t end) {
    std::vector<double> q;  // column-major, as the device's transposed block
    for (std::size_t g = begin; g < end; ++g) {
      const std::size_t* rows = members.data() + first[g];
      const std::size_t m = first[g + 1] - first[g];
      q.assign(m * kk, 0.0);
      for (std::size_t e = 0; e < m; ++e)
        for (std::size_t j = 0; j < kk; ++j) q[j * m + e] = candidates[rows[e] * kk + j];
      factor_aggregate(q.data(), m, k, &coarse_candidates[g * kk * kk], dependent);
      for (std::size_t e = 0; e < m; ++e)
        for (std::size_t j = 0; j < kk; ++j) {
          const std::size_t at = std::size_t(tentative.row_ptr[rows[e]]) + j;
          tentative.col_idx[at] = std::int32_t(g * kk + j);
          tentative.values[at] = q[j * m + e];
        }
    }
  });
  return tentative;
}

HostCsr smoothed_prolongator(const HostCsr& a, const HostCsr& tentative, double omega) {
  const std::size_t n = std::size_t(a.rows);
  const std::vector<double> inv_diag = inverse_diagonal(a);
  // P = P_tent - omega D^-1 A P_tent, row by row: row i of A P_tent holds P_tent's row i (the
  // diagonal is stored), whose columns are consecutive.
  HostCsr ap = multiply(a, tentative);
  parallel_rows(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::int32_t t = tentative.row_ptr[i], in_row = tentative.row_ptr[i + 1] - t;
      const std::int32_t first = in_row > 0 ? tentative.col_idx[std::size_t(t)] : 0;
      for (std::int32_t k = ap.row_ptr[i]; k < ap.row_ptr[i + 1]; ++k) {
        double v = -omega * inv_diag[i] * ap.values[std::size_t(k)];
        const std::int32_t c = ap.col_idx[std::size_t(k)] - first;
        if (c >= 0 && c < in_row) v += tentative.values[std::size_t(t + c)];
        ap.values[std::size_t(k)] = v;
      }
    }
  });
  return ap;
}

}  // namespace clcg::solver
