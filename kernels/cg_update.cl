// Fused CG updates: one pass over the vectors instead of two or three.

// x = x + alpha p ; r = r - alpha q
__kernel void cg_update_xr(const uint n, const REAL alpha, __global const REAL* p, __global const REAL* q,
                           __global REAL* x, __global REAL* r) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

// x = x + alpha p ; r = r - alpha q ; z = M^-1 r with M = diag(A) (Jacobi), inv_diag = 1 / diag(A)
__kernel void cg_update_xrz(const uint n, const REAL alpha, __global const REAL* p, __global const REAL* q,
                            __global const REAL* inv_diag, __global REAL* x, __global REAL* r, __global REAL* z) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    x[i] += alpha * p[i];
    const REAL ri = r[i] - alpha * q[i];
    r[i] = ri;
    z[i] = inv_diag[i] * ri;
  }
}
