#pragma once
// Smoothed-aggregation coarsening on the host, one level at a time (Vanek, Mandel, Brezina
// 1996; the steps as in pyamg and AMGCL, written here): strength of connection, aggregation,
// the tentative prolongator of the constant vector, its smoothing by one damped Jacobi step on
// the filtered matrix, and the Galerkin product. Loops over rows run on every host core
// (parallel_rows); every result is the same for any thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// Calls f(begin, end) on disjoint row ranges covering [0, n), on host_threads() threads.
void parallel_rows(std::size_t n, const std::function<void(std::size_t, std::size_t)>& f);

// strong[k] for each stored entry k of A: i != j and |a_ij| >= theta sqrt(|a_ii a_jj|).
std::vector<char> strong_connections(const HostCsr& a, double theta);

// Aggregate of each row (-1: a row with no strong connection, left to the smoother), and the
// number of aggregates. The seeds are a distance-2 maximal independent set of the strength
// graph, built in synchronous rounds where the largest key (a hash of the row index) within
// two steps wins (Bell, Dalton, Olson 2012); each seed's neighbours join it, and the rows two
// steps away join a neighbour's aggregate. Made for the device (device_coarsening.hpp), which
// gives the same aggregates; ties go to the largest key.
struct Aggregates {
  std::vector<std::int32_t> of_row;
  std::int32_t count = 0;
};
Aggregates aggregate(const HostCsr& a, const std::vector<char>& strong);

// Whether every row of A has exactly one diagonal entry and every other entry is strong: then
// the filter drops nothing and A_f is A.
bool keeps_every_entry(const HostCsr& a, const std::vector<char>& strong);
// A_f: A's strong entries, and first in each row the diagonal plus the weak entries (row sums
// kept); A itself, its entries in their order, where keeps_every_entry().
HostCsr filtered_matrix(const HostCsr& a, const std::vector<char>& strong);
// D_f^-1: 1 / A_f's diagonal, 0 where it is 0 (such a row has no strong connection and sums to
// 0: nothing of it is smoothed or estimated).
std::vector<double> filtered_inverse_diagonal(const HostCsr& filtered);

// P = (I - omega D_f^-1 A_f) P_tent, where P_tent(i, agg(i)) = b_i / |b on agg(i)| for the
// near-null-space candidate b (ones on the finest level). Columns sorted. `coarse_candidate`
// gets the next level's b: the aggregates' norms (summed in row order), so that
// P_tent b_c = b. Without carrying b, aggregates of unequal sizes lose the constant on coarser
// levels and the steps grow with the grid. omega: prolongator_weight() (amg.cpp).
HostCsr smoothed_prolongator(const HostCsr& filtered, const Aggregates& aggregates, const std::vector<double>& candidate,
                             std::vector<double>& coarse_candidate, double omega);

HostCsr transpose(const HostCsr& m);
// C = A B (columns sorted within rows; each row summed in the order of A's row: deterministic).
HostCsr multiply(const HostCsr& a, const HostCsr& b);

}  // namespace clcg::solver
