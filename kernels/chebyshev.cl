// Chebyshev iteration for A x = b preconditioned by D = diag(A) (the Chebyshev preconditioner,
// and the smoother of every multigrid level): step j computes
//   res = b - A x_src ;  d = c_d d + c_r inv_diag .* res ;  x_dst = x_src + d
// in one pass, the SpMV in the layout of the matrix's Spmv (spmv_rows.cl). x_src and x_dst are
// different buffers (other work-items still read x_src); d is read and written at its own row
// only. c_d = 0 starts the recurrence (d is then not read, so it may hold anything).
#include "spmv_rows.cl"

#define CHEBYSHEV_VALUE(c) x_src[c]
#define CHEBYSHEV_FINISH(row, sum)                                                          \
  do {                                                                                      \
    const REAL residual = b[row] - (sum);                                                   \
    const REAL d_row = fma(c_r, inv_diag[row] * residual, c_d == (REAL)0 ? (REAL)0 : c_d * d[row]); \
    d[row] = d_row;                                                                         \
    x_dst[row] = x_src[row] + d_row;                                                        \
  } while (0)

#define CHEBYSHEV_ARGS()                                                                                    \
  const REAL c_d, const REAL c_r, __global const REAL *inv_diag, __global const REAL *b, __global const REAL *x_src, \
      __global REAL *d, __global REAL *x_dst
ROW_PASSES(chebyshev_step, CHEBYSHEV_VALUE, CHEBYSHEV_FINISH, CHEBYSHEV_ARGS)

// The first step from x = 0 needs no SpMV: d = c_r inv_diag .* b ; x = d.
__kernel void chebyshev_start(const uint n, const REAL c_r, __global const REAL* inv_diag, __global const REAL* b,
                              __global REAL* d, __global REAL* x) {
  CLCG_FOR_EACH(uint, i, n) {
    const REAL d_i = c_r * (inv_diag[i] * b[i]);
    d[i] = d_i;
    x[i] = d_i;
  }
}
