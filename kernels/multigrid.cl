// The V-cycle's own passes (the smoother is chebyshev.cl): the residual and the prolongation
// added to the fine iterate (both in their matrix's layout, spmv_rows.cl); the coarsest level
// is solved on the host (precond/cholesky.hpp). The restriction is a plain SpMV with R = P^T (spmv_csr.cl, spmv_ell.cl)
// on one device; across ranks it is `restriction` below, in R's layout, whose passes can run
// on part of the rows.
#include "spmv_rows.cl"

// res = b - A x
#define RESIDUAL_VALUE(c) x[c]
#define RESIDUAL_FINISH(row, sum) res[row] = b[row] - (sum)
#define RESIDUAL(name, MATRIX_ARGS, ROWS)                                                                    \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                                  \
      MATRIX_ARGS, __global const REAL* b, __global const REAL* x, __global REAL* res) {                     \
    __local REAL scratch[WG_SIZE];                                                                           \
    ROWS(RESIDUAL_VALUE, RESIDUAL_FINISH)                                                                    \
  }
RESIDUAL(residual_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
RESIDUAL(residual_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
RESIDUAL(residual_ell, ELL_ARGS, ELL_ROWS)

// x += P x_coarse (P: this level's rows, the coarse level's columns)
#define PROLONG_VALUE(c) x_coarse[c]
#define PROLONG_FINISH(row, sum) x[row] += (sum)
#define PROLONG_ADD(name, MATRIX_ARGS, ROWS)                                                                 \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                                  \
      MATRIX_ARGS, __global const REAL* x_coarse, __global REAL* x) {                                        \
    __local REAL scratch[WG_SIZE];                                                                           \
    ROWS(PROLONG_VALUE, PROLONG_FINISH)                                                                      \
  }
PROLONG_ADD(prolong_add_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
PROLONG_ADD(prolong_add_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
PROLONG_ADD(prolong_add_ell, ELL_ARGS, ELL_ROWS)


// b_coarse = R res (R: the coarse level's rows, this level's columns)
#define RESTRICTION_VALUE(c) res[c]
#define RESTRICTION_FINISH(row, sum) b_coarse[row] = (sum)
#define RESTRICTION(name, MATRIX_ARGS, ROWS)                                                                 \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                                  \
      MATRIX_ARGS, __global const REAL* res, __global REAL* b_coarse) {                                      \
    __local REAL scratch[WG_SIZE];                                                                           \
    ROWS(RESTRICTION_VALUE, RESTRICTION_FINISH)                                                              \
  }
RESTRICTION(restriction_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
RESTRICTION(restriction_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
RESTRICTION(restriction_ell, ELL_ARGS, ELL_ROWS)
