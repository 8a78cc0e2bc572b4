// The apply of incomplete Cholesky A ~ L L^T on the device without a sequential triangular
// solve: each factor's system L y = r is approximated by Jacobi sweeps
//   out = inv_d .* (rhs - N in)        (N: L's strictly triangular part, inv_d: 1 / diag(L))
// one pass each, the product N in in the layout of N's Spmv (spmv_rows.cl). in and out are
// different buffers.
#include "spmv_rows.cl"

#define SWEEP_VALUE(c) in[c]
#define SWEEP_FINISH(row, sum) out[row] = inv_d[row] * (rhs[row] - (sum))

#define SWEEP_ARGS() __global const REAL *inv_d, __global const REAL *rhs, __global const REAL *in, __global REAL *out
ROW_PASSES(triangular_sweep, SWEEP_VALUE, SWEEP_FINISH, SWEEP_ARGS)
