// The distributed AMG set-up (distributed/amg_hierarchy.hpp) against the single-process host
// reference (multigrid/coarsening.hpp), under mpirun with any number of ranks: every level's A, P
// and R gathered whole must have the reference's bits, each level's rho(D^-1 A) estimate must be
// what one process gets on the whole level (so it cannot depend on the partition), and the rows
// moved between ranks (remote_rows.hpp) must give the bits of transpose() and multiply().
//
// Every rank runs every test and every collective in the same order. Assertions that end a
// test early (ASSERT_*) only test data that is the same on every rank (gathered or replicated),
// so all ranks leave together and none waits in a collective alone. main() fails the process
// where any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clcg/solver/distributed/amg_hierarchy.hpp"
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/rank_setup.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"
#include "support/device_fixture.hpp"
#include "support/threads_variable.hpp"

namespace {

using clcg::distributed::DistributedHierarchy;
using clcg::distributed::DistributedLevel;
using clcg::distributed::LocalRows;
using clcg::distributed::Partition;
using clcg::distributed::RankSetup;
using clcg::solver::HostCsr;

const MPI_Comm world = MPI_COMM_WORLD;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  return rank;
}
int world_size() {
  int size = 1;
  MPI_Comm_size(world, &size);
  return size;
}

// Every rank's rows of a distributed matrix, whole on every rank (row_begin 0; collective).
LocalRows gather_rows(const LocalRows& mine) {
  const int ranks = world_size();
  const int rows = int(mine.rows()), entries = int(mine.nnz());
  std::vector<int> row_counts(static_cast<std::size_t>(ranks), 0), entry_counts(static_cast<std::size_t>(ranks), 0);
  MPI_Allgather(&rows, 1, MPI_INT, row_counts.data(), 1, MPI_INT, world);
  MPI_Allgather(&entries, 1, MPI_INT, entry_counts.data(), 1, MPI_INT, world);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = mine.row_ptr[i + 1] - mine.row_ptr[i];
  std::int64_t total_rows = 0, total_entries = 0;
  for (int r = 0; r < ranks; ++r) total_rows += row_counts[std::size_t(r)], total_entries += entry_counts[std::size_t(r)];
  std::vector<std::int64_t> all_lengths(static_cast<std::size_t>(total_rows));
  MPI_Allgatherv(lengths.data(), rows, MPI_INT64_T, all_lengths.data(), row_counts.data(),
                 clcg::distributed::offsets_of(row_counts).data(), MPI_INT64_T, world);
  LocalRows whole;
  whole.global_rows = mine.global_rows;
  whole.row_begin = 0;
  whole.col.resize(std::size_t(total_entries));
  whole.values.resize(std::size_t(total_entries));
  MPI_Allgatherv(mine.col.data(), entries, MPI_INT64_T, whole.col.data(), entry_counts.data(),
                 clcg::distributed::offsets_of(entry_counts).data(), MPI_INT64_T, world);
  MPI_Allgatherv(mine.values.data(), entries, MPI_DOUBLE, whole.values.data(), entry_counts.data(),
                 clcg::distributed::offsets_of(entry_counts).data(), MPI_DOUBLE, world);
  for (std::int64_t l : all_lengths) whole.row_ptr.push_back(whole.row_ptr.back() + l);
  return whole;
}

HostCsr to_csr(const LocalRows& whole, std::int64_t cols) {
  HostCsr m;
  m.rows = std::int32_t(whole.rows());
  m.cols = std::int32_t(cols);
  m.row_ptr.assign(whole.row_ptr.begin(), whole.row_ptr.end());
  m.col_idx.assign(whole.col.begin(), whole.col.end());
  m.values.assign(whole.values.begin(), whole.values.end());
  return m;
}

// Rows [begin, end) of a whole matrix, as a rank holds them.
LocalRows rows_of(const HostCsr& m, std::int64_t begin, std::int64_t end) {
  LocalRows rows;
  rows.global_rows = m.rows;
  rows.row_begin = begin;
  for (std::int64_t i = begin; i < end; ++i) {
    for (std::int32_t k = m.row_ptr[std::size_t(i)]; k < m.row_ptr[std::size_t(i) + 1]; ++k) {
      rows.col.push_back(m.col_idx[std::size_t(k)]);
      rows.values.push_back(m.values[std::size_t(k)]);
    }
    rows.row_ptr.push_back(std::int64_t(rows.col.size()));
  }
  return rows;
}

// The same sizes, pattern and value bits (0.0 and -0.0 differ; EXPECT_EQ on doubles would not
// tell them apart); the first differing entry named.
void expect_same(const HostCsr& got, const HostCsr& want, const std::string& what) {
  EXPECT_EQ(got.rows, want.rows) << what;
  EXPECT_EQ(got.cols, want.cols) << what;
  if (got.row_ptr != want.row_ptr || got.col_idx != want.col_idx) {
    ADD_FAILURE() << what << ": the pattern differs (" << got.nnz() << " entries, the reference " << want.nnz() << ")";
    return;
  }
  for (std::size_t k = 0; k < want.values.size(); ++k)
    if (std::bit_cast<std::uint64_t>(got.values[k]) != std::bit_cast<std::uint64_t>(want.values[k])) {
      const std::int32_t row = std::int32_t(std::upper_bound(want.row_ptr.begin(), want.row_ptr.end(), std::int32_t(k)) -
                                            want.row_ptr.begin()) - 1;
      char text[160];
      std::snprintf(text, sizeof text, "entry %zu (row %d, column %d): %a, the reference %a", k, row,
                    want.col_idx[k], got.values[k], want.values[k]);
      ADD_FAILURE() << what << ": " << text;
      return;
    }
}

// A symmetric, strictly diagonally dominant (so SPD) matrix with rows of 1 to ~15 entries:
// neighbours near the diagonal and far from it (rows on other ranks), a few positive
// off-diagonals, and some rows with no off-diagonal at all (left out of every aggregate).
// Raw mt19937 words only: the same matrix with any standard library.
HostCsr irregular_spd(std::int32_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  const auto unit = [&] { return double(random() >> 5) / double(1u << 27); };  // [0, 1)
  std::vector<std::map<std::int32_t, double>> rows(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) {
    const int links = int(random() % 7);
    for (int l = 0; l < links; ++l) {
      const std::int32_t near = std::clamp(i + std::int32_t(random() % 41) - 20, 0, n - 1);
      const std::int32_t j = random() % 4 == 0 ? std::int32_t(random() % std::uint32_t(n)) : near;
      if (j == i) continue;
      const double w = (random() % 8 == 0 ? 1 : -1) * (0.05 + unit());
      rows[std::size_t(i)][j] += w;
      rows[std::size_t(j)][i] += w;
    }
  }
  HostCsr m;
  m.rows = m.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    double off = 0;
    for (const auto& [j, v] : rows[std::size_t(i)]) off += std::abs(v);
    rows[std::size_t(i)][i] = off * (1.05 + unit()) + 0.01;
    for (const auto& [j, v] : rows[std::size_t(i)]) m.col_idx.push_back(j), m.values.push_back(v);
    m.row_ptr.push_back(m.nnz());
  }
  return m;
}

enum class Problem { poisson2d, poisson3d, irregular };
enum class Cuts { uniform, uneven };

std::int64_t problem_rows(Problem problem) {
  switch (problem) {
    case Problem::poisson2d: return 37 * 29;
    case Problem::poisson3d: return 11 * 9 * 7;
    case Problem::irregular: return 500;
  }
  return 0;
}

// The rows [begin, end) of the problem's A, as a rank builds them.
LocalRows problem_rows(Problem problem, std::int64_t begin, std::int64_t end) {
  switch (problem) {
    case Problem::poisson2d: return clcg::distributed::poisson_rows(2, 37, 29, 1, begin, end);
    case Problem::poisson3d: return clcg::distributed::poisson_rows(3, 11, 9, 7, begin, end);
    case Problem::irregular: return rows_of(irregular_spd(500, 20240611), begin, end);
  }
  return {};
}

// Uneven cuts on chunk boundaries (and node boundaries: multiples of `block` too): rank 0 one
// step, rank 1 none where there are 3 ranks or more (two equal cuts), the last ranks the rest
// split unevenly.
Partition uneven_partition(std::int64_t rows, int ranks, std::int64_t block = 1) {
  const std::int64_t chunk = std::lcm(clcg::distributed::dot_chunk(rows), block), chunks = (rows + chunk - 1) / chunk;
  std::vector<std::int64_t> cuts;
  for (int r = 1; r < ranks; ++r) {
    const std::int64_t at = r <= 2 ? 1 : 1 + (chunks - 1) * (r - 2) * 2 / (3 * (ranks - 2));
    cuts.push_back(std::min(rows, at * chunk));
  }
  return clcg::distributed::explicit_partition(rows, ranks, cuts, block);
}

clcg::distributed::RankSetup& self_device() {
  static clcg::distributed::RankSetup device(MPI_COMM_SELF, clcg::test::test_env());
  return device;
}

// A level's A (on the host, or on this rank's device), R and P (on the device) on the host.
LocalRows a_of(const DistributedLevel& level) {
  return level.a_here && !level.given ? self_device().download(*level.a_here) : LocalRows(level.rows());
}
LocalRows r_of(const DistributedLevel& level) { return self_device().download(*level.r_here); }
LocalRows p_of(const DistributedLevel& level) { return self_device().download(*level.p_here); }

// rho(D^-1 A) of a level held whole by this process (whole_level), estimated on its device alone.
double level_radius_alone(const DistributedLevel& level, unsigned steps,
                          clcg::solver::ElementType type = clcg::solver::ElementType::f64) {
  clcg::distributed::RankSetup& device = self_device();
  const clcg::distributed::RankSetup::Rows here = device.upload(level.rows(), level.partition);
  return device.radius(here, device.diagonal(here), level.chunk_begin, steps, type);
}

// A level whole on this process: its rows gathered, its chunks those of every rank end to end
// (each rank's starts shifted to global rows, then the level's end), one rank holding all.
DistributedLevel whole_level(const DistributedLevel& level) {
  DistributedLevel whole;
  whole.a = gather_rows(a_of(level));
  whole.partition.offsets = {0, level.partition.rows()};
  whole.partition.chunk = level.partition.chunk;
  const int ranks = world_size(), rank = world_rank();
  std::vector<std::int64_t> starts;  // this rank's chunk starts (its last entry is its end, the next rank's start)
  for (std::size_t c = 0; c + 1 < level.chunk_begin.size(); ++c) starts.push_back(level.partition.begin(rank) + level.chunk_begin[c]);
  const int mine = int(starts.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks), 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, world);
  std::int64_t total = 0;
  for (int c : counts) total += c;
  whole.chunk_begin.resize(std::size_t(total));
  MPI_Allgatherv(starts.data(), mine, MPI_INT64_T, whole.chunk_begin.data(), counts.data(),
                 clcg::distributed::offsets_of(counts).data(), MPI_INT64_T, world);
  whole.chunk_begin.push_back(level.partition.rows());
  return whole;
}

// This process's device alone, for a level gathered whole (made once: its kernels build once).

// Block size 1, or nodes of rows: 3 on the 3D grid (693 rows), 2 on the irregular matrix (the
// 2D grid's 1073 rows are prime to both).
enum class Nodes { rows, blocks };
int block_of(Problem problem, Nodes nodes) {
  if (nodes == Nodes::rows) return 1;
  return problem == Problem::poisson3d ? 3 : problem == Problem::irregular ? 2 : 1;
}

class DistributedHierarchyTest : public ::testing::TestWithParam<std::tuple<Problem, Cuts, Nodes>> {};

// Level by level: the gathered A, P and R against the host reference's steps on the gathered
// finer A, with the distributed level's own rho estimate for P's weight (the estimate itself is
// checked against one process's on the whole level); then the gathered coarsest.
TEST_P(DistributedHierarchyTest, EqualsTheHostReferenceBitForBit) {
  const auto [problem, cuts, nodes] = GetParam();
  const int block_size = block_of(problem, nodes);
  const int ranks = world_size(), rank = world_rank();
  const std::int64_t n = problem_rows(problem);
  const Partition partition = cuts == Cuts::uniform ? clcg::distributed::uniform_partition(n, ranks, block_size)
                                                    : uneven_partition(n, ranks, block_size);
  const LocalRows a = problem_rows(problem, partition.begin(rank), partition.begin(rank) + partition.size(rank));
  clcg::solver::AmgOptions options;
  options.coarse_rows = 20;  // at least three levels from a few hundred rows
  options.gather_rows = 0;   // gather only where coarsening stops (the last level is then below amg_coarse_factor_limit)
  options.block_size = unsigned(block_size);
  const DistributedHierarchy h = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
  const std::size_t levels = h.levels.size();
  ASSERT_GE(levels, 3u);
  EXPECT_TRUE(h.gathered);

  HostCsr fine = to_csr(gather_rows(a), n);
  int block = block_size, k = block_size;  // one constant a component
  std::vector<double> candidates(std::size_t(n) * std::size_t(k), 0.0);
  for (std::int64_t i = 0; i < n; ++i) candidates[std::size_t(i) * std::size_t(k) + std::size_t(i % k)] = 1.0;
  std::size_t reference_levels = 1;
  for (std::size_t l = 0;; ++l) {
    const DistributedLevel& level = h.levels[l];
    const std::string what = "level " + std::to_string(l);
    EXPECT_EQ(level.partition.rows(), fine.rows) << what;
    // rho(D^-1 A) as one process estimates it on the whole level, with the same chunks.
    const DistributedLevel whole = whole_level(level);
    const bool coarsened = l + 1 < levels;
    if (coarsened || !h.gathered) {
      const double alone = level_radius_alone(whole, 10);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(level.radius), std::bit_cast<std::uint64_t>(alone))
          << what << ": " << level.radius << " on " << ranks << " ranks, " << alone << " whole";
      if (problem != Problem::irregular) {
        EXPECT_GE(level.radius, 1.0) << what;
        EXPECT_LE(level.radius, 2.5) << what;
      }
    } else {
      EXPECT_EQ(level.radius, 0.0) << what << " (gathered)";
    }
    expect_same(to_csr(whole.a, fine.rows), fine, what + " A");

    // The reference's next step (amg.cpp's host set-up: aggregates of rows or of nodes).
    if (!(std::size_t(fine.rows) > clcg::solver::amg_largest_coarsest(std::size_t(n), l > 0, options) &&
          reference_levels < options.max_levels))
      break;
    const HostCsr node_graph = block == 1 ? HostCsr() : clcg::solver::node_matrix(fine, block);
    const HostCsr& graph = block == 1 ? fine : node_graph;
    const std::vector<char> strong = clcg::solver::strong_connections(graph, options.strength);
    const clcg::solver::Aggregates g = clcg::solver::aggregate(graph, strong);
    if (g.count == 0 || double(g.count) * k > 0.8 * double(fine.rows)) break;
    ++reference_levels;
    ASSERT_TRUE(coarsened) << what << ": the reference coarsens it, the distributed set-up does not";
    std::vector<double> coarse_candidates;
    const HostCsr tentative = clcg::solver::tentative_prolongator(g, block, candidates, k, coarse_candidates);
    block = k;
    candidates = std::move(coarse_candidates);
    const HostCsr p = clcg::solver::smoothed_prolongator(fine, tentative, clcg::solver::prolongator_weight(level.radius));
    const HostCsr r = clcg::solver::transpose(p);
    expect_same(to_csr(gather_rows(p_of(level)), g.count * k), p, what + " P");
    expect_same(to_csr(gather_rows(r_of(level)), fine.rows), r, what + " R");
    fine = clcg::solver::multiply(r, clcg::solver::multiply(fine, p));
  }
  EXPECT_EQ(reference_levels, levels);
  if (h.gathered) {
    // The coarsest as the one-device AMG gets it (no empty rows with the constant candidate: unchanged).
    HostCsr coarsest = fine;
    clcg::solver::unit_diagonal_on_empty_rows(coarsest);
    expect_same(h.whole, coarsest, "the gathered coarsest");
  }
}

// Every problem with every cut, by rows and (where a block size divides its rows) by nodes.
std::vector<std::tuple<Problem, Cuts, Nodes>> problem_cases() {
  std::vector<std::tuple<Problem, Cuts, Nodes>> out;
  for (Problem problem : {Problem::poisson2d, Problem::poisson3d, Problem::irregular})
    for (Cuts cuts : {Cuts::uniform, Cuts::uneven})
      for (Nodes nodes : {Nodes::rows, Nodes::blocks})
        if (nodes == Nodes::rows || block_of(problem, nodes) > 1) out.emplace_back(problem, cuts, nodes);
  return out;
}

std::string problem_name(const ::testing::TestParamInfo<std::tuple<Problem, Cuts, Nodes>>& info) {
  const auto [problem, cuts, nodes] = info.param;
  const char* names[] = {"poisson2d_37x29", "poisson3d_11x9x7", "irregular_500"};
  return std::string(names[int(problem)]) + (cuts == Cuts::uniform ? "_uniform" : "_uneven") +
         (nodes == Nodes::rows ? "" : "_blocks");
}

INSTANTIATE_TEST_SUITE_P(Problems, DistributedHierarchyTest,
                         ::testing::ValuesIn(problem_cases()),
                         problem_name);

// A last level too large to gather (max_levels 1, 2250 rows > amg_coarse_factor_limit, gather_rows 0) gets its
// estimate on the ranks, the same as one process's on the whole level, in the levels' precision: in
// float (half the bytes a pass) within 1e-4 of the double's (ten steps of sums over 2250 rows, each
// value rounded to float's 6e-8).
TEST(DistributedHierarchy, UngatheredLastLevelGetsThePartitionFreeEstimate) {
  using clcg::solver::ElementType;
  const int ranks = world_size(), rank = world_rank();
  const std::int64_t n = 50 * 45;
  for (Cuts cuts : {Cuts::uniform, Cuts::uneven}) {
    const Partition partition = cuts == Cuts::uniform ? clcg::distributed::uniform_partition(n, ranks)
                                                      : uneven_partition(n, ranks);
    const LocalRows a =
        clcg::distributed::poisson_rows(2, 50, 45, 1, partition.begin(rank), partition.begin(rank) + partition.size(rank));
    clcg::solver::AmgOptions options;
    options.max_levels = 1;
    options.gather_rows = 0;  // the default would gather 2250 rows
    double estimate[2] = {};
    for (ElementType type : {ElementType::f64, ElementType::f32}) {
      const DistributedHierarchy h =
          clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options, {}, type);
      ASSERT_EQ(h.levels.size(), 1u);
      EXPECT_FALSE(h.gathered);
      const double alone = level_radius_alone(whole_level(h.levels[0]), 10, type);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(h.levels[0].radius), std::bit_cast<std::uint64_t>(alone))
          << h.levels[0].radius << " on " << ranks << " ranks, " << alone << " whole, "
          << (type == ElementType::f32 ? "float" : "double");
      EXPECT_GE(alone, 1.0);
      EXPECT_LE(alone, 2.5);
      estimate[type == ElementType::f32] = h.levels[0].radius;
    }
    EXPECT_NEAR(estimate[1], estimate[0], 1e-4 * estimate[0]);
    EXPECT_NE(estimate[1], estimate[0]) << "the float estimate has the double's bits: not computed in float";
  }
}

// A level of few rows but long ones (more than 32 entries a row: the cube of a 3D Laplacian, up
// to 63) is set up on the ranks rather than gathered: gathering moves every entry through every
// rank's host. With the default gather size the same matrix goes whole at once.
TEST(DistributedHierarchy, ALevelOfLongRowsIsCoarsenedRatherThanGathered) {
  const int ranks = world_size(), rank = world_rank();
  const std::int64_t n = 12 * 12 * 12;
  const HostCsr laplacian = to_csr(clcg::distributed::poisson_rows(3, 12, 12, 12, 0, n), n);
  const HostCsr cube = clcg::solver::multiply(clcg::solver::multiply(laplacian, laplacian), laplacian);
  ASSERT_GT(cube.values.size(), 32 * std::size_t(n));
  const Partition partition = clcg::distributed::uniform_partition(n, ranks);
  const LocalRows a = rows_of(cube, partition.begin(rank), partition.begin(rank) + partition.size(rank));
  clcg::solver::AmgOptions options;
  const DistributedHierarchy whole = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
  EXPECT_EQ(whole.levels.size(), 1u);
  EXPECT_TRUE(whole.gathered);
  options.gather_rows = std::size_t(n);  // as many rows as A, fewer than a 32nd of its entries
  const DistributedHierarchy coarsened =
      clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
  ASSERT_GE(coarsened.levels.size(), 2u);
  EXPECT_TRUE(coarsened.gathered);
  EXPECT_LT(coarsened.whole.rows, std::int32_t(n));
}

// A random sparse m x n matrix (rows of 0 to `most` entries, some empty), raw mt19937 words.
HostCsr random_csr(std::int32_t m, std::int32_t n, int most, std::uint32_t seed) {
  std::mt19937 random(seed);
  HostCsr a;
  a.rows = m;
  a.cols = n;
  for (std::int32_t i = 0; i < m; ++i) {
    std::map<std::int32_t, double> row;
    const int entries = int(random() % std::uint32_t(most + 1));
    for (int e = 0; e < entries; ++e)
      row[std::int32_t(random() % std::uint32_t(n))] = double(std::int32_t(random() >> 4) - (1 << 27)) / 3e7;
    for (const auto& [j, v] : row) a.col_idx.push_back(j), a.values.push_back(v);
    a.row_ptr.push_back(a.nnz());
  }
  return a;
}

// Cuts of `rows` over the ranks with no chunk rule (the row movers do not need one): uneven,
// the second rank empty where there are three or more.
Partition rough_partition(std::int64_t rows, int ranks) {
  Partition p;
  p.offsets.assign(std::size_t(ranks) + 1, rows);
  p.offsets[0] = 0;
  for (int r = 1; r < ranks; ++r)
    p.offsets[std::size_t(r)] = r == 2 ? p.offsets[1] : std::min(rows, rows * r * r / (ranks * ranks) + 3);
  return p;
}

// E (A B) with A B kept on the devices (RankSetup::multiply_kept) and its rows E's columns name
// off this rank fetched from their owners' devices, against multiply() on the whole matrices.
void expect_kept_product(clcg::distributed::RankSetup& device, const HostCsr& a, const HostCsr& b,
                         const Partition& pa, const Partition& pb, const LocalRows& a_mine, const LocalRows& b_mine,
                         const clcg::distributed::RemoteRows& remote, const std::string& what) {
  const int rank = world_rank();
  const HostCsr e = random_csr(20, a.rows, 9, 11);
  const Partition pe = rough_partition(e.rows, world_size());
  const LocalRows e_mine = rows_of(e, pe.begin(rank), pe.begin(rank) + pe.size(rank));
  clcg::distributed::RankSetup::KeptRows ab = device.multiply_kept(device.upload(a_mine, pb), b_mine, remote, b.cols, "A B");
  const std::vector<std::int64_t> wanted = clcg::distributed::foreign_columns(e_mine, pa, rank);
  const HostCsr whole_ab = clcg::solver::multiply(a, b);
  {  // each fetched row as the whole product's, streamed from its owner's device
    const clcg::distributed::RemoteRows got = device.download(device.fetch_rows(pa, ab, wanted));
    EXPECT_EQ(got.ids, wanted);
    ASSERT_EQ(got.row_ptr.size(), wanted.size() + 1);
    for (std::size_t r = 0; r < wanted.size(); ++r) {
      const std::size_t i = std::size_t(wanted[r]);
      const auto at = [&](std::int64_t k) { return std::size_t(k); };
      EXPECT_EQ(std::vector<std::int64_t>(got.col.begin() + got.row_ptr[r], got.col.begin() + got.row_ptr[r + 1]),
                std::vector<std::int64_t>(whole_ab.col_idx.begin() + at(whole_ab.row_ptr[i]), whole_ab.col_idx.begin() + at(whole_ab.row_ptr[i + 1])))
          << what << ": row " << i << " of A B on rank " << rank;
      EXPECT_EQ(std::vector<double>(got.values.begin() + got.row_ptr[r], got.values.begin() + got.row_ptr[r + 1]),
                std::vector<double>(whole_ab.values.begin() + at(whole_ab.row_ptr[i]), whole_ab.values.begin() + at(whole_ab.row_ptr[i + 1])))
          << what << ": row " << i << " of A B on rank " << rank;
    }
  }
  clcg::distributed::KeptRemoteRows ab_remote = device.fetch_rows(pa, ab, wanted);
  // (A B)^T from the kept rows (and the entries other ranks own copied out there).
  const LocalRows t = device.download(device.transpose(ab, pa, rough_partition(b.cols, world_size())));
  expect_same(to_csr(gather_rows(t), a.rows), clcg::solver::transpose(whole_ab), what + ": (A B)^T");
  // E (A B) kept, then given local columns under a partition of its columns (localised), back
  // with global ones.
  const Partition columns = rough_partition(b.cols, world_size());
  const clcg::distributed::RankSetup::Rows eab_here = device.localised(
      device.multiply_kept(device.upload(e_mine, pa), std::move(ab), std::move(ab_remote), b.cols, "E (A B)"), columns);
  EXPECT_EQ(eab_here.owned, columns.size(rank));
  EXPECT_EQ(eab_here.matrix.cols(), columns.size(rank) + eab_here.halo.ghosts);
  const LocalRows eab = device.download(eab_here);
  expect_same(to_csr(gather_rows(eab), b.cols), clcg::solver::multiply(e, whole_ab), what);
}

// A (45 x 70) and B (70 x 33) of the row movers' tests, random, spread unevenly over the ranks,
// this rank's rows of each, and B's rows A's columns name off this rank as their owners hold them.
struct RowMoverMatrices {
  int ranks = world_size(), rank = world_rank();
  HostCsr a = random_csr(45, 70, 12, 7), b = random_csr(70, 33, 6, 8);
  Partition pa = rough_partition(a.rows, ranks), pb = rough_partition(b.rows, ranks);
  LocalRows a_mine = rows_of(a, pa.begin(rank), pa.begin(rank) + pa.size(rank));
  LocalRows b_mine = rows_of(b, pb.begin(rank), pb.begin(rank) + pb.size(rank));
  std::vector<std::int64_t> wanted = clcg::distributed::foreign_columns(a_mine, pb, rank);
  clcg::distributed::RemoteRows remote = clcg::distributed::fetch_rows(world, pb, b_mine, wanted);
};

// The rows a distributed level computes while its halo's exchange runs: the longest run of whole
// chunks (the last one short) with no row reading a ghost, against a brute-force search of
// every run on the host; rows reading ghosts at chosen places, none, all; n = 0 and 1.
TEST(InteriorRows, LongestRunOfChunksReadingNoGhostEqualsABruteForceSearch) {
  const auto& env = clcg::test::test_env();
  const std::size_t chunk = clcg::distributed::interior_chunk_rows;
  std::mt19937_64 random(17);
  struct Case {
    std::int32_t rows;
    double ghost_share;  // of the rows reading a ghost besides the chosen ones
    std::vector<std::int32_t> chosen;
  };
  for (const Case& c : {Case{0, 0, {}}, Case{1, 0, {}}, Case{1, 0, {0}}, Case{2000, 0, {5, 700, 1950}},
                        Case{2000, 0, {}}, Case{3001, 0, {3000}}, Case{3001, 0, {0}}, Case{3001, 0.002, {}},
                        Case{3001, 1, {}}, Case{700, 0, {300}}}) {
    SCOPED_TRACE(std::to_string(c.rows) + " rows, ghosts at " + std::to_string(c.chosen.size()) + " chosen rows");
    const std::int32_t owned = c.rows + 3, ghosts = 40;
    clcg::solver::HostCsr a;
    a.rows = c.rows;
    a.cols = owned + ghosts;
    std::vector<bool> reads_ghost(std::size_t(c.rows), false);
    std::uniform_real_distribution<double> unit(0, 1);
    for (std::int32_t i = 0; i < c.rows; ++i) {
      reads_ghost[std::size_t(i)] = unit(random) < c.ghost_share ||
                                     std::find(c.chosen.begin(), c.chosen.end(), i) != c.chosen.end();
      a.col_idx.push_back(i);  // (its own column, then maybe one ghost, then an owned one past the rows)
      if (reads_ghost[std::size_t(i)]) a.col_idx.push_back(owned + std::int32_t(random() % ghosts));
      a.col_idx.push_back(owned - 1);
      a.row_ptr.push_back(std::int32_t(a.col_idx.size()));
    }
    a.values.assign(a.col_idx.size(), 1.0);
    const clcg::solver::DeviceCsrMatrix m(env, a, clcg::solver::ElementType::f64);
    const clcg::solver::RowRange got = clcg::distributed::rows_reading_no_ghost(env, m, owned);
    // Every run of chunks [first, end) with no ghost read in its rows; the first longest kept.
    const std::size_t n = std::size_t(c.rows), chunks = (n + chunk - 1) / chunk;
    std::size_t want_first = 0, want_end = 0;
    for (std::size_t first = 0; first < chunks; ++first)
      for (std::size_t end = first + 1; end <= chunks; ++end) {
        const std::size_t row_end = std::min(n, end * chunk);
        if (std::any_of(reads_ghost.begin() + std::ptrdiff_t(first * chunk), reads_ghost.begin() + std::ptrdiff_t(row_end),
                        [](bool g) { return g; }))
          break;
        if (row_end - first * chunk > want_end - want_first) want_first = first * chunk, want_end = row_end;
      }
    EXPECT_EQ(got.first, want_first);
    EXPECT_EQ(got.end, want_end);
    for (std::size_t i = got.first; i < got.end; ++i) ASSERT_FALSE(reads_ghost[i]) << "row " << i;
  }
}

// fetch_rows and RankSetup's products and transposes on rectangular matrices (A 45 x 70, B 70 x 33),
// spread unevenly, against the whole rows, transpose() and multiply().
TEST(RemoteRows, FetchTransposeAndMultiplyEqualTheHostReference) {
  const RowMoverMatrices m;
  const int rank = m.rank;
  const auto& [a, b, pa, pb, a_mine, b_mine, wanted, remote] = std::tie(m.a, m.b, m.pa, m.pb, m.a_mine, m.b_mine, m.wanted, m.remote);
  EXPECT_EQ(remote.ids, wanted);
  EXPECT_EQ(remote.row_ptr.size(), wanted.size() + 1);
  if (remote.row_ptr.size() == wanted.size() + 1)
    for (std::size_t r = 0; r < wanted.size(); ++r) {
      const std::int32_t i = std::int32_t(wanted[r]);
      const std::vector<std::int64_t> want_cols(b.col_idx.begin() + b.row_ptr[std::size_t(i)],
                                                b.col_idx.begin() + b.row_ptr[std::size_t(i) + 1]);
      const std::vector<double> want_values(b.values.begin() + b.row_ptr[std::size_t(i)],
                                            b.values.begin() + b.row_ptr[std::size_t(i) + 1]);
      EXPECT_EQ(std::vector<std::int64_t>(remote.col.begin() + remote.row_ptr[r], remote.col.begin() + remote.row_ptr[r + 1]),
                want_cols) << "row " << i << " on rank " << rank;
      EXPECT_EQ(std::vector<double>(remote.values.begin() + remote.row_ptr[r], remote.values.begin() + remote.row_ptr[r + 1]),
                want_values) << "row " << i << " on rank " << rank;
    }

  clcg::distributed::RankSetup device(world, clcg::test::test_env());
  // A's upload finds its ghosts on the device: the host's scan's, and the halo built from them.
  const clcg::distributed::RankSetup::Rows a_here = device.upload(a_mine, pb);
  EXPECT_EQ(a_here.halo.ghost_ids, wanted) << "rank " << rank;
  EXPECT_EQ(a_here.matrix.cols(), pb.size(rank) + std::int64_t(wanted.size()));
  expect_same(to_csr(gather_rows(device.download(a_here)), a.cols), a, "A uploaded and back");
  const LocalRows c = device.download(device.multiply_kept(a_here, b_mine, remote, b.cols, "A B"));
  expect_same(to_csr(gather_rows(c), b.cols), clcg::solver::multiply(a, b), "A B");
  expect_kept_product(device, a, b, pa, pb, a_mine, b_mine, remote, "E (A B), A B kept");
}

// B's owned rows from a kept product with 32-bit offsets, its fetched rows taking B past them:
// the kept offsets are widened on the device. Each rank sets its own threshold at its kept
// product's size (every rank with fetched rows takes that path).
TEST(RemoteRows, KeptRowsWithNarrowOffsetsFillAWideB) {
  const RowMoverMatrices m;
  const int rank = m.rank;
  const auto& [a, b, pa, pb, a_mine, b_mine, remote] = std::tie(m.a, m.b, m.pa, m.pb, m.a_mine, m.b_mine, m.remote);
  const HostCsr e = random_csr(20, 45, 9, 11);
  const Partition pe = rough_partition(e.rows, m.ranks);
  const LocalRows e_mine = rows_of(e, pe.begin(rank), pe.begin(rank) + pe.size(rank));
  std::int64_t ab_entries = 0;
  {
    clcg::distributed::RankSetup probe(world, clcg::test::test_env());
    ab_entries = probe.multiply_kept(probe.upload(a_mine, pb), b_mine, remote, b.cols, "A B").matrix.nnz();
  }
  clcg::distributed::RankSetup device(world, clcg::test::test_env(), std::size_t(64) << 10, std::uint64_t(ab_entries));
  clcg::distributed::RankSetup::KeptRows ab = device.multiply_kept(device.upload(a_mine, pb), b_mine, remote, b.cols, "A B");
  EXPECT_EQ(ab.matrix.offsets(), clcg::solver::RowOffsets::narrow);
  clcg::distributed::KeptRemoteRows ab_remote =
      device.fetch_rows(pa, ab, clcg::distributed::foreign_columns(e_mine, pa, rank));
  const LocalRows eab = device.download(
      device.multiply_kept(device.upload(e_mine, pa), std::move(ab), std::move(ab_remote), b.cols, "E (A B)"));
  expect_same(to_csr(gather_rows(eab), b.cols), clcg::solver::multiply(e, clcg::solver::multiply(a, b)),
              "E (A B), B past the kept rows' 32-bit offsets");
}

// A kept product with 64-bit offsets (every product wide past 0 entries) given local columns:
// its offsets narrowed on the device for the solve's 32-bit ones.
TEST(RemoteRows, WideKeptRowsLocalisedEqualTheHostReference) {
  const RowMoverMatrices m;
  const auto& [a, b, pb, a_mine, b_mine, remote] = std::tie(m.a, m.b, m.pb, m.a_mine, m.b_mine, m.remote);
  const int ranks = m.ranks;
  clcg::distributed::RankSetup device(world, clcg::test::test_env(), std::size_t(64) << 10, 0);
  clcg::distributed::RankSetup::KeptRows ab = device.multiply_kept(device.upload(a_mine, pb), b_mine, remote, b.cols, "A B");
  if (ab.matrix.nnz() > 0) {
    EXPECT_EQ(ab.matrix.offsets(), clcg::solver::RowOffsets::wide);
  }
  const Partition columns = rough_partition(b.cols, ranks);
  const clcg::distributed::RankSetup::Rows ab_here = device.localised(std::move(ab), columns);
  EXPECT_EQ(ab_here.matrix.offsets(), clcg::solver::RowOffsets::narrow);
  expect_same(to_csr(gather_rows(device.download(ab_here)), b.cols), clcg::solver::multiply(a, b),
              "A B kept with 64-bit offsets, localised");
}

// A row naming a column 2^31 or more from its rank's first is refused (the upload numbers a
// rank's columns in 32 bits from it), before anything is asked of the device's memory for it.
TEST(RemoteRows, UploadRefusesColumnsPast32BitsFromTheRanksFirst) {
  LocalRows far;
  far.global_rows = std::int64_t(3) << 30;
  far.row_ptr = {0, 2, 3};
  far.col = {0, (std::int64_t(1) << 31) + 5, 1};
  far.values = {2.0, -1.0, 2.0};
  Partition columns;
  columns.offsets = {0, 1000};  // (this rank's columns; the far one is past them)
  try {
    self_device().upload(far, columns);
    ADD_FAILURE() << "a column 2^31 past the rank's first was uploaded";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("2^31"), std::string::npos) << e.what();
  }
  far.col[1] = 999;  // the same rows, near: uploaded
  EXPECT_EQ(self_device().download(self_device().upload(far, columns)).col, far.col);
}

// Rows whose entries are made as they are uploaded (a generator's) reach the device as the same
// rows made on the host first, made either way: by the device from the stencil (LocalRows::
// stencil; 3D and 2D, grids of odd sizes cut anywhere) or by the host's threads
// (LocalRows::make_entries: many pinned halves of a few thousand rows, each made by several
// threads); a far column and a row longer than a half refused.
TEST(RemoteRows, PendingEntriesUploadAsMadeOnes) {
  const int ranks = world_size(), rank = world_rank();
  const clcg::test::ThreadsVariable threads("3");
  // halves of 1 MiB: 87,381 entries, ~12,500 rows (4 blocks of 4,096 rows for the threads)
  clcg::distributed::RankSetup device(world, clcg::test::test_env(), std::size_t(1) << 20);
  for (const auto& [dimensions, nx, ny, nz] : {std::tuple<int, std::int64_t, std::int64_t, std::int64_t>{3, 41, 40, 39},
                                                std::tuple<int, std::int64_t, std::int64_t, std::int64_t>{2, 203, 197, 1}}) {
    const Partition p = clcg::distributed::uniform_partition(nx * ny * nz, ranks);
    const std::int64_t begin = p.begin(rank), end = begin + p.size(rank);
    const LocalRows made = clcg::distributed::poisson_rows(dimensions, nx, ny, nz, begin, end);
    const LocalRows pending = clcg::distributed::poisson_rows(dimensions, nx, ny, nz, begin, end, nullptr, true);
    ASSERT_TRUE(pending.entries_pending());
    ASSERT_TRUE(pending.stencil.has_value());
    LocalRows by_host = pending;  // the same rows with no stencil: made by the host's threads
    by_host.stencil.reset();
    for (const LocalRows* rows : std::initializer_list<const LocalRows*>{&pending, &by_host, &made}) {
      const char* how = rows == &pending ? "the device" : rows == &by_host ? "the host's threads" : "made first";
      const clcg::distributed::RankSetup::Rows up = device.upload(*rows, p);
      // (the longest row sets the ELL width of the level's layout on a GPU)
      EXPECT_EQ(up.matrix.max_row_length(), clcg::distributed::longest_row(made.row_ptr)) << how;
      const LocalRows back = device.download(up);
      EXPECT_EQ(back.row_ptr, made.row_ptr) << dimensions << "D, entries by " << how;
      EXPECT_EQ(back.col, made.col) << dimensions << "D, entries by " << how;
      EXPECT_EQ(back.values, made.values) << dimensions << "D, entries by " << how;
    }
  }

  LocalRows far;  // one row, its second column 2^31 past the rank's first
  far.global_rows = std::int64_t(3) << 30;
  far.row_ptr = {0, 2};
  far.make_entries = [](std::size_t, std::size_t, std::int64_t base, std::int32_t* col, double* values) {
    const std::int64_t d = (std::int64_t(1) << 31) + 5 - base;  // (base 0: past 32 bits)
    col[0] = std::int32_t(0 - base), col[1] = std::int32_t(d);
    values[0] = 2.0, values[1] = -1.0;
    return d == std::int32_t(d);
  };
  Partition columns;
  columns.offsets = {0, 1000};
  EXPECT_THROW((void)self_device().upload(far, columns), std::length_error);
  LocalRows wide;  // one row of 100 entries, for halves of 64 entries
  wide.global_rows = 1000;
  wide.row_ptr = {0, 100};
  wide.make_entries = [](std::size_t, std::size_t, std::int64_t base, std::int32_t* col, double* values) {
    for (int k = 0; k < 100; ++k) col[k] = std::int32_t(k - base), values[k] = 1.0;
    return true;
  };
  clcg::distributed::RankSetup small(MPI_COMM_SELF, clcg::test::test_env(), 64 * 12);
  try {
    (void)small.upload(wide, columns);
    ADD_FAILURE() << "a row longer than a pinned half was uploaded";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("more entries"), std::string::npos) << e.what();
  }
}

// The same on several host threads (CLCG_THREADS 3 here; the hierarchy tests' rows are too few
// for a second thread): rows of the product and of the transpose made and joined by ranges.
TEST(RemoteRows, SeveralThreadsGiveTheSameBits) {
  const int ranks = world_size(), rank = world_rank();
  const char* before = std::getenv("CLCG_THREADS");
  const std::string kept = before ? before : "";
  setenv("CLCG_THREADS", "3", 1);
  const HostCsr a = random_csr(60000, 70000, 9, 17), b = random_csr(70000, 500, 4, 18);
  const Partition pa = rough_partition(a.rows, ranks), pb = rough_partition(b.rows, ranks);
  const LocalRows a_mine = rows_of(a, pa.begin(rank), pa.begin(rank) + pa.size(rank));
  const LocalRows b_mine = rows_of(b, pb.begin(rank), pb.begin(rank) + pb.size(rank));
  const std::vector<std::int64_t> wanted = clcg::distributed::foreign_columns(a_mine, pb, rank);
  const clcg::distributed::RemoteRows remote = clcg::distributed::fetch_rows(world, pb, b_mine, wanted);
  // Through pinned halves of 64 KiB: B (megabytes) goes to the device and C comes back in many chunks.
  clcg::distributed::RankSetup device(world, clcg::test::test_env(), std::size_t(64) << 10);
  const LocalRows c = device.download(device.multiply_kept(device.upload(a_mine, pb), b_mine, remote, b.cols, "A B"));
  expect_same(to_csr(gather_rows(c), b.cols), clcg::solver::multiply(a, b), "A B on three threads, in chunks");
  // And with 64-bit row offsets for B and C (a test-only threshold of 1,000 nonzeros: both pass it).
  clcg::distributed::RankSetup wide(world, clcg::test::test_env(), std::size_t(64) << 10, 1000);
  const LocalRows c_wide = wide.download(wide.multiply_kept(wide.upload(a_mine, pb), b_mine, remote, b.cols, "A B"));
  expect_same(to_csr(gather_rows(c_wide), b.cols), clcg::solver::multiply(a, b), "A B with 64-bit offsets");
  expect_kept_product(wide, a, b, pa, pb, a_mine, b_mine, remote, "E (A B), A B kept, 64-bit offsets");
  if (before)
    setenv("CLCG_THREADS", kept.c_str(), 1);
  else
    unsetenv("CLCG_THREADS");
}

// P = P_tent - omega D^-1 A P_tent on the devices (RankSetup::smoothed) against the host
// reference's smoothed_prolongator() on the whole matrices: the irregular matrix and a tentative
// prolongator of two candidates (two entries a row, in consecutive columns), spread unevenly;
// and with 64-bit row offsets for P_tent's rows (a test-only threshold).
TEST(RemoteRows, SmoothedProlongatorEqualsTheHostReference) {
  const int ranks = world_size(), rank = world_rank();
  const HostCsr a = irregular_spd(500, 7);
  const std::vector<char> strong = clcg::solver::strong_connections(a, 0.08);
  const clcg::solver::Aggregates g = clcg::solver::aggregate(a, strong);
  std::vector<double> candidates(std::size_t(a.rows) * 2), coarse;
  for (std::size_t i = 0; i < std::size_t(a.rows); ++i) candidates[2 * i] = 1.0, candidates[2 * i + 1] = double(i % 7) - 3.0;
  const HostCsr tentative = clcg::solver::tentative_prolongator(g, 1, candidates, 2, coarse);
  const double omega = 0.61;
  const HostCsr reference = clcg::solver::smoothed_prolongator(a, tentative, omega);
  const Partition pa = rough_partition(a.rows, ranks);
  const LocalRows a_mine = rows_of(a, pa.begin(rank), pa.begin(rank) + pa.size(rank));
  const LocalRows t_mine = rows_of(tentative, pa.begin(rank), pa.begin(rank) + pa.size(rank));
  HostCsr identity;
  identity.rows = identity.cols = a.rows;
  for (std::int32_t i = 0; i < a.rows; ++i) identity.col_idx.push_back(i), identity.values.push_back(1.0), identity.row_ptr.push_back(i + 1);
  const LocalRows identity_mine = rows_of(identity, pa.begin(rank), pa.begin(rank) + pa.size(rank));
  const std::vector<std::int64_t> wanted_by_i;  // (I names no other rank's rows)
  for (const std::uint64_t wide_from : {std::uint64_t(clcg::solver::max_csr_index), std::uint64_t(100)}) {
    clcg::distributed::RankSetup device(world, clcg::test::test_env(), std::size_t(64) << 10, wide_from);
    const clcg::distributed::RankSetup::Rows a_here = device.upload(a_mine, pa);
    // P_tent kept on the device: I P_tent.
    const clcg::distributed::RankSetup::KeptRows t_here = device.multiply_kept(
        device.upload(identity_mine, pa), t_mine, clcg::distributed::fetch_rows(world, pa, t_mine, wanted_by_i),
        tentative.cols, "I P_tent");
    const clcg::distributed::RemoteRows by_ids = device.download(device.fetch_rows(pa, t_here, a_here.halo.ghost_ids));
    // The same rows fetched as the halo's ghosts (the owners answer their send lists; no ids sent).
    const clcg::distributed::RemoteRows by_halo = device.download(device.fetch_rows(pa, t_here, a_here.halo));
    EXPECT_EQ(by_halo.ids, by_ids.ids);
    EXPECT_EQ(by_halo.row_ptr, by_ids.row_ptr);
    EXPECT_EQ(by_halo.col, by_ids.col);
    EXPECT_EQ(by_halo.values, by_ids.values);
    clcg::distributed::KeptRemoteRows remote = device.fetch_rows(pa, t_here, a_here.halo);
    const LocalRows p =
        device.download(device.smoothed(a_here, t_here, std::move(remote), tentative.cols, device.diagonal(a_here), omega));
    expect_same(to_csr(gather_rows(p), tentative.cols), reference, "P, 64-bit offsets from " + std::to_string(wide_from));
  }
}

// This rank's rows of the 2D Laplacian on side x side, as `partition` spreads them.
LocalRows square_grid_rows(std::int64_t side, const Partition& partition, int rank) {
  return clcg::distributed::poisson_rows(2, side, side, 1, partition.begin(rank), partition.begin(rank) + partition.size(rank));
}

// Every level of `got` as `want`'s, bit for bit: the partitions, the estimates, A, P and R.
void expect_same_levels(const DistributedHierarchy& got, const DistributedHierarchy& want, const std::string& which) {
  ASSERT_EQ(got.levels.size(), want.levels.size()) << which;
  for (std::size_t l = 0; l < want.levels.size(); ++l) {
    const std::string level = which + "level " + std::to_string(l);
    const std::int64_t rows = want.levels[l].partition.rows();
    EXPECT_EQ(got.levels[l].partition.offsets, want.levels[l].partition.offsets) << level;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got.levels[l].radius), std::bit_cast<std::uint64_t>(want.levels[l].radius)) << level;
    expect_same(to_csr(gather_rows(a_of(got.levels[l])), rows), to_csr(gather_rows(a_of(want.levels[l])), rows), level + " A");
    if (l + 1 == want.levels.size()) continue;
    const std::int64_t coarse = want.levels[l + 1].partition.rows();
    expect_same(to_csr(gather_rows(p_of(got.levels[l])), coarse), to_csr(gather_rows(p_of(want.levels[l])), coarse), level + " P");
    expect_same(to_csr(gather_rows(r_of(got.levels[l])), rows), to_csr(gather_rows(r_of(want.levels[l])), rows), level + " R");
  }
}

// The 2D Laplacian on 61 x 61 spread evenly, coarsened to 40 rows with no level gathered: a few
// distributed levels, small enough to set up several times in a test.
struct SmallGrid {
  Partition partition = clcg::distributed::uniform_partition(61 * 61, world_size());
  LocalRows a = square_grid_rows(61, partition, world_rank());
  clcg::solver::AmgOptions options = [] {
    clcg::solver::AmgOptions o;
    o.gather_rows = 0;
    o.coarse_rows = 40;
    return o;
  }();
};

// The whole set-up on one thread and on three (a 2D grid of 90,000 rows: passes of several
// threads' ranges in the strength, the independent set, the seeds' numbering, the tentative
// prolongator's placement and the products' copies) gives the same levels, bit for bit.
TEST(DistributedHierarchy, SeveralThreadsGiveTheSameLevels) {
  const int ranks = world_size(), rank = world_rank();
  const char* before = std::getenv("CLCG_THREADS");
  const std::string kept = before ? before : "";
  const Partition partition = clcg::distributed::uniform_partition(300 * 300, ranks);
  const LocalRows a = square_grid_rows(300, partition, rank);
  clcg::solver::AmgOptions options;
  options.gather_rows = 0;
  const auto built = [&](const char* threads) {
    setenv("CLCG_THREADS", threads, 1);
    return clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
  };
  const DistributedHierarchy one = built("1"), three = built("3");
  if (before)
    setenv("CLCG_THREADS", kept.c_str(), 1);
  else
    unsetenv("CLCG_THREADS");
  ASSERT_GE(one.levels.size(), 3u);
  expect_same_levels(three, one, "");
}

// One constant a component given as the near-null space (the tentative prolongator's QR through
// the transpose) and not given (RankSetup::constant_tentative: the factors from the aggregates'
// sizes): the same levels, bit for bit, of rows and of nodes of two (uneven cuts on three ranks
// and more).
TEST(DistributedHierarchy, ConstantsGivenOrNotGiveTheSameLevels) {
  const int ranks = world_size(), rank = world_rank();
  for (const int block : {1, 2}) {
    const Partition partition = ranks > 2 ? uneven_partition(62 * 62, ranks, block)
                                          : clcg::distributed::uniform_partition(62 * 62, ranks, block);
    const LocalRows a = square_grid_rows(62, partition, rank);
    clcg::solver::AmgOptions options;
    options.gather_rows = 0;
    options.coarse_rows = 40;
    options.block_size = unsigned(block);
    const DistributedHierarchy assumed = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
    ASSERT_GE(assumed.levels.size(), 3u);
    clcg::solver::NearNullspace constants;
    constants.rows = std::size_t(a.rows());
    constants.columns = std::size_t(block);
    constants.values.assign(constants.rows * constants.columns, 0.0);
    for (std::size_t i = 0; i < constants.rows; ++i) constants.values[i * constants.columns + i % constants.columns] = 1.0;
    options.near_nullspace = std::make_shared<const clcg::solver::NearNullspace>(std::move(constants));
    const DistributedHierarchy given = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
    expect_same_levels(assumed, given, "block " + std::to_string(block) + ", ");
    EXPECT_EQ(given.whole_candidates, assumed.whole_candidates) << "block " << block << ": the gathered level's R";
  }
}

// A near-null space of two vectors that are not constants (1 and x - 20 on the 2D grid: the
// tentative prolongator's QR through the transpose over the ranks, each aggregate's block of two
// columns orthonormalised on its seed's rank): level 0's P and the next level's A as the host
// reference makes them from the same candidates, bit for bit, evenly and unevenly cut.
TEST(DistributedHierarchy, GivenCandidatesGiveTheHostReferencesFirstLevel) {
  const int ranks = world_size(), rank = world_rank();
  const std::int64_t side = 40, n = side * side;
  for (const bool even : {true, false}) {
    const Partition partition = even || ranks < 3 ? clcg::distributed::uniform_partition(n, ranks)
                                                  : uneven_partition(n, ranks);
    const LocalRows a = square_grid_rows(side, partition, rank);
    std::vector<double> candidates(std::size_t(n) * 2);
    for (std::int64_t i = 0; i < n; ++i)
      candidates[std::size_t(2 * i)] = 1.0, candidates[std::size_t(2 * i + 1)] = double(i % side) - 20.0;
    clcg::solver::AmgOptions options;
    options.gather_rows = 0;
    options.coarse_rows = 40;
    clcg::solver::NearNullspace mine;
    mine.rows = std::size_t(a.rows());
    mine.columns = 2;
    mine.values.assign(candidates.begin() + 2 * partition.begin(rank),
                       candidates.begin() + 2 * (partition.begin(rank) + partition.size(rank)));
    options.near_nullspace = std::make_shared<const clcg::solver::NearNullspace>(std::move(mine));
    const DistributedHierarchy h = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
    ASSERT_GE(h.levels.size(), 2u);
    const HostCsr fine = to_csr(gather_rows(a), n);
    const std::vector<char> strong = clcg::solver::strong_connections(fine, options.strength);
    const clcg::solver::Aggregates g = clcg::solver::aggregate(fine, strong);
    std::vector<double> coarse_candidates;
    const HostCsr tentative = clcg::solver::tentative_prolongator(g, 1, candidates, 2, coarse_candidates);
    const HostCsr p =
        clcg::solver::smoothed_prolongator(fine, tentative, clcg::solver::prolongator_weight(h.levels[0].radius));
    const std::string what = even ? "even cut" : "uneven cut";
    expect_same(to_csr(gather_rows(p_of(h.levels[0])), g.count * 2), p, what + ", level 0's P");
    const HostCsr coarse = clcg::solver::multiply(clcg::solver::transpose(p), clcg::solver::multiply(fine, p));
    expect_same(to_csr(whole_level(h.levels[1]).a, coarse.rows), coarse, what + ", level 1's A");
  }
}

// Aggregates kept for new values, held on the host (as where the device's memory is tight) and
// given back: the levels of the set-up that made them.
TEST(DistributedHierarchy, AggregatesHeldOnTheHostGiveTheSameLevels) {
  const int rank = world_rank();
  const SmallGrid grid;
  const auto& [partition, a, options] = grid;
  DistributedHierarchy first = clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options);
  ASSERT_GE(first.aggregates.size(), 2u);
  RankSetup device(world, clcg::test::test_env());
  for (std::size_t l = 0; l < first.aggregates.size(); ++l) {
    RankSetup::Aggregates& g = first.aggregates[l];
    device.hold_on_host(g, std::size_t(first.levels[l].partition.size(rank)));
    EXPECT_TRUE(g.held);
    EXPECT_EQ(g.of_node(), nullptr) << "level " << l << ": still on the device";
    EXPECT_EQ(g.of_node_held.size(), std::size_t(first.levels[l].partition.size(rank)));
  }
  const DistributedHierarchy again =
      clcg::distributed::build_hierarchy(world, clcg::test::test_env(), partition, a, options, first.aggregates);
  ASSERT_EQ(again.levels.size(), first.levels.size());
  for (std::size_t l = 0; l < first.levels.size(); ++l) {
    const std::int64_t rows = first.levels[l].partition.rows();
    expect_same(to_csr(gather_rows(a_of(again.levels[l])), rows), to_csr(gather_rows(a_of(first.levels[l])), rows),
                "level " + std::to_string(l) + " A");
  }
}

// Level 0's A off the device through R (A P) and up again from the host rows (a threshold of
// one byte: every rank's A leaves, and that R (A P) lists no columns for its fill), for a fresh
// set-up and for one on kept aggregates: the levels of the set-up that kept A on the device (and
// listed them), bit for bit.
TEST(DistributedHierarchy, FinestLeavingTheDeviceGivesTheSameLevels) {
  const SmallGrid grid;
  const auto& [partition, a, options] = grid;
  const clcg::cl::Env& env = clcg::test::test_env();
  const DistributedHierarchy stayed = clcg::distributed::build_hierarchy(world, env, partition, a, options);
  EXPECT_FALSE(stayed.finest_reuploaded);
  ASSERT_GE(stayed.levels.size(), 3u);
  const DistributedHierarchy left =
      clcg::distributed::build_hierarchy(world, env, partition, a, options, {}, clcg::solver::ElementType::f64, 1);
  const DistributedHierarchy kept = clcg::distributed::build_hierarchy(world, env, partition, a, options, left.aggregates,
                                                                       clcg::solver::ElementType::f64, 1);
  const std::int64_t n = partition.rows();
  for (const DistributedHierarchy* h : {&left, &kept}) {
    const std::string which = h == &left ? "fresh: " : "kept aggregates: ";
    EXPECT_TRUE(h->finest_reuploaded) << which;
    ASSERT_TRUE(h->levels.front().a_here && h->levels.front().a_here->matrix.has_arrays()) << which << "A not back";
    EXPECT_EQ(h->levels.front().a_here->halo.ghost_ids, stayed.levels.front().a_here->halo.ghost_ids) << which;
    expect_same(to_csr(gather_rows(self_device().download(*h->levels.front().a_here)), n),
                to_csr(gather_rows(self_device().download(*stayed.levels.front().a_here)), n), which + "level 0's A on the device");
    expect_same_levels(*h, stayed, which);
  }
}

// Failures of the ranks other than 0, one line each (their full gtest output is silenced).
class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = world_rank();
  if (rank != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(rank));
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, world);
  MPI_Finalize();
  return any_failed;
}
