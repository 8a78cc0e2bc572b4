#pragma once
// io/host_matrix.hpp's symmetry check on a matrix already on the device: the same report
// (the largest |a_ij - a_ji| and its first position in row-major order, the largest |a_ij|)
// with no host pass over A: one kernel over the entries, then argmax / min / max reductions.
#include <cstdint>

#include "clcg/cl/env.hpp"
#include "clcg/solver/io/host_matrix.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// `a` square, in double, with the columns of each row sorted; `host` its arrays on the host
// (to name the row and column of the largest mismatch). std::invalid_argument for a float
// matrix (its rounded values are not the ones to check) or a non-square one. Needs nnz
// doubles of device memory for the moment (checked first).
SymmetryReport device_symmetry(const cl::Env& env, const DeviceCsrMatrix& a, const CsrView& host,
                               double relative_tolerance = 1e-12);

}  // namespace clcg::solver
