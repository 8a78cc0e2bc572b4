#pragma once
// Sparse products on the device for the AMG set-up (kernels/sparse_product.cl): C = A B, T = M^T
// and the exclusive scan that turns row counts into row pointers. Each product is counted, its
// row pointers scanned, then filled; every value is summed in the order of A's row, so a
// product gives the same bits on every run (and the host reference's multiply() to rounding).
// Rows of A up to 8 entries merge in private memory, longer ones hash their columns in local
// memory, four rows of C a group where they have at most 96 columns, a group a row up to 384 and
// in a larger table up to 1536 (sparse_product.cl says how); the count then lists those rows' columns, sorted, so their fill only sums (256^3's
// R (A P) on an H100: count 6.5 -> 7.5 ms, fill 14.0 -> 6.6). Outputs have sorted columns;
// B's rows must be sorted. A P may pass 2^31 - 1 nonzeros (3D Poisson from ~630^3): a product
// asked with RowOffsets::wide gets 64-bit row offsets where it needs them, and a product whose B
// has them (R (A P)) reads them; every other product past 32-bit offsets is a std::length_error.
//
//   SparseProducts products(env, ElementType::f64);
//   DeviceCsrMatrix ap = products.multiply(a, p);
//   DeviceCsrMatrix r = products.transpose(p);
//   products.multiply_values(a, p, ap);  // new values in a or p, the same patterns
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/multigrid/row_kernels.hpp"

namespace clcg::solver {

struct ScanTotals {
  std::int64_t total = 0;    // the sum of the counts
  std::int32_t largest = 0;   // the largest count
  std::int32_t smallest = 0;  // the smallest count (below 0: a product's row left to the merge)
};

// Room a product's buffers leave after its own rows and entries, for rows its caller appends
// in place (the distributed set-up's fetched rows of B: A P becomes R (A P)'s B with no second
// copy of it on the device).
struct ProductRoom {
  std::size_t rows = 0, entries = 0;
  // Also room for `rows` rows as long as C's longest (known once C is counted: rows of the
  // same kind of product on other ranks).
  bool longest_rows = false;
  // The entries left for a C whose longest row has `longest` entries.
  std::size_t entries_for(std::int64_t longest) const noexcept {
    return entries + (longest_rows ? rows * std::size_t(std::max<std::int64_t>(longest, 0)) : 0);
  }
};
// Whether a product's count lists its rows' columns for the fill (where the list fits), or
// lists none and the fill hashes them again: a product at a set-up's memory peak saves the
// list (narrow_cap ints a row of C: 9.2 GB a rank for 1024^3's level-0 R (A P) on four GPUs).
enum class ColumnList { where_it_fits, none };

class SparseProducts {
 public:
  // Values of `type` (the kernels are built once per Env and type). A product allowed wide
  // offsets takes them where it has more than `wide_from` nonzeros: 2^31 - 1, or less in tests
  // (to run the 64-bit path on small matrices).
  SparseProducts(const cl::Env& env, ElementType type, std::uint64_t wide_from = max_csr_index);

  // counts[0..n] (n + 1 ints, counts[n] ignored) becomes its exclusive prefix sum, counts[n]
  // the total (both mod 2^32 where the total passes 2^31 - 1: the total returned is exact).
  ScanTotals exclusive_scan(::cl::Buffer& counts, std::size_t n);
  // The bytes a product with `rows` rows of C lists their columns in (ColumnList::where_it_fits).
  static std::uint64_t listed_bytes(std::size_t rows) noexcept;
  // A matrix of rows x cols whose row i has counts[i] entries: counts is scanned in place
  // into its row pointers and columns and values are allocated. std::length_error past
  // 32-bit indices.
  DeviceCsrMatrix allocate(::cl::Buffer counts, std::int32_t rows, std::int32_t cols);
  // The 64-bit row offsets (n + 1 longs) of what exclusive_scan made of n counts: its 32-bit
  // offsets are right mod 2^32, so each count is their difference.
  // `room`: longs left after them.
  ::cl::Buffer widened(const ::cl::Buffer& offsets, std::size_t n, std::size_t room = 0);

  // `label` names the product's kernels in the profile (e.g. "A P"). `offsets`: whether C may
  // get 64-bit row offsets (only where its caller reads them); else more than 2^31 - 1
  // nonzeros is a std::length_error. `room`: C's buffers leave that much after its rows and
  // entries, its offsets' width chosen with the entries counted. The same C with any `list`.
  DeviceCsrMatrix multiply(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const std::string& label = "A B",
                           RowOffsets offsets = RowOffsets::narrow, ProductRoom room = {},
                           ColumnList list = ColumnList::where_it_fits);
  // C = A B where an earlier C = A B of the same patterns (`earlier`) left its row pointers, nnz
  // and longest row: the columns and values only, with no counting pass and no read-back.
  DeviceCsrMatrix multiply_on(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const DeviceCsrMatrix& earlier,
                              const std::string& label = "A B");
  // C = A B where B's columns come in whole groups of k (a row that holds one column of a group
  // holds all k: a block level's P, A P) and, with a_rows_grouped, A's rows in groups of k with
  // one pattern (R = P^T): the pattern is counted on the groups and expanded (k, or k^2, times
  // fewer products to hash), then the values summed on it as multiply_values does. The same C as
  // multiply(a, b). A's rows a multiple of k where grouped.
  // Wide offsets only where k is 1 (a plain multiply).
  DeviceCsrMatrix multiply_grouped(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, unsigned k, bool a_rows_grouped,
                                   const std::string& label = "A B", RowOffsets offsets = RowOffsets::narrow);
  DeviceCsrMatrix transpose(const DeviceCsrMatrix& m);
  // The transpose of rows stacked from parts (32-bit offsets): each part's rows are the result's
  // columns from its `shift`, and only its entries in columns [first, first + rows) are kept,
  // as the result's rows from 0. The result is rows x columns. (A rank's rows of R = P^T: P's
  // own rows in place, the entries other ranks sent as small matrices before and after them.)
  struct TransposePart {
    const DeviceCsrMatrix* m;
    std::int32_t first, shift;
  };
  DeviceCsrMatrix transpose(const std::vector<TransposePart>& parts, std::int32_t rows, std::int32_t columns);
  // c (from multiply(a, b), or t from transpose(m)) given the values of a and b (of m) now,
  // their patterns unchanged: the values only, in place, without counting or allocating (a
  // transpose's values are gathered from m: no atomics, no sort).
  void multiply_values(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, DeviceCsrMatrix& c,
                       const std::string& label = "A B");
  void transpose_values(const DeviceCsrMatrix& m, DeviceCsrMatrix& t);

  // Device time per kernel since the last call (a profiling queue only).
  std::vector<KernelTime> take_kernel_times() { return kernels_.take_times(); }

 private:
  // A product's passes, as kernels/sparse_product.cl's `fill`: C's row counts; C's columns and
  // values; C's values where c_col already holds its columns; the counts, with the columns of
  // rows up to 96 listed in c_listed; the columns and values, those rows' columns taken from
  // c_listed (the short-row merge counts and fills instead).
  enum class Pass : cl_int { count = 0, fill = 1, values = 2, count_and_list = 3, fill_listed = 4 };
  // Whether A's rows are short enough for the merge in registers (no hashing, no listing).
  static bool merges_in_registers(const DeviceCsrMatrix& a);
  // The pass for the kernels that list nothing (the short-row merge, the merge through scratch).
  static Pass unlisted(Pass pass);
  // `longest`: C's longest row when filling; when counting, 0 on the first count (a hashed
  // kernel, which marks the rows its table cannot hold -1) and larger on a count of those again
  // (the wide kernel, then the merge through global scratch). c_listed: the listed columns for
  // count_and_list and fill_listed, any buffer otherwise. Whether a hashed kernel counted.
  // c_offsets: the width of c_row when filling (counts are 32-bit).
  bool run_multiply(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const ::cl::Buffer& c_row,
                    RowOffsets c_offsets, const ::cl::Buffer& c_col, const ::cl::Buffer& c_val, Pass pass,
                    const std::string& label, std::int32_t longest, const ::cl::Buffer& c_listed);
  // C of A B on row pointers c_row of width c_offsets (nnz, longest row): allocated, then
  // `pass` (fill or fill_listed with the columns c_listed holds).
  DeviceCsrMatrix filled(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const ::cl::Buffer& c_row,
                         RowOffsets c_offsets, std::int64_t nnz, std::int32_t longest, const std::string& label,
                         Pass pass, const ::cl::Buffer& c_listed, std::size_t room_entries = 0);
  // The scan's kernels for 32-bit or 64-bit counts.
  struct ScanKernels {
    ::cl::Kernel tile_totals, tile_offsets, tiles, single_tile;
  };
  static ScanKernels scan_kernels(const cl::Env& env, const std::string& options);
  ScanTotals scan(ScanKernels& kernels, ::cl::Buffer& counts, std::size_t n);
  // The product's kernels for B's and C's row offsets, built when first asked for.
  struct ProductKernels {
    ::cl::Kernel merge_rows, short_rows, hashed, hashed_long, narrow;
  };
  ProductKernels& product_kernels(RowOffsets b, RowOffsets c);
  std::size_t hashed_groups(std::size_t units) const;  // groups for `units` rows (or sets of rows) a group
  std::size_t tile_groups(std::int32_t rows) const;    // groups for a transpose's tiles of rows
  void copy_ints(const ::cl::Buffer& from, const ::cl::Buffer& to, std::size_t n);

  cl::Env env_;
  ElementType type_;
  std::uint64_t wide_from_;
  RowKernels kernels_;
  ::cl::Buffer scan_totals_, scan_summary_;  // a scan's tile totals (then offsets); its total, largest and smallest count
  ScanKernels scan_;
  std::optional<ScanKernels> wide_scan_;
  std::array<std::optional<ProductKernels>, 4> product_kernels_;  // by (B wide, C wide)
  ::cl::Kernel recover_counts_, column_counts_, transpose_place_, transpose_gather_, sort_rows_, sort_rows_long_,
      sort_long_rows_, compress_column_groups_, first_of_row_groups_, expand_groups_;
};

}  // namespace clcg::solver
