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

// y = x in the other precision (-D OTHER_REAL=float|double, set by sparse/conversion.cpp):
// the way into and out of a preconditioner applied in float for a solve in double.
#ifdef OTHER_REAL
__kernel void convert(const uint n, __global const REAL* x, __global OTHER_REAL* y) {
  CLCG_FOR_EACH(uint, i, n) y[i] = (OTHER_REAL)x[i];
}
#endif
