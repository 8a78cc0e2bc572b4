// Lanczos for rho(D^-1 A) (solver/precond/spectrum.hpp) on the pencil (A, D), D = diag(A):
// with u = D^-1/2 û, Lanczos on the symmetric D^-1/2 A D^-1/2 needs û.Âû = u.Au and
// û.û = u.Du, and its next vector is formed from D^-1 A u. So a step is three launches: the
// SpMV with both dots' partials, one group that finishes them into the step's coefficients,
// then the three-term update, which reads its weights from the coefficients. Nothing is read
// back until the last step. inv_diag is D^-1 (0 where D is 0).
#include "spmv_rows.cl"

// The coefficients' layout (double; the start needs fp64 anyway): the steps kept, whether the
// recurrence stopped (1: an invariant subspace, 2: a start of norm 0), the update's four weights,
// then alpha_0.. and beta_1.. (room for `steps` of each).
#define LZ_KEPT 0
#define LZ_STOPPED 1
#define LZ_WEIGHTS 2
#define LZ_ALPHA 6

// u = D^-1/2 r for r pseudo-random in [-1, 1) (common.cl: the same start on every device and
// launch shape); v = 0 (the first step's v_-1, whose weight is 0); no steps kept yet.
__kernel void lanczos_start(const uint n, const ulong seed, __global const REAL* inv_diag, __global REAL* u,
                            __global REAL* v, __global double* coef) {
  if (get_global_id(0) == 0) coef[LZ_KEPT] = coef[LZ_STOPPED] = 0;
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

// Step j's coefficients from the product's `groups` partials of u.Au, then of u.Du: each summed
// in double by one group of WG_SIZE (a work-item's partials in index order, then a tree: the
// same order on every run). beta_j = |û_j| = sqrt(u.Du), alpha_j = u.Au / u.Du; the recurrence
// stops where beta_j vanishes against alpha_j-1 (an invariant subspace: the Ritz values are
// exact). The update's weights: 1/beta_j for D^-1 z, -alpha_j/beta_j for u, -beta_j for v_j-1
// (0 on the first step), and 1/beta_j for v_j.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void lanczos_coefficients(
    const uint groups, const uint j, const uint steps, __global const REAL* partials, __global double* coef) {
  __local double uau[WG_SIZE], udu[WG_SIZE];
  const uint lid = get_local_id(0);
  double own_uau = 0, own_udu = 0;
  for (uint g = lid; g < groups; g += WG_SIZE) {
    own_uau += partials[g];
    own_udu += partials[groups + g];
  }
  uau[lid] = own_uau;
  udu[lid] = own_udu;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = WG_SIZE / 2; stride > 0; stride >>= 1) {
    if (lid < stride) {
      uau[lid] += uau[lid + stride];
      udu[lid] += udu[lid + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid != 0 || coef[LZ_STOPPED] != 0) return;
  const double b = sqrt(udu[0]);
  if (j > 0) {
    if (!(b > 1e-12 * fabs(coef[LZ_ALPHA + j - 1]))) {
      coef[LZ_STOPPED] = 1;
      return;
    }
    coef[LZ_ALPHA + steps + j - 1] = b;
  } else if (!(b > 0)) {
    coef[LZ_STOPPED] = 2;
    return;
  }
  const double a = uau[0] / udu[0];
  coef[LZ_ALPHA + j] = a;
  coef[LZ_KEPT] = j + 1;
  coef[LZ_WEIGHTS] = 1 / b;
  coef[LZ_WEIGHTS + 1] = -a / b;
  coef[LZ_WEIGHTS + 2] = j > 0 ? -b : 0.0;
  coef[LZ_WEIGHTS + 3] = 1 / b;
}

// w = a D^-1 z + b u + c v (the next unnormalised vector); v = d u (this step's normalised
// vector, the next step's v_-1), with a, b, c, d the step's weights in coef. After a stop the
// weights are the last step's: what this writes is never read.
__kernel void lanczos_next(const uint n, __global const double* coef, __global const REAL* inv_diag,
                           __global const REAL* z, __global const REAL* u, __global REAL* v, __global REAL* w) {
  const REAL a = (REAL)coef[LZ_WEIGHTS], b = (REAL)coef[LZ_WEIGHTS + 1], c = (REAL)coef[LZ_WEIGHTS + 2],
             d = (REAL)coef[LZ_WEIGHTS + 3];
  CLCG_FOR_EACH(uint, i, n) {
    const REAL ui = u[i];
    w[i] = a * (inv_diag[i] * z[i]) + b * ui + c * v[i];
    v[i] = d * ui;
  }
}
