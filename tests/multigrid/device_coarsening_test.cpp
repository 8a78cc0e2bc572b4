// The AMG set-up on the device against the host reference (coarsening.hpp): scans, sparse
// products and transposes, the filtered matrix, aggregates, the smoothed prolongator and the
// whole hierarchy. Patterns and aggregates must be equal; values agree to rounding (the device
// may contract a * b + c into one fma where the host rounds twice: a few ulps per sum, so 1e-12
// relative in double and 1e-5 in float). Sizes are not multiples of any work-group size; n = 0
// and n = 1 are included; the same input gives the same bits on every run.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/multigrid/device_coarsening.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::HostCsr;
using clcg::test::test_env;

double tolerance(ElementType type) { return type == ElementType::f64 ? 1e-12 : 1e-5; }

std::vector<std::int32_t> read_ints(const ::cl::Buffer& buffer, std::size_t n) {
  std::vector<std::int32_t> host(n);
  if (n > 0) test_env().queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(std::int32_t), host.data());
  return host;
}

// A device index buffer holding `counts` (a scan's input: n counts and one slot more).
::cl::Buffer counts_buffer(const std::vector<std::int32_t>& counts) {
  ::cl::Buffer buffer = clcg::solver::make_index_buffer(test_env(), counts.size());
  test_env().queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, counts.size() * sizeof(std::int32_t), counts.data());
  return buffer;
}

// The host matrix as `type` would hold it (values rounded to float for f32).
HostCsr rounded(HostCsr m, ElementType type) {
  if (type == ElementType::f32)
    for (double& v : m.values) v = double(float(v));
  return m;
}

void expect_same(const HostCsr& device, const HostCsr& host, ElementType type, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(device.rows, host.rows);
  ASSERT_EQ(device.cols, host.cols);
  ASSERT_EQ(device.row_ptr, host.row_ptr);
  ASSERT_EQ(device.col_idx, host.col_idx);
  double scale = 0;
  for (double v : host.values) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < host.values.size(); ++k)
    ASSERT_NEAR(device.values[k], host.values[k], tolerance(type) * std::max(scale, 1.0)) << "entry " << k;
}

// A random rows x cols matrix with sorted, unique columns, about `per_row` per row, some rows empty.
HostCsr random_csr(int rows, int cols, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> column(0, std::max(cols - 1, 0));
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  for (int i = 0; i < rows; ++i) {
    std::vector<int> row;
    if (cols > 0 && i % 7 != 3)
      for (int k = 0; k < per_row; ++k) row.push_back(column(rng));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (int c : row) m.col_idx.push_back(c), m.values.push_back(value(rng));
    m.row_ptr.push_back(m.nnz());
  }
  return m;
}

HostCsr csr(const clcg::solver::HostMatrix& a) { return clcg::solver::to_host_csr(a); }

TEST(DeviceScan, GivesTheExclusivePrefixSumTotalAndLargestCount) {
  // One tile (a single launch) up to 256 x 32 counts, tiles beyond.
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(8192), std::size_t(8193),
                        std::size_t(70001)}) {
    std::mt19937_64 rng(n);
    std::vector<std::int32_t> counts(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) counts[i] = std::int32_t(rng() % 40);
    if (n > 1) counts[n / 2] = -1;  // a product's mark for a row it counts again: the smallest count
    ::cl::Buffer buffer = counts_buffer(counts);
    clcg::solver::SparseProducts products(test_env(), ElementType::f32);
    const clcg::solver::ScanTotals totals = products.exclusive_scan(buffer, n);
    std::vector<std::int32_t> expected(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) expected[i + 1] = expected[i] + counts[i];
    EXPECT_EQ(read_ints(buffer, n + 1), expected) << "n " << n;
    EXPECT_EQ(totals.total, expected[n]);
    EXPECT_EQ(totals.largest, n ? *std::max_element(counts.begin(), counts.end() - 1) : 0);
    EXPECT_EQ(totals.smallest, n > 1 ? -1 : 0);
  }
}

// Every path of the product: rows of A up to 8 entries (merged in registers; 301 x 300 with 8 a
// row fills all 8), longer ones (hashed in local memory), rows of C beyond the hash table's 384
// columns (the second, larger table: the case 45 x 700 x 900 has rows of ~500 columns), and rows
// beyond its 1536 (merged through global scratch: 20 x 3000 x 4000, ~2000 a row). Rows of ~300 products are
// counted by the wide kernel, which lists the columns of rows up to 96 for the fill: all of them
// (203 x 40 x 60) or those on one side of 96 columns (150 x 300 x 110, ~100 a row). Transposes: rows sorted by
// a group, by a group with the larger table (1500 x 4: ~1100 a row), and by one work-item
// (5000 x 3: ~3300 a row); 300 x 5000 names ~2000 columns a tile of
// 256 rows, more than the tile's table holds (the rest counted and placed through global atomics).
TEST(DeviceSparseProduct, MultiplyAndTransposeEqualTheHostReference) {
  struct Shape {
    int m, k, n, a_per_row, b_per_row;
  };
  for (ElementType type : clcg::test::device_types())
    for (const Shape& s : {Shape{0, 0, 0, 9, 5}, Shape{1, 1, 1, 9, 5}, Shape{157, 93, 71, 9, 5},
                           Shape{301, 300, 129, 9, 5}, Shape{301, 300, 129, 8, 5}, Shape{131, 90, 200, 25, 6}, Shape{45, 700, 900, 60, 12},
                           Shape{20, 3000, 4000, 200, 12}, Shape{203, 40, 60, 30, 10}, Shape{150, 300, 110, 30, 9},
                           Shape{1500, 4, 3, 3, 2}, Shape{5000, 3, 3, 2, 2}, Shape{300, 5000, 40, 8, 2}}) {
      const std::string what = std::to_string(s.m) + "x" + std::to_string(s.k) + " * " + std::to_string(s.k) + "x" +
                               std::to_string(s.n) + (type == ElementType::f64 ? " double" : " float");
      const HostCsr a = rounded(random_csr(s.m, s.k, s.a_per_row, 1 + s.m), type);
      const HostCsr b = rounded(random_csr(s.k, s.n, s.b_per_row, 2 + s.m), type);
      clcg::solver::SparseProducts products(test_env(), type);
      const DeviceCsrMatrix da(test_env(), a, type), db(test_env(), b, type);
      const HostCsr c = clcg::solver::multiply(a, b);
      if (s.a_per_row >= 60) {
        int longest = 0;
        for (int i = 0; i < c.rows; ++i) longest = std::max(longest, c.row_ptr[i + 1] - c.row_ptr[i]);
        EXPECT_GT(longest, s.a_per_row == 60 ? 384 : 1536) << "the case must reach the larger table or the merge";
      }
      if (s.n == 110) {
        int listed = 0, beyond = 0;
        for (int i = 0; i < c.rows; ++i) (c.row_ptr[i + 1] - c.row_ptr[i] <= 96 ? listed : beyond) += 1;
        EXPECT_GT(listed, 0) << "the case must have rows of C the count lists";
        EXPECT_GT(beyond, 0) << "and rows it does not";
      }
      const DeviceCsrMatrix dc = products.multiply(da, db);
      expect_same(download(test_env(), dc), c, type, what + ": A B");
      expect_same(download(test_env(), products.multiply_on(da, db, dc)), c, type, what + ": A B on kept row pointers");
      expect_same(download(test_env(), products.transpose(da)), clcg::solver::transpose(a), type, what + ": A^T");
    }
}

// 64-bit row offsets (what A P takes past 2^31 - 1 nonzeros), forced from the first nonzero: C =
// A B with them and B with them in a product (R (A P)) give the same columns and values, bit for
// bit, as the 32-bit path, through every kernel above; a product not allowed them stays 32-bit;
// row_ptr() refuses them. 20000 x 50 x 30 scans its counts in tiles (more than 8192 rows).
TEST(DeviceSparseProduct, WideRowOffsetsGiveTheSameBits) {
  struct Shape {
    int m, k, n, a_per_row, b_per_row;
  };
  using clcg::solver::RowOffsets;
  for (ElementType type : clcg::test::device_types())
    for (const Shape& s : {Shape{1, 1, 1, 9, 5}, Shape{301, 300, 129, 8, 5}, Shape{131, 90, 200, 25, 6},
                           Shape{45, 700, 900, 60, 12}, Shape{20, 3000, 4000, 200, 12}, Shape{150, 300, 110, 30, 9},
                           Shape{20000, 50, 30, 3, 2}}) {
      const std::string what = std::to_string(s.m) + "x" + std::to_string(s.k) + " * " + std::to_string(s.k) + "x" +
                               std::to_string(s.n) + (type == ElementType::f64 ? " double" : " float");
      SCOPED_TRACE(what);
      const HostCsr a = rounded(random_csr(s.m, s.k, s.a_per_row, 1 + s.m), type);
      const HostCsr b = rounded(random_csr(s.k, s.n, s.b_per_row, 2 + s.m), type);
      const HostCsr r = rounded(random_csr(s.n, s.m, 4, 3 + s.m), type);  // a left factor of C
      clcg::solver::SparseProducts narrow(test_env(), type), wide(test_env(), type, 0);
      const DeviceCsrMatrix da(test_env(), a, type), db(test_env(), b, type), dr(test_env(), r, type);
      const DeviceCsrMatrix c32 = narrow.multiply(da, db, "A B", RowOffsets::wide);
      DeviceCsrMatrix c64 = wide.multiply(da, db, "A B", RowOffsets::wide);
      ASSERT_EQ(c32.offsets(), RowOffsets::narrow);
      ASSERT_EQ(c64.offsets(), c64.nnz() > 0 ? RowOffsets::wide : RowOffsets::narrow);
      EXPECT_EQ(wide.multiply(da, db).offsets(), RowOffsets::narrow) << "a product not allowed wide offsets";
      const HostCsr expected = download(test_env(), c32), got = download(test_env(), c64);
      EXPECT_EQ(got.row_ptr, expected.row_ptr);
      EXPECT_EQ(got.col_idx, expected.col_idx);
      EXPECT_EQ(got.values, expected.values) << "A B";
      EXPECT_EQ(download(test_env(), wide.multiply_on(da, db, c64)).values, expected.values) << "A B on kept offsets";
      wide.multiply_values(da, db, c64);
      EXPECT_EQ(download(test_env(), c64).values, expected.values) << "A B's values again";
      const HostCsr rc32 = download(test_env(), narrow.multiply(dr, c32)),
                    rc64 = download(test_env(), wide.multiply(dr, c64));
      EXPECT_EQ(rc64.row_ptr, rc32.row_ptr);
      EXPECT_EQ(rc64.col_idx, rc32.col_idx);
      EXPECT_EQ(rc64.values, rc32.values) << "R C with C's offsets 64-bit";
      if (c64.offsets() == RowOffsets::wide) {
        EXPECT_THROW(c64.row_ptr(), std::length_error);
      }
    }
}

// Room left after a product (for rows a caller appends in place): the same C, buffers that
// hold the room, and 64-bit offsets chosen with the room's entries counted.
TEST(DeviceSparseProduct, RoomLeavesTheSameProductInLargerBuffers) {
  using clcg::solver::ProductRoom;
  using clcg::solver::RowOffsets;
  const ElementType type = ElementType::f64;
  const HostCsr a = random_csr(301, 300, 8, 11), b = random_csr(300, 129, 5, 12);
  const DeviceCsrMatrix da(test_env(), a, type), db(test_env(), b, type);
  clcg::solver::SparseProducts plain(test_env(), type);
  const DeviceCsrMatrix c = plain.multiply(da, db, "A B", RowOffsets::wide);
  const HostCsr expected = download(test_env(), c);
  const auto bytes = [](const ::cl::Buffer& buffer) { return buffer.getInfo<CL_MEM_SIZE>(); };
  const ProductRoom room{7, 1000};
  for (std::uint64_t wide_from : {std::uint64_t(clcg::solver::max_csr_index), std::uint64_t(c.nnz()) + 500}) {
    SCOPED_TRACE("wide from " + std::to_string(wide_from));
    clcg::solver::SparseProducts products(test_env(), type, wide_from);
    const DeviceCsrMatrix roomy = products.multiply(da, db, "A B", RowOffsets::wide, room);
    // (the room's entries take C past wide_from in the second case, C's own do not)
    const bool wide = std::uint64_t(c.nnz()) + room.entries > wide_from;
    ASSERT_EQ(roomy.offsets(), wide ? RowOffsets::wide : RowOffsets::narrow);
    EXPECT_EQ(roomy.nnz(), c.nnz());
    const HostCsr got = download(test_env(), roomy);
    EXPECT_EQ(got.row_ptr, expected.row_ptr);
    EXPECT_EQ(got.col_idx, expected.col_idx);
    EXPECT_EQ(got.values, expected.values);
    EXPECT_GE(bytes(roomy.row_offsets()), (a.rows + 1 + room.rows) * (wide ? 8u : 4u));
    EXPECT_GE(bytes(roomy.col_idx()), (std::size_t(c.nnz()) + room.entries) * 4);
    EXPECT_GE(bytes(roomy.values()), (std::size_t(c.nnz()) + room.entries) * 8);
  }
  // Room for rows as long as C's longest: known once C is counted.
  const ProductRoom longest{7, 3, true};
  ASSERT_GT(c.max_row_length(), 0);
  EXPECT_EQ(longest.entries_for(c.max_row_length()), 3 + 7 * std::size_t(c.max_row_length()));
  const DeviceCsrMatrix roomy = plain.multiply(da, db, "A B", RowOffsets::wide, longest);
  EXPECT_EQ(download(test_env(), roomy).values, expected.values);
  EXPECT_GE(bytes(roomy.values()), (std::size_t(c.nnz()) + longest.entries_for(c.max_row_length())) * 8);
}

// A count that lists no columns (the fill hashes them again) gives the listed product's C.
TEST(DeviceSparseProduct, UnlistedColumnsGiveTheListedProduct) {
  using clcg::solver::ColumnList;
  for (ElementType type : clcg::test::device_types()) {
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    // rows of A past the register merge's 8 (the hashed kernels list), C's rows up to ~150 columns
    const HostCsr a = rounded(random_csr(131, 90, 25, 21), type), b = rounded(random_csr(90, 200, 6, 22), type);
    const DeviceCsrMatrix da(test_env(), a, type), db(test_env(), b, type);
    clcg::solver::SparseProducts products(test_env(), type);
    const HostCsr listed = download(test_env(), products.multiply(da, db));
    const HostCsr unlisted =
        download(test_env(), products.multiply(da, db, "A B", clcg::solver::RowOffsets::narrow, {}, ColumnList::none));
    EXPECT_EQ(unlisted.row_ptr, listed.row_ptr);
    EXPECT_EQ(unlisted.col_idx, listed.col_idx);
    EXPECT_EQ(unlisted.values, listed.values);
  }
}

// Counts whose total passes 2^32: the 32-bit scan is right mod 2^32 and its exact total is
// returned; widened() gives the exact 64-bit offsets.
TEST(DeviceScan, WidensOffsetsPastTwoToThe31) {
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  for (std::size_t n : {std::size_t(5), std::size_t(9001)}) {  // one tile, and tiles
    std::vector<std::int32_t> counts(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) counts[i] = i % 3 == 1 ? big : std::int32_t(i % 11);
    ::cl::Buffer buffer = counts_buffer(counts);
    clcg::solver::SparseProducts products(test_env(), ElementType::f64);
    const clcg::solver::ScanTotals totals = products.exclusive_scan(buffer, n);
    std::vector<std::int64_t> expected(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) expected[i + 1] = expected[i] + counts[i];
    EXPECT_EQ(totals.total, expected[n]) << "n " << n;
    const ::cl::Buffer wide = products.widened(buffer, n);
    std::vector<std::int64_t> offsets(n + 1);
    test_env().queue().enqueueReadBuffer(wide, CL_TRUE, 0, offsets.size() * sizeof(std::int64_t), offsets.data());
    EXPECT_EQ(offsets, expected) << "n " << n;
  }
}

TEST(DeviceSparseProduct, RejectsMismatchedSizes) {
  clcg::solver::SparseProducts products(test_env(), ElementType::f32);
  const DeviceCsrMatrix a(test_env(), random_csr(5, 4, 2, 1), ElementType::f32);
  EXPECT_THROW(products.multiply(a, a), std::invalid_argument);
}

struct Case {
  std::string name;
  HostCsr a;
  std::size_t levels = 3;  // at least, with coarse_rows 40 and more than 200 rows
};

std::vector<Case> cases() {
  std::vector<Case> c{{"2D Poisson 37 x 29", csr(clcg::test::poisson(37, 29))},
                      {"3D Poisson 9 x 8 x 7", csr(clcg::test::poisson(9, 8, 7))},
                      {"random SPD 777", csr(clcg::test::random_dd_spd(777, 7, 5))},
                      // ~45 entries a row: the strength and filter kernels share rows out to teams
                      {"random SPD 301, long rows", csr(clcg::test::random_dd_spd(301, 45, 9)), 2},
                      {"1 x 1", csr(clcg::test::poisson(1, 1))}};
  const std::string bus = clcg::test::shared_matrix("494_bus.mtx");
  if (!bus.empty()) c.push_back({"494_bus", csr(clcg::test::read_mtx(bus))});
  return c;
}

// Strength graph, aggregates and smoothed prolongator from the device and from the host, for
// the same omega (from the device Lanczos in the AMG set-up; any value checks the arithmetic).
TEST(DeviceCoarsening, FilterAggregatesAndProlongatorEqualTheHostReference) {
  for (ElementType type : clcg::test::device_types())
    for (const Case& c : cases()) {
      const std::string what = c.name + (type == ElementType::f64 ? " double" : " float");
      SCOPED_TRACE(what);
      const HostCsr a = rounded(c.a, type);
      for (double theta : {0.25, 0.6}) {
        clcg::solver::DeviceCoarsening coarsening(test_env(), type);
        const DeviceCsrMatrix da(test_env(), a, type);
        const DeviceCsrMatrix graph = coarsening.filter(da, theta);
        const std::vector<char> strong = clcg::solver::strong_connections(a, theta);
        const HostCsr filtered = clcg::solver::filtered_matrix(a, strong);
        expect_same(download(test_env(), graph), filtered, type, "filtered matrix");

        const clcg::solver::DeviceAggregates aggregates = coarsening.aggregate(graph);
        const clcg::solver::Aggregates expected = clcg::solver::aggregate(a, strong);
        ASSERT_EQ(aggregates.count, expected.count);
        ASSERT_EQ(read_ints(aggregates.of_row, std::size_t(a.rows)), expected.of_row);
        if (a.rows > 1) {
          EXPECT_LT(aggregates.count, a.rows) << "no coarsening";
        }

        const std::vector<double> ones(std::size_t(a.rows), 1.0);
        ::cl::Buffer candidate = clcg::solver::make_vector(test_env(), type, ones.size()), coarse;
        clcg::solver::upload_vector(test_env(), ones, type, candidate);
        const double omega = 0.61;
        const DeviceCsrMatrix tentative = coarsening.tentative_prolongator(aggregates, 1, candidate, 1, coarse);
        const HostCsr p =
            download(test_env(), coarsening.smoothed_prolongator(da, coarsening.inverse_diagonal(da), tentative, omega));
        std::vector<double> expected_coarse;
        const HostCsr expected_tentative = clcg::solver::tentative_prolongator(expected, 1, ones, 1, expected_coarse);
        expect_same(download(test_env(), tentative), expected_tentative, type, "tentative prolongator");
        expect_same(p, clcg::solver::smoothed_prolongator(a, expected_tentative, omega), type, "prolongator");
        const std::vector<double> norms =
            clcg::solver::download_vector(test_env(), coarse, type, std::size_t(aggregates.count));
        for (std::size_t g = 0; g < norms.size(); ++g)
          ASSERT_NEAR(norms[g], expected_coarse[g], tolerance(type) * expected_coarse[g]) << "aggregate " << g;
      }
    }
}

// Where the filter drops nothing (every off-diagonal entry strong, one diagonal entry a row), A_f
// is A itself: no copy. A matrix whose filtered row lengths add up to A's nonzeros all the same
// (row 0 stores no diagonal and gains one, row 1 loses a weak entry) is filtered as the host
// filters it. D^-1 is 1 / A's diagonal, 0 where none is stored.
TEST(DeviceCoarsening, TheFilterIsAItselfOnlyWhereItDropsNothing) {
  for (ElementType type : clcg::test::device_types()) {
    SCOPED_TRACE(type == ElementType::f64 ? "double" : "float");
    clcg::solver::DeviceCoarsening coarsening(test_env(), type);
    const HostCsr poisson = csr(clcg::test::poisson(37, 29));
    const DeviceCsrMatrix dp(test_env(), poisson, type);
    ASSERT_TRUE(clcg::solver::keeps_every_entry(poisson, clcg::solver::strong_connections(poisson, 0.25)));
    EXPECT_EQ(coarsening.filter(dp, 0.25).row_ptr()(), dp.row_ptr()()) << "A_f must be A's own buffers";
    const std::vector<double> inv =
        clcg::solver::download_vector(test_env(), coarsening.inverse_diagonal(dp), type, std::size_t(poisson.rows));
    EXPECT_EQ(inv, std::vector<double>(inv.size(), 0.25));

    HostCsr a;
    a.rows = a.cols = 4;
    a.row_ptr = {0, 1, 5, 6, 8};
    a.col_idx = {1, 0, 1, 2, 3, 2, 1, 3};
    a.values = {-1, -1, 4, -0.01, -1, 4, -1, 4};
    const std::vector<char> strong = clcg::solver::strong_connections(a, 0.25);
    ASSERT_FALSE(clcg::solver::keeps_every_entry(a, strong));
    const HostCsr expected = clcg::solver::filtered_matrix(a, strong);
    ASSERT_EQ(expected.nnz(), a.nnz()) << "the case must keep A's count of nonzeros";
    const DeviceCsrMatrix da(test_env(), a, type);
    expect_same(download(test_env(), coarsening.filter(da, 0.25)), expected, type, "filtered matrix");
    const std::vector<double> inv_a = clcg::solver::download_vector(test_env(), coarsening.inverse_diagonal(da), type, 4);
    EXPECT_EQ(inv_a, (std::vector<double>{0, 0.25, 0.25, 0.25}));
    EXPECT_EQ(clcg::solver::inverse_diagonal(a), inv_a);
  }
}

// The preconditioner from the device set-up and from the host reference: the same levels, and
// the same V-cycle to rounding (in double: in float the host's coarse operators are rounded
// from double ones, so a borderline strong connection may differ). Two device set-ups give the
// same bits.
TEST(DeviceCoarsening, TheHierarchyEqualsTheHostReferenceAndRepeatsBitForBit) {
  clcg::solver::AmgOptions options;
  options.coarse_rows = 40;  // several levels on small grids
  for (ElementType type : clcg::test::device_types())
    for (const Case& c : cases()) {
      const std::string what = c.name + (type == ElementType::f64 ? " double" : " float");
      SCOPED_TRACE(what);
      const HostCsr a = rounded(c.a, type);
      const DeviceCsrMatrix da(test_env(), a, type);
      clcg::solver::AmgPreconditioner device(test_env(), da, options), again(test_env(), da, options);
      clcg::solver::AmgPreconditioner host(test_env(), da, c.a, options);
      if (a.rows > 200) {
        EXPECT_GE(device.levels(), c.levels);
      }
      const std::size_t n = std::size_t(a.rows);
      const Eigen::VectorXd r = clcg::test::random_vector(Eigen::Index(n), 7);
      ::cl::Buffer in = clcg::solver::make_vector(test_env(), type, n);
      clcg::solver::upload_vector(test_env(), std::vector<double>(r.data(), r.data() + n), type, in);
      const auto applied = [&](clcg::solver::AmgPreconditioner& m) {
        ::cl::Buffer out = clcg::solver::make_vector(test_env(), type, n);
        m.apply(in, out);
        return clcg::solver::download_vector(test_env(), out, type, n);
      };
      const std::vector<double> z = applied(device), z_again = applied(again), z_host = applied(host);
      EXPECT_EQ(z, z_again) << "two device set-ups differ";
      if (type == ElementType::f32) continue;
      EXPECT_EQ(device.report().level_rows, host.report().level_rows);
      EXPECT_EQ(device.report().level_nnz, host.report().level_nnz);
      double scale = 0, diff = 0;
      for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(z_host[i])), diff = std::max(diff, std::abs(z[i] - z_host[i]));
      // The V-cycle amplifies rounding differences a little (Chebyshev bounds from Lanczos).
      EXPECT_LE(diff, 1e-9 * std::max(scale, 1e-30));
    }
}

// Where coarsening stops: coarse_rows for A itself and for the coarse levels of a matrix under
// 1M rows, half of it for the coarse levels from 1M rows (their dense factor costs n^3/3).
TEST(AmgCoarsening, CoarseLevelsOfLargeMatricesStopAtHalfTheCoarseRows) {
  clcg::solver::AmgOptions options;
  options.coarse_rows = 600;
  EXPECT_EQ(clcg::solver::amg_largest_coarsest(5'000'000, false, options), 600u);
  EXPECT_EQ(clcg::solver::amg_largest_coarsest(999'999, true, options), 600u);
  EXPECT_EQ(clcg::solver::amg_largest_coarsest(1'000'000, true, options), 300u);
  options.coarse_rows = 1;
  EXPECT_EQ(clcg::solver::amg_largest_coarsest(2'000'000, true, options), 0u);
  EXPECT_EQ(clcg::solver::amg_largest_coarsest(1138, true, options), 1u);
}

}  // namespace
