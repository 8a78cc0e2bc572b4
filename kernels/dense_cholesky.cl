// A dense Cholesky factor A = L L^T on the device (solver/direct/dense_device_cholesky.hpp), in
// double: right-looking by blocks of NB columns. A is n x n, column-major with leading dimension
// `lda`, a multiple of NB, padded with the identity so no kernel checks bounds. For block k: its
// diagonal factor (one group: L11, and W = L11^-1 kept for the panel and the solves), panel
// (L21 = A21 W^T, in place), update (A22 -= L21 L21^T on the lower tiles, and the next diagonal
// block's factor). A solve takes a launch a block each way (forward, backward).
#define NB 64
#define KC 16           // the inner dimension's chunk a tile product loads at a time
#define TILE_ITEMS 256  // 16 x 16 work-items, 4 x 4 entries each

// ---- scatter: A's CSR entries into the zeroed dense array; the padding's diagonal set to 1 ----
__kernel void scatter(uint n, uint lda, __global const int* row_ptr, __global const int* col_idx,
                      __global const double* values, __global double* a) {
  for (uint i = get_global_id(0); i < lda; i += get_global_size(0)) {
    if (i >= n) {
      a[(size_t)i * lda + i] = 1.0;
      continue;
    }
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) a[(size_t)col_idx[k] * lda + i] = values[k];
  }
}

// ---- The factor of one diagonal block, in local memory l (its lower triangle), by side x side
// work-items: L11 (written to `block`) and W = L11^-1 (to `w`). A pivot <= 0 (or NaN) records its
// column + 1 in *failed (the first one: blocks run in order) and is replaced by 1 so that the
// rest stays finite. Two barriers a column: the pivot is read by every work-item and kept in
// `pivots` until the end, so no one writes l[j][j] while others read it. The serial steps are the
// factor's latency, so each takes one reciprocal square root and no division (rsqrt: 2 ulp; the
// direct method's residual check and refinement see the rest).
inline void factor_in_local(__local double (*l)[NB + 1], __local double* pivots, __local double* dinv, uint k0,
                            __global double* block, uint lda, __global double* w, __global uint* failed,
                            uint side) {
  const uint t = get_local_id(0), items = side * side, ty = t / side, tx = t % side;
  for (uint j = 0; j < NB; ++j) {
    const double d = l[j][j];
    const double inverse = d > 0.0 ? rsqrt(d) : 1.0;
    if (t == 0) {
      pivots[j] = d > 0.0 ? d * inverse : 1.0;
      dinv[j] = inverse;
      if (!(d > 0.0) && *failed == 0) *failed = k0 + j + 1;
    }
    for (uint i = j + 1 + t; i < NB; i += items) l[i][j] *= inverse;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = j + 1 + ty; i < NB; i += side) {  // the trailing lower triangle
      const double lij = l[i][j];
      for (uint c = j + 1 + tx; c <= i; c += side) l[i][c] = fma(-lij, l[c][j], l[i][c]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // W = L11^-1 by forward substitution on the identity, all columns at once: X = I; for each m,
  // X[m, :] /= L[m, m], then X[i, :] -= L[i, m] X[m, :] below it. X's strictly lower part is kept
  // transposed in l's upper triangle (l[c][i], c < i), its diagonal (1 / L[m, m]) in dinv.
  for (uint e = t; e < NB * NB; e += items)
    if (e % NB < e / NB) l[e % NB][e / NB] = 0.0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint m = 0; m < NB; ++m) {
    const double inverse = dinv[m];
    for (uint c = t; c < m; c += items) l[c][m] *= inverse;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = m + 1 + ty; i < NB; i += side) {
      const double lim = l[i][m];
      for (uint c = tx; c <= m; c += side) l[c][i] = fma(-lim, c < m ? l[c][m] : dinv[m], l[c][i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint e = t; e < NB * NB; e += items) {
    const uint i = e % NB, c = e / NB;
    if (i > c) block[(size_t)c * lda + i] = l[i][c];
    else if (i == c) block[(size_t)c * lda + i] = pivots[i];
    w[e] = c < i ? l[c][i] : c == i ? dinv[i] : 0.0;
  }
}

// ---- factor_diagonal: the first diagonal block (the others are factored by update) ----
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void factor_diagonal(uint lda, __global double* a,
                                                                              __global double* winv,
                                                                              __global uint* failed) {
  __local double l[NB][NB + 1];
  __local double pivots[NB], dinv[NB];
  for (uint e = get_local_id(0); e < NB * NB; e += 64) l[e % NB][e / NB] = a[(size_t)(e / NB) * lda + e % NB];
  barrier(CLK_LOCAL_MEM_FENCE);
  factor_in_local(l, pivots, dinv, 0, a, lda, winv, failed, 8);
}

// One 64 x 64 tile of C += sign * X Y^T with X, Y column-major (leading dimensions ldx, ldy),
// inner dimension NB: each work-item holds 4 x 4 entries, rows tx + 16 i, columns ty + 16 j.
inline void tile_product(__global const double* x, uint ldx, __global const double* y, uint ldy,
                         double acc[4][4], __local double (*xs)[KC + 1], __local double (*ys)[KC + 1]) {
  const uint t = get_local_id(0), tx = t % 16, ty = t / 16;
  for (uint m0 = 0; m0 < NB; m0 += KC) {
    for (uint e = t; e < NB * KC; e += TILE_ITEMS) {
      const uint r = e % NB, m = e / NB;
      xs[r][m] = x[(size_t)(m0 + m) * ldx + r];
      ys[r][m] = y[(size_t)(m0 + m) * ldy + r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint m = 0; m < KC; ++m) {
      double xv[4], yv[4];
      for (uint i = 0; i < 4; ++i) xv[i] = xs[tx + 16 * i][m];
      for (uint j = 0; j < 4; ++j) yv[j] = ys[ty + 16 * j][m];
      for (uint i = 0; i < 4; ++i)
        for (uint j = 0; j < 4; ++j) acc[i][j] = fma(xv[i], yv[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// ---- panel: L21 = A21 W^T for the rows below block k0, a 64-row tile a group, in place ----
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void panel(uint lda, uint k0,
                                                                           __global double* a,
                                                                           __global const double* winv) {
  __local double xs[NB][KC + 1], ys[NB][KC + 1];
  const uint r0 = k0 + NB + NB * get_group_id(0), t = get_local_id(0), tx = t % 16, ty = t / 16;
  double acc[4][4] = {{0}};
  __global double* rows = a + (size_t)k0 * lda + r0;
  tile_product(rows, lda, winv + (size_t)(k0 / NB) * NB * NB, NB, acc, xs, ys);
  // (only this group reads these rows of the panel, and it has read them all)
  for (uint i = 0; i < 4; ++i)
    for (uint j = 0; j < 4; ++j) rows[(size_t)(ty + 16 * j) * lda + tx + 16 * i] = acc[i][j];
}

// ---- update: A22 -= L21 L21^T on the tiles (ti, tj), ti >= tj, of the trailing matrix ----
// Group 0's tile is the next diagonal block, now final: that group factors it in place (one
// launch less a block, and the factor's serial steps run beside the other tiles' updates).
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void update(uint lda, uint k0,
                                                                            __global double* a,
                                                                            __global double* winv,
                                                                            __global uint* failed) {
  __local double scratch[NB * (NB + 1)];  // the tile product's slices, then group 0's block
  __local double pivots[NB], dinv[NB];
  __local double(*xs)[KC + 1] = (__local double(*)[KC + 1])scratch;
  __local double(*ys)[KC + 1] = xs + NB;
  const uint g = get_group_id(0);
  uint ti = (uint)((sqrt(8.0 * g + 1.0) - 1.0) / 2.0);  // g = ti (ti + 1) / 2 + tj, tj <= ti
  while (ti * (ti + 1) / 2 > g) --ti;
  while ((ti + 1) * (ti + 2) / 2 <= g) ++ti;
  const uint tj = g - ti * (ti + 1) / 2;
  const uint r0 = k0 + NB + NB * ti, c0 = k0 + NB + NB * tj, t = get_local_id(0), tx = t % 16, ty = t / 16;
  double acc[4][4] = {{0}};
  tile_product(a + (size_t)k0 * lda + r0, lda, a + (size_t)k0 * lda + c0, lda, acc, xs, ys);
  __global double* c = a + (size_t)c0 * lda + r0;
  if (g != 0) {
    for (uint i = 0; i < 4; ++i)
      for (uint j = 0; j < 4; ++j) c[(size_t)(ty + 16 * j) * lda + tx + 16 * i] -= acc[i][j];
    return;
  }
  __local double(*l)[NB + 1] = (__local double(*)[NB + 1])scratch;  // (tile_product ended with a barrier)
  for (uint i = 0; i < 4; ++i)
    for (uint j = 0; j < 4; ++j) {
      const uint row = tx + 16 * i, col = ty + 16 * j;
      l[row][col] = c[(size_t)col * lda + row] - acc[i][j];
    }
  barrier(CLK_LOCAL_MEM_FENCE);
  factor_in_local(l, pivots, dinv, c0, c, lda, winv + (size_t)(c0 / NB) * NB * NB, failed, 16);
}

// ---- The solves: one launch a block, every group recomputing the block's 64 x 64 product ----
// (a launch a block is the step across the whole grid the substitution needs; the few-microsecond
// products repeated by each group cost less than a second launch would).
// sum_m p[m stride] v[m] over the block's NB values, in eight sums: eight loads in flight.
inline double block_dot(__global const double* p, size_t stride, __local const double* v) {
  double s[8] = {0};
  for (uint m = 0; m < NB; m += 8)
    for (uint q = 0; q < 8; ++q) s[q] = fma(p[(m + q) * stride], v[m + q], s[q]);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// forward, block k0: y[k0..] = W z[k0..] (group 0 writes it), then z[r] -= L[r, k0..] y for the
// rows below the block, a slice a group: z is the right-hand side being reduced.
__kernel void forward(uint lda, uint k0, __global const double* a, __global const double* winv,
                      __global double* z, __global double* y) {
  __local double yb[NB];
  const uint t = get_local_id(0);
  __global const double* w = winv + (size_t)(k0 / NB) * NB * NB;
  for (uint i = t; i < NB; i += get_local_size(0)) {
    double s = 0.0;
    for (uint m = 0; m <= i; ++m) s = fma(w[i + m * NB], z[k0 + m], s);
    yb[i] = s;
    if (get_group_id(0) == 0) y[k0 + i] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint r = k0 + NB + get_global_id(0); r < lda; r += get_global_size(0))
    z[r] -= block_dot(a + (size_t)k0 * lda + r, lda, yb);
}

// backward, block k0 (the last first): x[k0..] = W^T y[k0..] (group 0 writes it), then
// y[c] -= sum_m L[k0 + m, c] x[k0 + m] for the columns c above the block, a work-item a column
// (its 64 values of L adjacent in memory).
__kernel void backward(uint lda, uint k0, __global const double* a, __global const double* winv,
                       __global double* y, __global double* x) {
  __local double xb[NB];
  const uint t = get_local_id(0);
  __global const double* w = winv + (size_t)(k0 / NB) * NB * NB;
  for (uint i = t; i < NB; i += get_local_size(0)) {
    double s = 0.0;
    for (uint m = i; m < NB; ++m) s = fma(w[m + i * NB], y[k0 + m], s);
    xb[i] = s;
    if (get_group_id(0) == 0) x[k0 + i] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint c = get_global_id(0); c < k0; c += get_global_size(0)) y[c] -= block_dot(a + (size_t)c * lda + k0, 1, xb);
}
