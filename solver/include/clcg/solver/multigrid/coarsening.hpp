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
// number of aggregates. Three passes over the rows in order: a row whose strong neighbours are
// all free seeds an aggregate with them; a free row joins a neighbour's aggregate; what is left
// seeds aggregates with its free neighbours.
struct Aggregates {
  std::vector<std::int32_t> of_row;
  std::int32_t count = 0;
};
Aggregates aggregate(const HostCsr& a, const std::vector<char>& strong);

// P = (I - omega D_f^-1 A_f) P_tent, where P_tent(i, agg(i)) = 1 / sqrt(|agg|), A_f is A with
// its weak entries moved onto the diagonal, and omega = 4/3 over a Gershgorin bound of
// rho(D_f^-1 A_f). Columns sorted.
HostCsr smoothed_prolongator(const HostCsr& a, const std::vector<char>& strong, const Aggregates& aggregates);

HostCsr transpose(const HostCsr& m);
// C = A B (columns sorted within rows; each row summed in the order of A's row: deterministic).
HostCsr multiply(const HostCsr& a, const HostCsr& b);

}  // namespace clcg::solver
