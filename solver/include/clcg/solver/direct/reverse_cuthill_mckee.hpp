#pragma once
// The reverse Cuthill-McKee ordering of a matrix's graph: a breadth-first search from a
// pseudo-peripheral row of each connected part, neighbours by increasing degree, reversed. It
// narrows the profile, so a banded or thin matrix factors with little fill, and it costs one
// pass over the pattern a search: where its factor is small, the sparse factor takes it instead
// of AMD (direct/sparse_cholesky.hpp says when).
#include <vector>

#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// order[k] = the row that comes k-th. Reads the pattern of `a` (square, full storage) as an
// undirected graph; the diagonal and duplicate columns are ignored. The same order every run.
std::vector<int> reverse_cuthill_mckee(const CsrView& a);

}  // namespace clcg::solver
