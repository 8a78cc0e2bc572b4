// A dense Cholesky factor A = L L^T on the device (solver/direct/dense_device_cholesky.hpp), in
// double: right-looking by blocks of NB columns. A is n x n, column-major with leading dimension
// `lda`, a multiple of NB, padded with the identity so no kernel checks bounds. For block k:
// factor_diagonal (one group: L11, and W = L11^-1 kept for the panel and the solves), panel
// (L21 = A21 W^T, in place), update (A22 -= L21 L21^T on the lower tiles). mirror then copies L^T
// into the upper triangle so that both triangular solves read columns (coalesced).
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

// ---- factor_diagonal: the NB x NB block at (k0, k0), one group of TILE_ITEMS ----
// A pivot <= 0 (or NaN) records its column + 1 in *failed (the first one: blocks run in order)
// and is replaced by 1 so the rest stays finite.
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void factor_diagonal(
    uint lda, uint k0, __global double* a, __global double* winv, __global uint* failed) {
  __local double l[NB][NB + 1];
  const uint t = get_local_id(0);
  __global double* block = a + (size_t)k0 * lda + k0;
  for (uint e = t; e < NB * NB; e += TILE_ITEMS) l[e % NB][e / NB] = block[(size_t)(e / NB) * lda + e % NB];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = 0; j < NB; ++j) {
    if (t == 0) {
      const double d = l[j][j];
      if (!(d > 0.0)) {
        if (*failed == 0) *failed = k0 + j + 1;
        l[j][j] = 1.0;
      } else {
        l[j][j] = sqrt(d);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = j + 1 + t; i < NB; i += TILE_ITEMS) l[i][j] /= l[j][j];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint rest = NB - 1 - j;  // the trailing (rest x rest) lower triangle, row-major pairs
    for (uint e = t; e < rest * rest; e += TILE_ITEMS) {
      const uint i = j + 1 + e / rest, c = j + 1 + e % rest;
      if (c <= i) l[i][c] -= l[i][j] * l[c][j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint e = t; e < NB * NB; e += TILE_ITEMS) {
    const uint i = e % NB, c = e / NB;
    if (i >= c) block[(size_t)c * lda + i] = l[i][c];
  }
  // W = L11^-1 by forward substitution on the identity, all columns at once: X = I; for each m,
  // X[m, :] /= L[m, m], then X[i, :] -= L[i, m] X[m, :] below it. X's strictly lower part is kept
  // transposed in l's (unused) upper triangle, its diagonal in dinv.
  __local double dinv[NB];
  for (uint e = t; e < NB * NB; e += TILE_ITEMS)
    if (e % NB < e / NB) l[e % NB][e / NB] = 0.0;  // l[c][i], c < i: X[i][c]
  if (t < NB) dinv[t] = 1.0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint m = 0; m < NB; ++m) {
    const double pivot = l[m][m];
    for (uint c = t; c <= m; c += TILE_ITEMS) {
      if (c < m) l[c][m] /= pivot;
      else dinv[m] /= pivot;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint below = NB - 1 - m, width = m + 1;
    for (uint e = t; e < below * width; e += TILE_ITEMS) {
      const uint i = m + 1 + e / width, c = e % width;
      l[c][i] -= l[i][m] * (c < m ? l[c][m] : dinv[m]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global double* w = winv + (size_t)(k0 / NB) * NB * NB;
  for (uint e = t; e < NB * NB; e += TILE_ITEMS) {
    const uint i = e % NB, c = e / NB;
    w[e] = c < i ? l[c][i] : c == i ? dinv[i] : 0.0;
  }
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
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1))) void update(uint lda, uint k0,
                                                                            __global double* a) {
  __local double xs[NB][KC + 1], ys[NB][KC + 1];
  const uint g = get_group_id(0);
  uint ti = (uint)((sqrt(8.0 * g + 1.0) - 1.0) / 2.0);  // g = ti (ti + 1) / 2 + tj, tj <= ti
  while (ti * (ti + 1) / 2 > g) --ti;
  while ((ti + 1) * (ti + 2) / 2 <= g) ++ti;
  const uint tj = g - ti * (ti + 1) / 2;
  const uint r0 = k0 + NB + NB * ti, c0 = k0 + NB + NB * tj, t = get_local_id(0), tx = t % 16, ty = t / 16;
  double acc[4][4] = {{0}};
  tile_product(a + (size_t)k0 * lda + r0, lda, a + (size_t)k0 * lda + c0, lda, acc, xs, ys);
  __global double* c = a + (size_t)c0 * lda + r0;
  for (uint i = 0; i < 4; ++i)
    for (uint j = 0; j < 4; ++j) c[(size_t)(ty + 16 * j) * lda + tx + 16 * i] -= acc[i][j];
}

// ---- mirror: the upper triangle := L^T (a[r, c] = L[c, r] for r < c) ----
__kernel void mirror(uint lda, __global double* a) {
  const uint r = get_global_id(0), c = get_global_id(1);
  if (r < c && c < lda) a[(size_t)c * lda + r] = a[(size_t)r * lda + c];
}

// ---- The solves: one launch a block, every group recomputing the block's small product ----
// forward, block k0: y[k0..] = W z[k0..] (written by group 0), then z[r] -= L[r, k0..] y for
// the rows below the block, a slice of them a group. z is the right-hand side being reduced.
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
  for (uint r = k0 + NB + get_global_id(0); r < lda; r += get_global_size(0)) {
    double s = z[r];
    for (uint m = 0; m < NB; ++m) s = fma(-a[(size_t)(k0 + m) * lda + r], yb[m], s);
    z[r] = s;
  }
}

// backward, block k0 (last block first): x[k0..] = W^T y[k0..], then y[r] -= U[r, k0..] x for
// the rows above the block, U = L^T the upper triangle.
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
  for (uint r = get_global_id(0); r < k0; r += get_global_size(0)) {
    double s = y[r];
    for (uint m = 0; m < NB; ++m) s = fma(-a[(size_t)(k0 + m) * lda + r], xb[m], s);
    y[r] = s;
  }
}
