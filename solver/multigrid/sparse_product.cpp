#include "clcg/solver/multigrid/sparse_product.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/cl/error.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "clcg/solver/multigrid/row_kernels.hpp"

namespace clcg::solver {
namespace {

// What kernels/sparse_product.cl's products are built for: rows of A up to short_row entries
// merge in private memory; longer ones take a sub-group and a hash table for up to narrow_cap
// columns of C (narrow_rows rows a group), or a group of hash_group work-items and a table for
// up to hash_cap, then one for up to long_hash_cap (sparse_product.cl's second wide table); rows
// of C beyond that merge through global scratch.
constexpr std::int32_t short_row = 8;
constexpr std::int32_t narrow_cap = 96;
constexpr std::size_t narrow_rows = 4;
// Products a row of C above which the wide kernel counts: counting, a work-item hashes whole
// rows of B one after another, and the narrow kernel's 8 a row then wait longer than four rows
// in flight repay (H100, 256^3: R (A P), ~300 products a row, 7.6 ms narrow against 6.4 wide;
// A P below it, ~130, 2.6 against 2.9; 2D's R (A P), 70-200, 0.61 against 0.74).
constexpr double narrow_count_products = 256;
constexpr std::int32_t hash_cap = 384;
constexpr std::int32_t long_hash_cap = 1536;
const char* const long_table = " -DHASH_BITS=11 -DHASH_CAP=1536 -DSKIP_CAP=384";
// A first product's listed columns (narrow_cap ints a row of C) take at most this share of the
// largest allocation (a quarter of the memory on NVIDIA's GPUs).
constexpr std::uint64_t listed_share = 2;
constexpr std::size_t hash_group = 32;
constexpr std::size_t hash_groups_per_unit = 256;
constexpr std::size_t gather_teams = 8;  // kernels/sparse_product.cl's GATHER_TEAMS: rows of a transpose a gather group
constexpr std::int32_t sort_cap = 512;  // rows of a transpose up to this long are sorted by a group
constexpr std::int32_t long_sort_cap = 2048;  // and up to this long by a group with a larger table
const char* const long_sort = " -DSORT_CAP=2048 -DSORT_FROM=512";
constexpr std::size_t tile_rows = 256;  // kernels/sparse_product.cl's TILE_ROWS: a transpose's rows a group

// A scan's tiles: `per` rows of scan_group counts each (a group a tile), at most max_tiles of them.
constexpr std::size_t max_tiles = 65536;
constexpr std::size_t scan_group = 256;  // kernels/sparse_product.cl's SCAN_GROUP
cl_uint scan_per_item(std::size_t n) {
  return cl_uint(std::max<std::size_t>(4, (n + max_tiles * scan_group - 1) / (max_tiles * scan_group)));
}
// Up to this many rows of scan_group counts, one group scans them all in one launch (scan_single_tile).
constexpr std::size_t single_tile_per = 32;

// C's longest row for run_multiply's choice of kernels; where it is not known (0 with entries),
// long enough for all of them.
std::int32_t longest_row(const DeviceCsrMatrix& c) {
  return c.max_row_length() > 0 || c.nnz() == 0 ? c.max_row_length() : std::numeric_limits<std::int32_t>::max();
}

// std::length_error where a 32-bit CSR matrix would have `nnz` nonzeros.
void check_nonzeros(std::int64_t nnz) {
  if (std::uint64_t(nnz) > max_csr_index)
    throw std::length_error("a sparse product has " + std::to_string(nnz) +
                            " nonzeros, more than 32-bit CSR indices address (" + std::to_string(max_csr_index) + ")");
}

// std::invalid_argument naming `what` where A B is not defined.
void require_product(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const char* what) {
  if (a.cols() != b.rows())
    throw std::invalid_argument(std::string(what) + ": A is " + std::to_string(a.rows()) + " x " +
                                std::to_string(a.cols()) + " but B has " + std::to_string(b.rows()) + " rows");
}

}  // namespace

SparseProducts::SparseProducts(const cl::Env& env, ElementType type, std::uint64_t wide_from)
    : env_(env), type_(type), wide_from_(std::min(wide_from, max_csr_index)), kernels_(env, type) {
  cl::checked("allocating a scan's tile totals", [&] {
    scan_totals_ = ::cl::Buffer(env.context(), CL_MEM_READ_WRITE, 3 * max_tiles * sizeof(std::int64_t));
    scan_summary_ = ::cl::Buffer(env.context(), CL_MEM_READ_WRITE, 3 * sizeof(std::int64_t));
  });
  const std::string options = real_build_options(type);
  scan_ = scan_kernels(env, options);
  product_kernels(RowOffsets::narrow, RowOffsets::narrow);
  recover_counts_ = env.kernel("sparse_product.cl", "recover_counts", options);
  column_counts_ = env.kernel("sparse_product.cl", "column_counts", options);
  transpose_place_ = env.kernel("sparse_product.cl", "transpose_place", options);
  transpose_gather_ = env.kernel("sparse_product.cl", "transpose_gather", options);
  sort_rows_ = env.kernel("sparse_product.cl", "sort_rows", options);
  compress_column_groups_ = env.kernel("sparse_product.cl", "compress_column_groups", options);
  first_of_row_groups_ = env.kernel("sparse_product.cl", "first_of_row_groups", options);
  expand_groups_ = env.kernel("sparse_product.cl", "expand_groups", options);
  sort_rows_long_ = env.kernel("sparse_product.cl", "sort_rows", options + long_sort);
  sort_long_rows_ = env.kernel("sparse_product.cl", "sort_long_rows", options + long_sort);
}

SparseProducts::ScanKernels SparseProducts::scan_kernels(const cl::Env& env, const std::string& options) {
  const auto kernel = [&](const char* name) { return env.kernel("sparse_product.cl", name, options); };
  return {kernel("scan_tile_totals"), kernel("scan_tile_offsets"), kernel("scan_tiles"), kernel("scan_single_tile")};
}

std::uint64_t SparseProducts::listed_bytes(std::size_t rows) noexcept {
  return std::uint64_t(rows) * std::uint64_t(narrow_cap) * sizeof(std::int32_t);
}

ScanTotals SparseProducts::exclusive_scan(::cl::Buffer& counts, std::size_t n) {
  if (n == 0) {
    kernels_.clear_ints(counts, 1);
    return {};
  }
  return scan(scan_, counts, n);
}

ScanTotals SparseProducts::scan(ScanKernels& scan, ::cl::Buffer& counts, std::size_t n) {
  if (n <= scan_group * single_tile_per) {
    const std::size_t per = (n + scan_group - 1) / scan_group;
    kernels_.run_groups(scan.single_tile, "scan_single_tile", 1, scan_group, per, as_count(n), counts, scan_summary_);
  } else {
    const cl_uint per = scan_per_item(n);
    const std::size_t tiles = (n + scan_group * per - 1) / (scan_group * per);
    kernels_.run_groups(scan.tile_totals, "scan_tile_totals", tiles, scan_group, cl_uint(tiles), per, as_count(n),
                        counts, scan_totals_);
    kernels_.run_groups(scan.tile_offsets, "scan_tile_offsets", 1, scan_group, cl_uint(tiles), scan_totals_, counts,
                        as_count(n), scan_summary_);
    kernels_.run_groups(scan.tiles, "scan_tiles", tiles, scan_group, per, as_count(n), counts, scan_totals_);
  }
  std::int64_t summary[3] = {0, 0, 0};  // the total, the largest and the smallest count
  cl::checked("reading a scan's total",
              [&] { env_.queue().enqueueReadBuffer(scan_summary_, CL_TRUE, 0, sizeof(summary), summary); });
  return {summary[0], std::int32_t(summary[1]), std::int32_t(summary[2])};
}

::cl::Buffer SparseProducts::widened(const ::cl::Buffer& offsets, std::size_t n, std::size_t room) {
  if (!wide_scan_) wide_scan_ = scan_kernels(env_, real_build_options(type_) + " -DCOUNT=long");
  ::cl::Buffer wide = env_.buffer(CL_MEM_READ_WRITE, (n + 1 + room) * sizeof(std::int64_t),
                                  "allocating " + std::to_string(n + 1 + room) + " 64-bit row offsets");
  kernels_.run(recover_counts_, "recover_counts", n, offsets, wide);
  scan(*wide_scan_, wide, n);
  return wide;
}

DeviceCsrMatrix SparseProducts::allocate(::cl::Buffer counts, std::int32_t rows, std::int32_t cols) {
  const ScanTotals totals = exclusive_scan(counts, std::size_t(rows));
  check_nonzeros(totals.total);
  return DeviceCsrMatrix(std::move(counts), make_index_buffer(env_, std::size_t(totals.total)),
                         make_vector(env_, type_, std::size_t(totals.total)), rows, cols, totals.total, type_,
                         totals.largest);
}

SparseProducts::ProductKernels& SparseProducts::product_kernels(RowOffsets b, RowOffsets c) {
  std::optional<ProductKernels>& built =
      product_kernels_[std::size_t(b == RowOffsets::wide) * 2 + std::size_t(c == RowOffsets::wide)];
  if (!built) {
    const std::string options = real_build_options(type_) + (b == RowOffsets::wide ? " -DB_OFFSET=long" : "") +
                                (c == RowOffsets::wide ? " -DC_OFFSET=long" : "");
    const auto kernel = [&](const char* name, const char* more = "") {
      return env_.kernel("sparse_product.cl", name, options + more);
    };
    built = ProductKernels{kernel("spgemm_rows", long_table),  // rows beyond long_hash_cap
                           kernel("spgemm_short_rows"), kernel("spgemm_hashed"), kernel("spgemm_hashed", long_table),
                           kernel("spgemm_narrow")};
  }
  return *built;
}

bool SparseProducts::merges_in_registers(const DeviceCsrMatrix& a) {
  return a.nnz() == 0 || (a.max_row_length() > 0 && a.max_row_length() <= short_row);
}

SparseProducts::Pass SparseProducts::unlisted(Pass pass) {
  return pass == Pass::count_and_list ? Pass::count : pass == Pass::fill_listed ? Pass::fill : pass;
}

bool SparseProducts::run_multiply(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const ::cl::Buffer& c_row,
                                  RowOffsets c_offsets, const ::cl::Buffer& c_col, const ::cl::Buffer& c_val,
                                  Pass pass, const std::string& label, std::int32_t longest,
                                  const ::cl::Buffer& c_listed) {
  const std::size_t rows = std::size_t(a.rows());
  const bool counting = unlisted(pass) == Pass::count;
  const std::string name = label + (counting ? " (count)" : pass == Pass::values ? " (values)" : " (fill)");
  ProductKernels& kernels = product_kernels(b.offsets(), counting ? RowOffsets::narrow : c_offsets);
  const ::cl::Buffer &a_row = a.row_ptr(), &b_row = b.row_offsets();
  if (merges_in_registers(a)) {
    kernels_.run(kernels.short_rows, "spgemm_short_rows " + name, rows, a_row, a.col_idx(), a.values(), b_row,
                 b.col_idx(), b.values(), c_row, c_col, c_val, cl_int(unlisted(pass)));
    return false;
  }
  const auto narrow = [&] {
    kernels_.run_groups(kernels.narrow, "spgemm_narrow " + name, hashed_groups((rows + narrow_rows - 1) / narrow_rows),
                        hash_group, rows, a_row, a.col_idx(), a.values(), b_row, b.col_idx(), b.values(), c_row, c_col,
                        c_val, cl_int(pass), c_listed);
  };
  // The wide kernel's rows have more than narrow_cap columns: none are listed to fill from.
  const auto wide = [&](::cl::Kernel& kernel, const char* kernel_name, bool skip_taken) {
    kernels_.run_groups(kernel, kernel_name + name, hashed_groups(rows), hash_group, rows, a_row, a.col_idx(),
                        a.values(), b_row, b.col_idx(), b.values(), c_row, c_col, c_val,
                        cl_int(pass == Pass::fill_listed ? Pass::fill : pass), cl_int(skip_taken), c_listed);
  };
  if (counting && longest == 0) {  // a first count: a row neither table holds is marked -1
    if (a.mean_row_length() * b.mean_row_length() <= narrow_count_products)
      narrow();
    else
      wide(kernels.hashed, "spgemm_hashed ", false);
    return true;
  }
  if (!counting) narrow();
  if (longest <= narrow_cap) return true;
  wide(kernels.hashed, "spgemm_hashed ", true);
  if (longest <= hash_cap) return true;
  wide(kernels.hashed_long, "spgemm_hashed_long ", true);
  if (longest <= long_hash_cap) return true;
  // The merge's scratch: a cursor and an end in B (of B's offsets' width) and a head an entry of A.
  const std::size_t scratch = std::max<std::size_t>(1, std::size_t(a.nnz())),
                    offset_bytes = b.offsets() == RowOffsets::wide ? sizeof(std::int64_t) : sizeof(std::int32_t);
  const std::string what = "allocating a sparse product's merge scratch";
  ::cl::Buffer cursor = env_.buffer(CL_MEM_READ_WRITE, scratch * offset_bytes, what),
               end = env_.buffer(CL_MEM_READ_WRITE, scratch * offset_bytes, what),
               head = make_index_buffer(env_, scratch);
  kernels_.run(kernels.merge_rows, "spgemm_rows " + name, rows, a_row, a.col_idx(), a.values(), b_row, b.col_idx(),
               b.values(), cursor, end, head, c_row, c_col, c_val, cl_int(unlisted(pass)));
  return true;
}

DeviceCsrMatrix SparseProducts::multiply(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const std::string& label,
                                         RowOffsets offsets, ProductRoom room, ColumnList list) {
  require_product(a, b, "multiply");
  const std::size_t rows = std::size_t(a.rows());
  ::cl::Buffer counts = make_index_buffer(env_, rows + 1 + room.rows), no_col = make_index_buffer(env_, 1),
               no_val = make_vector(env_, type_, 1), first_counts;
  // The hashed kernels list the columns they count (rows up to narrow_cap), so the fill only
  // sums; where the list would not fit one allocation, the fill hashes them again.
  const std::uint64_t list_bytes = listed_bytes(rows);
  const bool listing = list == ColumnList::where_it_fits && !merges_in_registers(a) && list_bytes > 0 &&
                       list_bytes <= env_.info().max_allocation_bytes / listed_share;
  const ::cl::Buffer listed = listing ? make_index_buffer(env_, rows * std::size_t(narrow_cap)) : no_col;
  if (run_multiply(a, b, counts, RowOffsets::narrow, no_col, no_val, listing ? Pass::count_and_list : Pass::count,
                   label, 0, listed)) {
    first_counts = make_index_buffer(env_, rows);  // the scan overwrites the counts
    copy_ints(counts, first_counts, rows);
  }
  ScanTotals totals = exclusive_scan(counts, rows);
  if (totals.smallest < 0) {  // rows marked -1, beyond the counting table: those counted again
    copy_ints(first_counts, counts, rows);
    run_multiply(a, b, counts, RowOffsets::narrow, no_col, no_val, Pass::count, label,
                 std::numeric_limits<std::int32_t>::max(), no_col);
    totals = exclusive_scan(counts, rows);
  }
  RowOffsets c_offsets = RowOffsets::narrow;
  const std::size_t room_entries = room.entries_for(totals.largest);
  const std::int64_t with_room = totals.total + std::int64_t(room_entries);
  if (std::uint64_t(with_room) > wide_from_ && offsets == RowOffsets::wide) {
    counts = widened(counts, rows, room.rows);
    c_offsets = RowOffsets::wide;
  } else {
    check_nonzeros(with_room);
  }
  return filled(a, b, counts, c_offsets, totals.total, totals.largest, label,
                listing ? Pass::fill_listed : Pass::fill, listed, room_entries);
}

DeviceCsrMatrix SparseProducts::multiply_grouped(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, unsigned k,
                                                 bool a_rows_grouped, const std::string& label, RowOffsets offsets) {
  require_product(a, b, "multiply_grouped");
  if (k <= 1 || a.rows() == 0 || b.nnz() == 0) return multiply(a, b, label, offsets);
  const std::size_t b_rows = std::size_t(b.rows()), groups = std::size_t(a.rows()) / k;
  // B's pattern with its columns' groups as columns (values: any, unread).
  DeviceCsrMatrix b_c(make_index_buffer(env_, b_rows + 1), make_index_buffer(env_, std::size_t(b.nnz()) / k),
                      make_vector(env_, type_, std::size_t(b.nnz()) / k), b.rows(), b.cols() / std::int32_t(k),
                      b.nnz() / std::int64_t(k), type_, b.max_row_length() / std::int32_t(k));
  kernels_.run(compress_column_groups_, "compress_column_groups", b_rows, cl_uint(k), b.row_ptr(), b.col_idx(),
               b_c.row_ptr(), b_c.col_idx());
  DeviceCsrMatrix a_c = a;
  if (a_rows_grouped) {  // the first row of each group of A's
    ::cl::Buffer counts = make_index_buffer(env_, groups + 1);
    kernels_.run(first_of_row_groups_, "first_of_row_groups", groups, cl_uint(k), cl_int(0), a.row_ptr(), a.col_idx(),
                 counts, counts);
    a_c = allocate(counts, std::int32_t(groups), a.cols());
    kernels_.run(first_of_row_groups_, "first_of_row_groups", groups, cl_uint(k), cl_int(1), a.row_ptr(), a.col_idx(),
                 a_c.row_ptr(), a_c.col_idx());
  }
  const DeviceCsrMatrix c_c = multiply(a_c, b_c, label + " (groups)");
  const std::size_t rows = a_rows_grouped ? std::size_t(c_c.rows()) * k : std::size_t(c_c.rows());
  const std::size_t nnz = std::size_t(c_c.nnz()) * k * (a_rows_grouped ? k : 1);
  check_nonzeros(std::int64_t(nnz));
  DeviceCsrMatrix c(make_index_buffer(env_, rows + 1), make_index_buffer(env_, nnz), make_vector(env_, type_, nnz),
                    std::int32_t(rows), b.cols(), std::int64_t(nnz), type_, c_c.max_row_length() * std::int32_t(k));
  kernels_.run(expand_groups_, "expand_groups", std::size_t(c_c.rows()), cl_uint(k), cl_int(a_rows_grouped),
               c_c.row_ptr(), c_c.col_idx(), c.row_ptr(), c.col_idx());
  multiply_values(a, b, c, label);
  return c;
}

void SparseProducts::copy_ints(const ::cl::Buffer& from, const ::cl::Buffer& to, std::size_t n) {
  if (n == 0) return;
  cl::checked("copying row counts or pointers",
              [&] { env_.queue().enqueueCopyBuffer(from, to, 0, 0, n * sizeof(std::int32_t)); });
}

DeviceCsrMatrix SparseProducts::multiply_on(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b,
                                            const DeviceCsrMatrix& earlier, const std::string& label) {
  require_product(a, b, "multiply_on");
  return filled(a, b, earlier.row_offsets(), earlier.offsets(), earlier.nnz(), earlier.max_row_length(), label,
                Pass::fill, earlier.row_offsets());
}

DeviceCsrMatrix SparseProducts::filled(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, const ::cl::Buffer& c_row,
                                       RowOffsets c_offsets, std::int64_t nnz, std::int32_t longest,
                                       const std::string& label, Pass pass, const ::cl::Buffer& c_listed,
                                       std::size_t room_entries) {
  const std::size_t capacity = std::size_t(nnz) + room_entries;
  DeviceCsrMatrix c(c_row, make_index_buffer(env_, capacity), make_vector(env_, type_, capacity),
                    a.rows(), b.cols(), nnz, type_, longest, c_offsets);
  run_multiply(a, b, c_row, c_offsets, c.col_idx(), c.values(), pass, label, longest_row(c), c_listed);
  return c;
}

void SparseProducts::multiply_values(const DeviceCsrMatrix& a, const DeviceCsrMatrix& b, DeviceCsrMatrix& c,
                                     const std::string& label) {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw std::invalid_argument("multiply_values: C is " + std::to_string(c.rows()) + " x " + std::to_string(c.cols()) +
                                ", not the shape of A B (" + std::to_string(a.rows()) + " x " + std::to_string(a.cols()) +
                                " times " + std::to_string(b.rows()) + " x " + std::to_string(b.cols()) + ")");
  run_multiply(a, b, c.row_offsets(), c.offsets(), c.col_idx(), c.values(), Pass::values, label, longest_row(c),
               c.col_idx());
}

std::size_t SparseProducts::hashed_groups(std::size_t units) const {
  return std::min(units, hash_groups_per_unit * env_.info().compute_units);
}

std::size_t SparseProducts::tile_groups(std::int32_t rows) const {
  return std::min((std::size_t(rows) + tile_rows - 1) / tile_rows, groups_per_unit * env_.info().compute_units);
}

// Entries per column of M (T's row counts), then each entry of M at its column's next free slot
// of T (integer atomics), then T's rows sorted by column, which fixes the order the placing left
// to chance.
DeviceCsrMatrix SparseProducts::transpose(const DeviceCsrMatrix& m) {
  return transpose({{&m, 0, 0}}, m.cols(), m.rows());
}

DeviceCsrMatrix SparseProducts::transpose(const std::vector<TransposePart>& parts, std::int32_t t_rows,
                                          std::int32_t t_cols) {
  const std::size_t columns = std::size_t(t_rows);
  ::cl::Buffer counts = make_index_buffer(env_, columns + 1);
  kernels_.clear_ints(counts, columns + 1);
  for (const TransposePart& part : parts) {
    const DeviceCsrMatrix& m = *part.m;
    if (m.offsets() != RowOffsets::narrow) throw std::invalid_argument("transpose: a part with 64-bit row offsets");
    if (m.rows() > 0)
      kernels_.run_groups(column_counts_, "column_counts", tile_groups(m.rows()), tile_rows, std::size_t(m.rows()),
                          m.row_ptr(), m.col_idx(), cl_int(part.first), cl_int(t_rows), counts);
  }
  DeviceCsrMatrix t = allocate(counts, t_rows, t_cols);
  ::cl::Buffer next = make_index_buffer(env_, columns + 1);
  copy_ints(t.row_ptr(), next, columns + 1);
  for (const TransposePart& part : parts) {
    const DeviceCsrMatrix& m = *part.m;
    if (m.rows() > 0)
      kernels_.run_groups(transpose_place_, "transpose_place", tile_groups(m.rows()), tile_rows, std::size_t(m.rows()),
                          m.row_ptr(), m.col_idx(), m.values(), cl_int(part.first), cl_int(t_rows),
                          cl_int(part.shift), next, t.col_idx(), t.values());
  }
  const std::size_t rows = std::size_t(t.rows());
  kernels_.run_groups(sort_rows_, "sort_rows", hashed_groups(rows), hash_group, rows, t.row_ptr(), t.col_idx(),
                      t.values());
  const bool unknown = t.max_row_length() == 0 && t.nnz() > 0;
  if (t.max_row_length() > sort_cap || unknown)
    kernels_.run_groups(sort_rows_long_, "sort_rows (long)", hashed_groups(rows), hash_group, rows, t.row_ptr(),
                        t.col_idx(), t.values());
  if (t.max_row_length() > long_sort_cap || unknown)
    kernels_.run(sort_long_rows_, "sort_long_rows", rows, t.row_ptr(), t.col_idx(), t.values());
  return t;
}

void SparseProducts::transpose_values(const DeviceCsrMatrix& m, DeviceCsrMatrix& t) {
  if (t.rows() != m.cols() || t.cols() != m.rows() || t.nnz() != m.nnz())
    throw std::invalid_argument("transpose_values: T is " + std::to_string(t.rows()) + " x " + std::to_string(t.cols()) +
                                " with " + std::to_string(t.nnz()) + " entries, not the transpose of M");
  const std::size_t rows = std::size_t(t.rows());
  if (rows == 0) return;
  kernels_.run_groups(transpose_gather_, "transpose_gather", hashed_groups((rows + gather_teams - 1) / gather_teams),
                      hash_group * gather_teams, rows, t.row_ptr(), t.col_idx(), t.values(), m.row_ptr(), m.col_idx(),
                      m.values());
}

}  // namespace clcg::solver
