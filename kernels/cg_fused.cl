// Fused CG kernels: each pass over the vectors also writes the per-group partials of the dot
// products CG needs next, so no vector is read again just to reduce it. Partials of dot k go
// to partials[k * get_num_groups(0) + group]; the host finishes them in index order.
// WG_SIZE (a power of two) is the work-group size the host launches with; every kernel
// loops over rows with a stride, so any number of groups covers any n, and a fixed launch
// shape gives the same bits on every run.
#include "spmv_rows.cl"

// The fused CG step never reads or writes a vector more often than the floor needs (72 n
// bytes a step without a preconditioner, DEVICE.md). Pass 1 builds the new search direction
// inside the SpMV: wherever p is needed it computes p = z + beta p_old from z and the previous
// direction, so p is written once and never re-read; it also applies the previous step's
// x += alpha_x p_old, deferred to here because this pass reads p_old anyway. Pass 2 updates
// r (and z) only. p and p_old are two buffers: other groups still read p_old.
// fma() everywhere, so every work-item computes the same bits for the same p_j, and the
// textbook kernels (blas1.cl, cg_update.cl) the same bits as these.
#define DIRECTION(j) fma(beta, p_old[j], z[j])

// The row's epilogue of pass 1: p, q and x at `row`, and its share of p . q.
#define FINISH_ROW(row, sum)                   \
  do {                                         \
    const REAL p_row = DIRECTION(row);         \
    p[row] = p_row;                            \
    q[row] = (sum);                            \
    x[row] = fma(alpha_x, p_old[row], x[row]); \
    pq += p_row * (sum);                       \
  } while (0)

#define STEP_VECTOR_ARGS                                                                         \
  const REAL beta, const REAL alpha_x, __global const REAL *z, __global const REAL *p_old, __global REAL *p, \
      __global REAL *q, __global REAL *x, __global REAL *partials

// Pass 1: p = z + beta p_old ; q = A p ; x += alpha_x p_old ; partials of p . q. One kernel
// per row layout.
#define SPMV_STEP(name, MATRIX_ARGS, ROWS)                                                      \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(MATRIX_ARGS, STEP_VECTOR_ARGS) { \
    __local REAL scratch[WG_SIZE];                                                              \
    REAL pq = 0;                                                                                \
    ROWS(DIRECTION, FINISH_ROW)                                                                 \
    write_partial(scratch, pq, partials, 0);                                                    \
  }
SPMV_STEP(spmv_step_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
SPMV_STEP(spmv_step_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
SPMV_STEP(spmv_step_ell, ELL_ARGS, ELL_ROWS)

// Pass 2: r -= alpha q ; partials of r . r.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void update_r_dot(const uint n, const REAL alpha, __global const REAL* q, __global REAL* r, __global REAL* partials) {
  __local REAL scratch[WG_SIZE];
  REAL rr = 0;
  CLCG_FOR_EACH(uint, i, n) {
    const REAL ri = fma(-alpha, q[i], r[i]);
    r[i] = ri;
    rr += ri * ri;
  }
  write_partial(scratch, rr, partials, 0);
}

// Pass 2 with Jacobi: r -= alpha q ; z = inv_diag .* r ; partials of r . r and r . z.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void update_rz_dot(const uint n, const REAL alpha, __global const REAL* q, __global const REAL* inv_diag,
                   __global REAL* r, __global REAL* z, __global REAL* partials) {
  __local REAL scratch[WG_SIZE];
  REAL rr = 0, rz = 0;
  CLCG_FOR_EACH(uint, i, n) {
    const REAL ri = fma(-alpha, q[i], r[i]);
    const REAL zi = inv_diag[i] * ri;
    r[i] = ri;
    z[i] = zi;
    rr += ri * ri;
    rz += ri * zi;
  }
  write_partial(scratch, rr, partials, 0);
  write_partial(scratch, rz, partials, 1);
}

// Chronopoulos-Gear CG (variant "single") in ONE pass a step. With u = M^-1 r (u = r without
// a preconditioner), w = A u and s = A p kept by recurrence, step k does
//   s = w + beta s_old ; p = u + beta p ; x += alpha p ; r' = r - alpha s ; u' = M^-1 r' ;
//   w' = A u' ; partials of gamma = r'.u', delta = w'.u' (and r'.r' with Jacobi).
// The SpMV needs u' at the row's neighbours: it computes it from r, w and s_old, so r', w' and
// s are written once and nothing is read twice. r, w, s have two buffers each (other groups
// still read the old ones); p and x are touched only at their own row.
#define NEXT_R(j) fma(-alpha, fma(beta, s_old[j], w_old[j]), r_old[j])
#define PRECONDITIONED(j, value) (jacobi ? inv_diag[j] * (value) : (value))

#define SINGLE_ROW(row, sum)                                     \
  do {                                                           \
    const REAL s_row = fma(beta, s_old[row], w_old[row]);        \
    const REAL p_row = fma(beta, p[row], PRECONDITIONED(row, r_old[row])); \
    const REAL r_row = fma(-alpha, s_row, r_old[row]);           \
    const REAL u_row = PRECONDITIONED(row, r_row);               \
    s_new[row] = s_row;                                          \
    p[row] = p_row;                                              \
    x[row] = fma(alpha, p_row, x[row]);                          \
    r_new[row] = r_row;                                          \
    w_new[row] = (sum);                                          \
    gamma += r_row * u_row;                                      \
    delta += (sum) * u_row;                                      \
    rr += r_row * r_row;                                         \
  } while (0)

#define SINGLE_PARTIALS()                                        \
  write_partial(scratch, gamma, partials, 0);                    \
  write_partial(scratch, delta, partials, 1);                    \
  if (jacobi) write_partial(scratch, rr, partials, 2)

#define SINGLE_VECTOR_ARGS                                                                          \
  const REAL alpha, const REAL beta, const uint jacobi, __global const REAL* inv_diag,             \
      __global const REAL* r_old, __global const REAL* w_old, __global const REAL* s_old,           \
      __global REAL* r_new, __global REAL* w_new, __global REAL* s_new, __global REAL* p,           \
      __global REAL* x, __global REAL* partials

#define SINGLE_VALUE(c) PRECONDITIONED(c, NEXT_R(c))

// One kernel per row layout.
#define SINGLE_STEP(name, MATRIX_ARGS, ROWS)                                                      \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(MATRIX_ARGS, SINGLE_VECTOR_ARGS) { \
    __local REAL scratch[WG_SIZE];                                                                \
    REAL gamma = 0, delta = 0, rr = 0;                                                            \
    ROWS(SINGLE_VALUE, SINGLE_ROW)                                                                \
    SINGLE_PARTIALS();                                                                            \
  }
SINGLE_STEP(single_step_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
SINGLE_STEP(single_step_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
SINGLE_STEP(single_step_ell, ELL_ARGS, ELL_ROWS)

// Chronopoulos-Gear (variant "single") with a preconditioner M that is not a diagonal: M^-1
// cannot be computed where the SpMV needs it, so a step is two passes around M's apply,
// still one host sync:
//   single_update:   s = w + beta s ; p = u + beta p ; x += alpha p ; r -= alpha s   (in place)
//   (M)              u = M^-1 r
//   spmv_dots:       w = A u ; partials of gamma = r.u, delta = w.u, r.r
__kernel void single_update(const uint n, const REAL alpha, const REAL beta, __global const REAL* w,
                            __global const REAL* u, __global REAL* s, __global REAL* p, __global REAL* x,
                            __global REAL* r) {
  CLCG_FOR_EACH(uint, i, n) {
    const REAL s_i = fma(beta, s[i], w[i]);
    const REAL p_i = fma(beta, p[i], u[i]);
    s[i] = s_i;
    p[i] = p_i;
    x[i] = fma(alpha, p_i, x[i]);
    r[i] = fma(-alpha, s_i, r[i]);
  }
}

#define DOTS_VALUE(c) u[c]
#define DOTS_ROW(row, sum)              \
  do {                                  \
    const REAL u_row = u[row];          \
    const REAL r_row = r[row];          \
    w[row] = (sum);                     \
    gamma += r_row * u_row;             \
    delta += (sum) * u_row;             \
    rr += r_row * r_row;                \
  } while (0)

#define SPMV_DOTS(name, MATRIX_ARGS, ROWS)                                                                \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                                \
      MATRIX_ARGS, __global const REAL* u, __global const REAL* r, __global REAL* w, __global REAL* partials) { \
    __local REAL scratch[WG_SIZE];                                                                         \
    REAL gamma = 0, delta = 0, rr = 0;                                                                     \
    ROWS(DOTS_VALUE, DOTS_ROW)                                                                             \
    write_partial(scratch, gamma, partials, 0);                                                            \
    write_partial(scratch, delta, partials, 1);                                                            \
    write_partial(scratch, rr, partials, 2);                                                               \
  }
SPMV_DOTS(spmv_dots_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS)
SPMV_DOTS(spmv_dots_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS)
SPMV_DOTS(spmv_dots_ell, ELL_ARGS, ELL_ROWS)

// Pipelined CG (Ghysels and Vanroose 2014, Algorithm 4) without a preconditioner, where
// u = r, q = s and m = w. nv = A w was computed while the previous partials were read.
//   z = nv + beta z ; s = w + beta s ; p = r + beta p ; x += alpha p ; r -= alpha s ; w -= alpha z
// and the partials of gamma = r . r and delta = w . r for the next step.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void pipelined_update(const uint n, const REAL alpha, const REAL beta, __global const REAL* nv,
                      __global REAL* z, __global REAL* s, __global REAL* p, __global REAL* x, __global REAL* r,
                      __global REAL* w, __global REAL* partials) {
  __local REAL scratch[WG_SIZE];
  REAL gamma = 0, delta = 0;
  CLCG_FOR_EACH(uint, i, n) {
    const REAL zi = nv[i] + beta * z[i];
    const REAL si = w[i] + beta * s[i];
    const REAL pi = r[i] + beta * p[i];
    x[i] += alpha * pi;
    const REAL ri = r[i] - alpha * si;
    const REAL wi = w[i] - alpha * zi;
    z[i] = zi;
    s[i] = si;
    p[i] = pi;
    r[i] = ri;
    w[i] = wi;
    gamma += ri * ri;
    delta += wi * ri;
  }
  write_partial(scratch, gamma, partials, 0);
  write_partial(scratch, delta, partials, 1);
}

// The same with Jacobi M = diag(A): u = M^-1 r, m = M^-1 w (kept as a vector for the SpMV
// nv = A m), q = m + beta q:
//   z = nv + beta z ; q = m + beta q ; s = w + beta s ; p = u + beta p ; x += alpha p ;
//   r -= alpha s ; u -= alpha q ; w -= alpha z ; m = inv_diag .* w
// and the partials of gamma = r . u, delta = w . u and r . r (the stopping rule).
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void pipelined_update_jacobi(const uint n, const REAL alpha, const REAL beta, __global const REAL* nv,
                             __global const REAL* inv_diag, __global REAL* z, __global REAL* q, __global REAL* s,
                             __global REAL* p, __global REAL* x, __global REAL* r, __global REAL* u,
                             __global REAL* w, __global REAL* m, __global REAL* partials) {
  __local REAL scratch[WG_SIZE];
  REAL gamma = 0, delta = 0, rr = 0;
  CLCG_FOR_EACH(uint, i, n) {
    const REAL zi = nv[i] + beta * z[i];
    const REAL qi = m[i] + beta * q[i];
    const REAL si = w[i] + beta * s[i];
    const REAL pi = u[i] + beta * p[i];
    x[i] += alpha * pi;
    const REAL ri = r[i] - alpha * si;
    const REAL ui = u[i] - alpha * qi;
    const REAL wi = w[i] - alpha * zi;
    z[i] = zi;
    q[i] = qi;
    s[i] = si;
    p[i] = pi;
    r[i] = ri;
    u[i] = ui;
    w[i] = wi;
    m[i] = inv_diag[i] * wi;
    gamma += ri * ui;
    delta += wi * ui;
    rr += ri * ri;
  }
  write_partial(scratch, gamma, partials, 0);
  write_partial(scratch, delta, partials, 1);
  write_partial(scratch, rr, partials, 2);
}
