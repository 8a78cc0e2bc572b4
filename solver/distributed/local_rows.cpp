#include "clcg/solver/distributed/local_rows.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::distributed {

namespace {
constexpr std::size_t rows_a_thread = std::size_t(1) << 16;  // below this a thread costs more than it saves

// f(i) for every row i, on the host's threads (each row's result depends on the row alone).
template <class F>
void for_each_row(std::size_t rows, F&& f) {
  solver::parallel_for(rows, rows_a_thread, f);
}
}  // namespace

void LocalRows::make() {
  if (!make_entries) return;
  col.resize(std::size_t(nnz()));
  values.resize(std::size_t(nnz()));
  constexpr std::size_t block = 4096;  // rows made at once, their columns as distances from the block's first row
  std::atomic<bool> far{false};
  solver::parallel_ranges(std::size_t(rows()), solver::threads_for(std::size_t(rows()), rows_a_thread),
                          [&](std::size_t begin, std::size_t end, unsigned) {
                            std::vector<std::int32_t> near;
                            for (std::size_t first = begin; first < end; first += block) {
                              const std::size_t last = std::min(end, first + block);
                              const std::size_t at = std::size_t(row_ptr[first]);
                              near.resize(std::size_t(row_ptr[last]) - at);
                              const std::int64_t base = row_begin + std::int64_t(first);
                              if (!make_entries(first, last, base, near.data(), values.data() + at))
                                far.store(true, std::memory_order_relaxed);
                              for (std::size_t k = 0; k < near.size(); ++k) col[at + k] = base + near[k];
                            }
                          });
  if (far)
    throw std::length_error("rows " + std::to_string(row_begin) + ".." + std::to_string(row_begin + rows()) +
                            " name columns 2^31 or more from a row 4096 rows before them");
  make_entries = nullptr;
  stencil.reset();
}

std::int64_t longest_row(const solver::BulkVector<std::int64_t>& row_ptr) {
  const std::size_t n = row_ptr.size() - 1;
  const unsigned threads = solver::threads_for(n, std::size_t(1) << 16);
  std::vector<std::int64_t> longest_of(threads, 0);
  solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t i = begin; i < end; ++i) longest_of[t] = std::max(longest_of[t], row_ptr[i + 1] - row_ptr[i]);
  });
  return *std::max_element(longest_of.begin(), longest_of.end());
}

namespace {
void require_entries(const LocalRows& a, const char* pass) {
  if (a.entries_pending()) throw std::logic_error(std::string("LocalRows::") + pass + ": the entries are not made (make())");
}
}  // namespace

std::vector<double> LocalRows::row_sums() const {
  require_entries(*this, "row_sums");
  std::vector<double> sums(std::size_t(rows()), 0.0);
  for_each_row(sums.size(), [&](std::size_t i) {
    double sum = 0;
    for (std::int64_t j = row_ptr[i]; j < row_ptr[i + 1]; ++j) sum += values[std::size_t(j)];
    sums[i] = sum;
  });
  return sums;
}

std::vector<double> LocalRows::diagonal() const {
  require_entries(*this, "diagonal");
  std::vector<double> d(std::size_t(rows()), 0.0);
  for_each_row(d.size(), [&](std::size_t i) {
    const auto first = col.begin() + row_ptr[i], last = col.begin() + row_ptr[i + 1];
    const std::int64_t own = row_begin + std::int64_t(i);
    const auto at = std::lower_bound(first, last, own);
    if (at != last && *at == own) d[i] = values[std::size_t(at - col.begin())];
  });
  return d;
}

namespace {
// The Dirichlet Laplacian on nx x ny x nz: for rows [first, last), in order, row(k) and then
// put(column, value) for its entries in column order. The grid point is stepped from row to
// row (three 64-bit divisions a row made generating slower than writing the rows).
struct PoissonStencil {
  LocalRows::Stencil grid;
  std::int64_t plane = grid.nx * grid.ny;

  template <class Row, class Put>
  void rows(std::int64_t first, std::int64_t last, Row&& row, Put&& put) const {
    const auto [nx, ny, nz, three_d, diagonal] = grid;
    std::int64_t i = first % nx, j = (first / nx) % ny, l = first / plane;
    for (std::int64_t r = first; r < last; ++r) {
      row(r);
      if (three_d && l > 0) put(r - plane, -1.0);
      if (j > 0) put(r - nx, -1.0);
      if (i > 0) put(r - 1, -1.0);
      put(r, diagonal);
      if (i + 1 < nx) put(r + 1, -1.0);
      if (j + 1 < ny) put(r + nx, -1.0);
      if (three_d && l + 1 < nz) put(r + plane, -1.0);
      if (++i == nx) {
        i = 0;
        if (++j == ny) j = 0, ++l;
      }
    }
  }
};
}  // namespace

LocalRows poisson_rows(int dimensions, std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t row_begin,
                       std::int64_t row_end, solver::BulkVector<double>* row_sums, bool pending) {
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("Poisson grid sizes must be >= 1");
  const std::int64_t n = nx * ny * nz;
  if (row_begin < 0 || row_end < row_begin || row_end > n) throw std::invalid_argument("rows outside the grid");
  if (dimensions != 2 && dimensions != 3) throw std::invalid_argument("Poisson problems are 2D or 3D");
  const bool three_d = dimensions == 3;
  const PoissonStencil stencil{{nx, ny, nz, three_d, three_d ? 6.0 : 4.0}};
  LocalRows a;
  a.global_rows = n;
  a.row_begin = row_begin;
  const std::size_t rows = std::size_t(row_end - row_begin);
  // The offsets (each range of rows its running sum of lengths, then the ranges before it
  // added), then every row's entries, on the host's threads: the same arrays for any thread
  // count, and no pass over them on one thread (1024^3's 268M rows a rank took ~0.5 s so).
  a.row_ptr.resize(rows + 1);  // (every entry set below)
  a.row_ptr[0] = 0;
  const unsigned threads = solver::threads_for(rows, rows_a_thread);
  std::vector<std::int64_t> before(threads + 1, 0);  // each range's entries, then those before it
  solver::parallel_ranges(rows, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    std::int64_t sum = 0;
    std::size_t k = begin;  // (the offset after row k is the sum once its entries are counted)
    stencil.rows(
        row_begin + std::int64_t(begin), row_begin + std::int64_t(end),
        [&](std::int64_t r) {
          if (r > row_begin + std::int64_t(begin)) a.row_ptr[k++ + 1] = sum;
        },
        [&](std::int64_t, double) { ++sum; });
    if (end > begin) a.row_ptr[end] = sum;
    before[t + 1] = sum;
  });
  for (unsigned t = 0; t < threads; ++t) before[t + 1] += before[t];
  solver::parallel_ranges(rows, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t k = begin; k < end; ++k) a.row_ptr[k + 1] += before[t];
  });
  if (row_sums) {  // (in stored order, as row_sums(): the stencil's, with nothing stored)
    row_sums->resize(rows);  // (unset: each range sets its rows)
    solver::parallel_ranges(rows, threads, [&](std::size_t begin, std::size_t end, unsigned) {
      double* sum = nullptr;
      stencil.rows(
          row_begin + std::int64_t(begin), row_begin + std::int64_t(end),
          [&](std::int64_t r) { *(sum = row_sums->data() + (r - row_begin)) = 0; }, [&](std::int64_t, double v) { *sum += v; });
    });
  }
  a.make_entries = [stencil, row_begin](std::size_t first, std::size_t last, std::int64_t base, std::int32_t* col,
                                         double* values) {
    std::size_t at = 0;
    bool fits = true;
    stencil.rows(
        row_begin + std::int64_t(first), row_begin + std::int64_t(last), [](std::int64_t) {},
        [&](std::int64_t c, double v) {
          const std::int64_t d = c - base;
          fits &= d == std::int32_t(d);
          col[at] = std::int32_t(d);
          values[at] = v;
          ++at;
        });
    return fits;
  };
  if (pending) a.stencil = stencil.grid;
  if (!pending) a.make();
  return a;
}

}  // namespace clcg::distributed
