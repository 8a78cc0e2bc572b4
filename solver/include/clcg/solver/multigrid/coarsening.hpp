#pragma once
// Smoothed-aggregation coarsening on the host, one level at a time (Vanek, Mandel, Brezina
// 1996; the steps as in pyamg and AMGCL, written here): strength of connection, aggregation,
// the tentative prolongator of the near-null space, its smoothing by one damped Jacobi step on
// A, and the Galerkin product. Loops over rows run on every host core
// (parallel_rows); every result is the same for any thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// Calls f(begin, end) on disjoint row ranges covering [0, n), on host_threads() threads.
void parallel_rows(std::size_t n, const std::function<void(std::size_t, std::size_t)>& f);

// strong[k] for each stored entry k of A: i != j, a_ij != 0 and c_ij >= theta^2 max(m_i, m_j),
// where c_ij = a_ij^2 / |a_ii a_jj| and m_i is row i's largest c_ij (kernels/aggregation.cl's
// is_strong says why relative to the rows' strongest).
std::vector<char> strong_connections(const HostCsr& a, double theta);

// Aggregate of each row (-1: a row with no strong connection, left to the smoother), and the
// number of aggregates. The seeds are a distance-2 maximal independent set of the strength
// graph, built in synchronous rounds where the largest key (a hash of the row index) within
// two steps wins (Bell, Dalton, Olson 2012); each seed's neighbours join it, and the rows two
// steps away join a neighbour's aggregate. Made for the device (device_coarsening.hpp), which
// gives the same aggregates; ties go to the largest key.
// The independent set's states, the key that orders rows (state, then a hash of the row
// number, then the row number: unique; kernels/aggregation.cl's mis_key) and the round by which
// every undecided row goes in.
enum : std::uint32_t { mis_out = 0, mis_undecided = 1, mis_in = 2 };
std::uint64_t mis_key(std::uint32_t state, std::uint32_t row);
inline constexpr unsigned max_mis_rounds = 64;
// The round from which the device's rounds visit only the rows an undecided row reads (marked
// in the round before; kernels/aggregation.cl's MIS_MARKED_FROM, the same number): how the
// device works, not what it finds.
inline constexpr unsigned mis_marked_from = 3;

struct Aggregates {
  std::vector<std::int32_t> of_row;
  std::int32_t count = 0;
};
Aggregates aggregate(const HostCsr& a, const std::vector<char>& strong);

// Whether every row of A has exactly one diagonal entry and every other entry is strong: then
// the filter drops nothing and A_f is A.
bool keeps_every_entry(const HostCsr& a, const std::vector<char>& strong);
// A_f, the strength graph aggregation reads: A's strong entries, and first in each row the
// diagonal plus the weak entries (row sums kept); A itself, its entries in their order, where
// keeps_every_entry().
HostCsr filtered_matrix(const HostCsr& a, const std::vector<char>& strong);
// D^-1: 1 / A's diagonal, 0 where it is 0 (nothing of such a row is smoothed or estimated).
std::vector<double> inverse_diagonal(const HostCsr& a);

// The most rows a node may have, and the most near-null-space vectors (a coarse level's nodes
// have one row a vector): kernels/aggregation.cl's MAX_CANDIDATES.
inline constexpr unsigned max_block_size = 16;

// The node matrix of A whose nodes are `block` consecutive rows (a node's components; rows a
// multiple of block): entry (u, v) is the Frobenius norm of A's block (u, v), summed row by row
// in column order. Its strength of connection aggregates nodes, so a node's components share
// an aggregate (as pyamg does for block matrices).
HostCsr node_matrix(const HostCsr& a, int block);

// Where the tentative prolongator's Gram-Schmidt takes a candidate for a combination of those
// before it on an aggregate: its norm after the projections at most this times its norm before.
double dependent_candidate(ElementType type);

// P_tent for the near-null space B (`candidates`, rows x k row-major: the constant on a scalar
// problem's finest level, a constant a component, rigid body modes) over the aggregates of the
// nodes (`block` rows each). Each aggregate's block of B (its rows in order) is factored
// B_g = Q_g R_g by modified Gram-Schmidt, each projection taken twice; a dependent column (see
// dependent_candidate) becomes 0 with its diagonal of R. Row i of P_tent holds its row of Q_g in
// columns g k .. g k + k - 1; `coarse_candidates` gets the R_g (count k rows of k, upper
// triangular), the next level's B, so that P_tent B_c = B (Vanek, Mandel, Brezina 1996; pyamg's
// fit_candidates). Without carrying B, aggregates of unequal sizes lose the constant on coarser
// levels and the steps grow with the grid.
HostCsr tentative_prolongator(const Aggregates& aggregates, int block, const std::vector<double>& candidates, int k,
                              std::vector<double>& coarse_candidates);

// P = (I - omega D^-1 A) P_tent (columns sorted); omega: prolongator_weight() (amg.cpp). A
// itself, not A_f: lumping the weak couplings onto the diagonal bends P across coefficient jumps.
HostCsr smoothed_prolongator(const HostCsr& a, const HostCsr& tentative, double omega);

HostCsr transpose(const HostCsr& m);
// C = A B (columns sorted within rows; each row summed in the order of A's row: deterministic).
HostCsr multiply(const HostCsr& a, const HostCsr& b);

}  // namespace clcg::solver
