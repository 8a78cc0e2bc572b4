#pragma once
// One rank's rows of a global matrix, as the rank builds or receives them: global row numbers
// [row_begin, row_begin + rows()), global column numbers, 64-bit offsets (a rank may hold more
// than 2^31 nonzeros). Nothing global is ever built for generated problems.
#include <cstdint>
#include <vector>

#include "clcg/solver/io/bulk_vector.hpp"

namespace clcg::distributed {

struct LocalRows {
  std::int64_t global_rows = 0;  // the matrix is global_rows x global_rows
  std::int64_t row_begin = 0;
  // Bulk vectors: a resize leaves new entries unset for the parallel pass that fills them.
  solver::BulkVector<std::int64_t> row_ptr{0};
  solver::BulkVector<std::int64_t> col;  // global columns, sorted within each row
  solver::BulkVector<double> values;

  std::int64_t rows() const noexcept { return std::int64_t(row_ptr.size()) - 1; }
  std::int64_t nnz() const noexcept { return row_ptr.back(); }
  // b = A 1 for these rows (each row's sum in stored order: the same bits on any partition).
  std::vector<double> row_sums() const;
  // The diagonal entries (0 where a row stores none).
  std::vector<double> diagonal() const;
};

// The longest row of the row offsets `row_ptr` (rows + 1 of them), on the host's threads.
std::int64_t longest_row(const solver::BulkVector<std::int64_t>& row_ptr);

// Rows [row_begin, row_end) of the 7-point 3D Laplacian on nx x ny x nz (dimensions 3) or the
// 5-point 2D one on nx x ny (dimensions 2, nz = 1), Dirichlet: the matrices of clcg::solver::poisson_3d / poisson_2d, in 64 bits.
// `row_sums`, where given, gets b = A 1 as it is made (row_sums()'s bits, without another pass
// over the rows: at 1024^3 a rank's 15 GB of values).
LocalRows poisson_rows(int dimensions, std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t row_begin,
                       std::int64_t row_end, std::vector<double>* row_sums = nullptr);

}  // namespace clcg::distributed
