// The apply of incomplete Cholesky A ~ L L^T on the device without a sequential triangular
// solve: each factor's system L y = r is approximated by Jacobi sweeps
//   out = inv_d .* (rhs - N in)        (N: L's strictly triangular part, inv_d: 1 / diag(L))
// one pass each, the product N in in the layout of N's Spmv (spmv_rows.cl). in and out are
// different buffers.
#include "spmv_rows.cl"

#define SWEEP_VALUE(c) in[c]
#define SWEEP_FINISH(row, sum) out[row] = inv_d[row] * (rhs[row] - (sum))

#define TRIANGULAR_SWEEP(name, MATRIX_ARGS, ROWS)                                                   \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                         \
      MATRIX_ARGS, __global const REAL* inv_d, __global const REAL* rhs, __global const REAL* in,   \
      __global REAL* out) {                                                                         \
    __local REAL scratch[WG_SIZE];                                                                  \
    ROWS(SWEEP_VALUE, SWEEP_FINISH)                                                                 \
  }
TRIANGULAR_SWEEP(triangular_sweep_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
TRIANGULAR_SWEEP(triangular_sweep_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
TRIANGULAR_SWEEP(triangular_sweep_ell, ELL_ARGS, ELL_ROWS)
