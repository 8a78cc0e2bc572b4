// The distributed AMG set-up's Lanczos estimate of rho(D^-1 A) on each rank's device
// (solver/distributed/rank_products.hpp): the host reference's steps (distributed/amg_hierarchy.cpp
// before it moved here), each value computed in the same order, products not fused into sums,
// so that a level's estimate has the same bits on any partition (and on PoCL the host's).
// A's rows have local columns: this rank's rows, then the ghosts (halo.hpp).
#pragma OPENCL FP_CONTRACT OFF

// y = A x, each row summed in its stored order from 0.
__kernel void rows_times(const uint rows, __global const int* row, __global const int* col, __global const REAL* val,
                         __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, i, rows) {
    REAL sum = 0;
    for (int k = row[i]; k < row[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = sum;
  }
}

// partial[c] = the sum of x[i] y[i] over chunk c's rows [begin[c], begin[c + 1]), in row order
// (one work-item a chunk: the host sums the chunks' partials in a fixed order).
__kernel void chunk_dots(const uint chunks, __global const long* begin, __global const REAL* x,
                         __global const REAL* y, __global REAL* partial) {
  CLCG_FOR_EACH(uint, c, chunks) {
    REAL sum = 0;
    for (long i = begin[c]; i < begin[c + 1]; ++i) sum += x[i] * y[i];
    partial[c] = sum;
  }
}

// out = d x.
__kernel void scaled(const uint rows, __global const REAL* d, __global const REAL* x, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, rows) out[i] = d[i] * x[i];
}

// u = D^-1 A v - alpha v - beta v_prev (D^-1 taken as 0 where d is 0).
__kernel void lanczos_next(const uint rows, __global const REAL* av, __global const REAL* d, __global const REAL* v,
                           __global const REAL* v_prev, const REAL alpha, const REAL beta, __global REAL* u) {
  CLCG_FOR_EACH(uint, i, rows) u[i] = (d[i] != (REAL)0 ? av[i] / d[i] : (REAL)0) - alpha * v[i] - beta * v_prev[i];
}

// out = x / s.
__kernel void divided(const uint rows, __global const REAL* x, const REAL s, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, rows) out[i] = x[i] / s;
}
