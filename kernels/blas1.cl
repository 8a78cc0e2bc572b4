// Level-1 vector kernels on REAL vectors of n elements. Each uses a grid-stride loop, so any
// launch shape covers any n; each element is computed independently (same bits for any shape).

__kernel void axpy(const uint n, const REAL a, __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = fma(a, x[i], y[i]);  // y = a x + y
}

__kernel void xpay(const uint n, const REAL a, __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = fma(a, y[i], x[i]);  // y = x + a y (fma: as cg_fused.cl)
}

__kernel void axpby_to(const uint n, const REAL a, __global const REAL* x, const REAL b, __global const REAL* y,
                       __global REAL* w) {
  CLCG_FOR_EACH(uint, i, n) w[i] = a * x[i] + b * y[i];  // w = a x + b y
}

// A Lanczos step's two updates in one pass (precond/spectrum.cpp): w = a t + b u + c v, v = d u.
__kernel void lanczos_next(const uint n, const REAL a, __global const REAL* t, const REAL b, __global const REAL* u,
                           const REAL c, __global REAL* v, const REAL d, __global REAL* w) {
  CLCG_FOR_EACH(uint, i, n) {
    const REAL ui = u[i];
    w[i] = a * t[i] + b * ui + c * v[i];
    v[i] = d * ui;
  }
}

__kernel void scale(const uint n, const REAL a, __global REAL* x) {
  CLCG_FOR_EACH(uint, i, n) x[i] *= a;  // x = a x
}

__kernel void copy(const uint n, __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = x[i];  // y = x
}

__kernel void fill(const uint n, const REAL value, __global REAL* x) {
  CLCG_FOR_EACH(uint, i, n) x[i] = value;  // x = value
}

__kernel void diag_mul(const uint n, __global const REAL* d, __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = d[i] * x[i];  // y = diag(d) x
}

__kernel void square_root(const uint n, __global REAL* x) {
  CLCG_FOR_EACH(uint, i, n) x[i] = sqrt(x[i]);  // x = sqrt(x), element by element
}

// x_i = a pseudo-random number in [-1, 1) from i and seed (splitmix64): the same vector on
// every device and launch shape, with no host vector to upload.
__kernel void pseudo_random(const uint n, const ulong seed, __global REAL* x) {
  CLCG_FOR_EACH(uint, i, n) {
    ulong z = seed + 0x9E3779B97F4A7C15UL * ((ulong)i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z ^= z >> 31;
    x[i] = (REAL)((double)(z >> 11) * 0x1.0p-52 - 1.0);
  }
}

// y = x in the other precision (-D OTHER_REAL=float|double, set by sparse/conversion.cpp):
// the way into and out of a preconditioner applied in float for a solve in double.
#ifdef OTHER_REAL
__kernel void convert(const uint n, __global const REAL* x, __global OTHER_REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = (OTHER_REAL)x[i];
}
#endif
