// Fused CG updates: one pass over the vectors instead of two or three. fma() as in
// cg_fused.cl, so the textbook and fused variants round alike.

// x = x + alpha p ; r = r - alpha q
__kernel void cg_update_xr(const uint n, const REAL alpha, __global const REAL* p, __global const REAL* q,
                           __global REAL* x, __global REAL* r) {
  CLCG_FOR_EACH(uint, i, n) {
    x[i] = fma(alpha, p[i], x[i]);
    r[i] = fma(-alpha, q[i], r[i]);
  }
}

// x = x + alpha p ; r = r - alpha q ; z = M^-1 r with M = diag(A) (Jacobi), inv_diag = 1 / diag(A)
__kernel void cg_update_xrz(const uint n, const REAL alpha, __global const REAL* p, __global const REAL* q,
                            __global const REAL* inv_diag, __global REAL* x, __global REAL* r, __global REAL* z) {
  CLCG_FOR_EACH(uint, i, n) {
    x[i] = fma(alpha, p[i], x[i]);
    const REAL ri = fma(-alpha, q[i], r[i]);
    r[i] = ri;
    z[i] = inv_diag[i] * ri;
  }
}
