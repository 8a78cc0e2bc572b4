// Lanczos for rho(D^-1 A) (solver/precond/spectrum.hpp) on the pencil (A, D), D = diag(A):
// with u = D^-1/2 û, Lanczos on the symmetric D^-1/2 A D^-1/2 needs û.Âû = u.Au and
// û.û = u.Du, and its next vector is formed from D^-1 A u. So a step is two passes: the SpMV
// with both dots' partials, then the three-term update. inv_diag is D^-1 (0 where D is 0).
#include "spmv_rows.cl"

// u = D^-1/2 r for r pseudo-random in [-1, 1) (common.cl: the same start on every device and
// launch shape); v = 0 (the first step's v_-1, whose weight is 0).
__kernel void lanczos_start(const uint n, const ulong seed, __global const REAL* inv_diag, __global REAL* u,
                            __global REAL* v) {
  CLCG_FOR_EACH(uint, i, n) {
    u[i] = sqrt(inv_diag[i]) * (REAL)clcg_pseudo_random(seed, i);
    v[i] = 0;
  }
}

// z = A u; partials of u.z (slot 0) and u.D u (slot 1).
#define LANCZOS_VALUE(c) u[c]
#define LANCZOS_ROW(row, sum)                                              \
  do {                                                                     \
    const REAL u_row = u[row];                                             \
    const REAL inv_row = inv_diag[row];                                    \
    z[row] = (sum);                                                        \
    uau += u_row * (sum);                                                  \
    udu += inv_row != (REAL)0 ? u_row * u_row / inv_row : (REAL)0;         \
  } while (0)

#define LANCZOS_PRODUCT(name, MATRIX_ARGS, ROWS)                                                          \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                               \
      MATRIX_ARGS, __global const REAL* inv_diag, __global const REAL* u, __global REAL* z,              \
      __global REAL* partials) {                                                                         \
    __local REAL scratch[WG_SIZE];                                                                       \
    REAL uau = 0, udu = 0;                                                                               \
    ROWS(LANCZOS_VALUE, LANCZOS_ROW)                                                                     \
    write_partial(scratch, uau, partials, 0);                                                            \
    write_partial(scratch, udu, partials, 1);                                                            \
  }
LANCZOS_PRODUCT(lanczos_product_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
LANCZOS_PRODUCT(lanczos_product_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
LANCZOS_PRODUCT(lanczos_product_ell, ELL_ARGS, ELL_ROWS)

// w = a D^-1 z + b u + c v (the next unnormalised vector); v = d u (this step's normalised
// vector, the next step's v_-1).
__kernel void lanczos_next(const uint n, const REAL a, __global const REAL* inv_diag, __global const REAL* z,
                           const REAL b, __global const REAL* u, const REAL c, __global REAL* v, const REAL d,
                           __global REAL* w) {
  CLCG_FOR_EACH(uint, i, n) {
    const REAL ui = u[i];
    w[i] = a * (inv_diag[i] * z[i]) + b * ui + c * v[i];
    v[i] = d * ui;
  }
}
