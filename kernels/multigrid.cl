// The V-cycle's own passes (the smoother is chebyshev.cl): the residual and the prolongation
// added to the fine iterate (both in their matrix's layout, spmv_rows.cl); the coarsest level
// is solved on the host (precond/cholesky.hpp). The restriction is a plain SpMV with R = P^T (spmv_csr.cl, spmv_ell.cl)
// on one device; across ranks it is `restriction` below, in R's layout, whose passes can run
// on part of the rows.
#include "spmv_rows.cl"

// res = b - A x
#define RESIDUAL_VALUE(c) x[c]
#define RESIDUAL_FINISH(row, sum) res[row] = b[row] - (sum)
#define RESIDUAL_ARGS() __global const REAL *b, __global const REAL *x, __global REAL *res
ROW_PASSES(residual, RESIDUAL_VALUE, RESIDUAL_FINISH, RESIDUAL_ARGS)

// x += P x_coarse (P: this level's rows, the coarse level's columns)
#define PROLONG_VALUE(c) x_coarse[c]
#define PROLONG_FINISH(row, sum) x[row] += (sum)
#define PROLONG_ARGS() __global const REAL *x_coarse, __global REAL *x
ROW_PASSES(prolong_add, PROLONG_VALUE, PROLONG_FINISH, PROLONG_ARGS)

// b_coarse = R res (R: the coarse level's rows, this level's columns)
#define RESTRICTION_VALUE(c) res[c]
#define RESTRICTION_FINISH(row, sum) b_coarse[row] = (sum)
#define RESTRICTION_ARGS() __global const REAL *res, __global REAL *b_coarse
ROW_PASSES(restriction, RESTRICTION_VALUE, RESTRICTION_FINISH, RESTRICTION_ARGS)
