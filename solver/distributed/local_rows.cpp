#include "clcg/solver/distributed/local_rows.hpp"

#include <algorithm>
#include <stdexcept>

namespace clcg::distributed {

std::vector<double> LocalRows::row_sums() const {
  std::vector<double> sums(std::size_t(rows()), 0.0);
  for (std::int64_t i = 0; i < rows(); ++i) {
    double sum = 0;
    for (std::int64_t j = row_ptr[std::size_t(i)]; j < row_ptr[std::size_t(i) + 1]; ++j) sum += values[std::size_t(j)];
    sums[std::size_t(i)] = sum;
  }
  return sums;
}

std::vector<double> LocalRows::diagonal() const {
  std::vector<double> d(std::size_t(rows()), 0.0);
  for (std::int64_t i = 0; i < rows(); ++i) {
    const auto first = col.begin() + row_ptr[std::size_t(i)], last = col.begin() + row_ptr[std::size_t(i) + 1];
    const auto at = std::lower_bound(first, last, row_begin + i);
    if (at != last && *at == row_begin + i) d[std::size_t(i)] = values[std::size_t(at - col.begin())];
  }
  return d;
}

LocalRows poisson_rows(int dimensions, std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t row_begin,
                       std::int64_t row_end) {
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("Poisson grid sizes must be >= 1");
  const std::int64_t n = nx * ny * nz;
  if (row_begin < 0 || row_end < row_begin || row_end > n) throw std::invalid_argument("rows outside the grid");
  if (dimensions != 2 && dimensions != 3) throw std::invalid_argument("Poisson problems are 2D or 3D");
  const bool three_d = dimensions == 3;
  const double diagonal = three_d ? 6.0 : 4.0;
  LocalRows a;
  a.global_rows = n;
  a.row_begin = row_begin;
  const std::size_t rows = std::size_t(row_end - row_begin), per_row = three_d ? 7 : 5;
  a.row_ptr.assign(rows + 1, 0);
  a.col.resize(rows * per_row);
  a.values.resize(rows * per_row);
  std::size_t k = 0;
  const std::int64_t plane = nx * ny;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const std::int64_t i = r % nx, j = (r / nx) % ny, l = r / plane;
    auto put = [&](std::int64_t c, double v) {
      a.col[k] = c;
      a.values[k] = v;
      ++k;
    };
    if (three_d && l > 0) put(r - plane, -1.0);
    if (j > 0) put(r - nx, -1.0);
    if (i > 0) put(r - 1, -1.0);
    put(r, diagonal);
    if (i + 1 < nx) put(r + 1, -1.0);
    if (j + 1 < ny) put(r + nx, -1.0);
    if (three_d && l + 1 < nz) put(r + plane, -1.0);
    a.row_ptr[std::size_t(r - row_begin) + 1] = std::int64_t(k);
  }
  a.col.resize(k);
  a.values.resize(k);
  a.col.shrink_to_fit();
  a.values.shrink_to_fit();
  return a;
}

}  // namespace clcg::distributed
