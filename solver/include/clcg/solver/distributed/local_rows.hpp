#pragma once
// One rank's rows of a global matrix, as the rank builds or receives them: global row numbers
// [row_begin, row_begin + rows()), global column numbers, 64-bit offsets (a rank may hold more
// than 2^31 nonzeros). Nothing global is ever built for generated problems.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
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
  // A generator's rows may come with their entries not made yet (col and values empty, row_ptr
  // complete): make_entries(first, last, base, col, values) writes rows [first, last)'s entries
  // from col[0] and values[0], each column as its 32-bit distance from the global column `base`,
  // on the calling thread (threads may call it for different rows at once); false where a
  // distance does not fit 32 bits. The AMG set-up's upload makes them straight into its pinned
  // memory as it uploads them (RankSetup::upload: no host copy of a rank's 30 GB at 1024^3, and
  // no pass that narrows 64-bit columns); make() makes them here for the passes that read them.
  using EntryMaker = std::function<bool(std::size_t first, std::size_t last, std::int64_t base, std::int32_t* col,
                                        double* values)>;
  EntryMaker make_entries;
  // Where the pending entries are a Dirichlet Laplacian's (poisson_rows), its grid: the set-up's
  // upload has the device make them (RankSetup::upload), no host pass over the entries at all.
  struct Stencil {
    std::int64_t nx = 1, ny = 1, nz = 1;
    bool three_d = true;
    double diagonal = 6.0;
  };
  std::optional<Stencil> stencil;

  std::int64_t rows() const noexcept { return std::int64_t(row_ptr.size()) - 1; }
  std::int64_t nnz() const noexcept { return row_ptr.back(); }
  bool entries_pending() const noexcept { return bool(make_entries); }
  // col and values made from make_entries, on the host's threads (nothing where they are made).
  void make();
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
// over the rows: at 1024^3 a rank's 15 GB of values). `pending`: the entries left to
// make_entries (the offsets and row_sums made now).
LocalRows poisson_rows(int dimensions, std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t row_begin,
                       std::int64_t row_end, solver::BulkVector<double>* row_sums = nullptr, bool pending = false);

}  // namespace clcg::distributed
