// The distributed CG's kernels (solver/distributed/): the SpMV of a rank's rows, the halo's
// pack, and dot partials over fixed global chunks. Every result here depends only on the data
// and on CHUNK / WG_SIZE (fixed for a global problem), never on which rank runs it, so the
// solve has the same bits for any number of ranks.
// -D REAL=..., -D CHUNK=... (elements per dot chunk) and -D DOT_WG=... (its work-group, a
// power of two dividing CHUNK) come from the host; the defaults only let the file build alone.
#ifndef CHUNK
#define CHUNK 256
#endif
#ifndef DOT_WG
#define DOT_WG 256
#endif

// y[row] = sum over j of values[j] * x[col[j]] for the listed rows, j in stored order: one
// work-item per row, so a row's sum has one order whatever rows its rank holds. row_ptr is
// 64-bit (a rank may hold more than 2^31 nonzeros); columns are local (owned, then ghosts).
__kernel void spmv_row_list(uint count, __global const uint* rows, __global const ulong* row_ptr,
                            __global const int* col, __global const REAL* values, __global const REAL* x,
                            __global REAL* y) {
  CLCG_FOR_EACH(uint, i, count) {
    const uint row = rows[i];
    const ulong end = row_ptr[row + 1];
    REAL sum = 0;
    for (ulong j = row_ptr[row]; j < end; ++j) sum += values[j] * x[col[j]];
    y[row] = sum;
  }
}

// out[i] = x[index[i]]: the owned values a neighbour needs, gathered for one transfer.
__kernel void pack(uint count, __global const uint* index, __global const REAL* x, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, count) out[i] = x[index[i]];
}

// partials[d * groups + g] = the sum over chunk g (elements g*CHUNK .. +CHUNK, cut at n) of
// a_d[i] * b_d[i], for d < dots (1 to 3). Work-item l takes elements l, l + DOT_WG, ... of its
// chunk, then a halving tree: the same order for a chunk wherever it lives. Accumulates in
// double where the device has it.
#ifdef REAL_IS_DOUBLE
#define ACC double
#else
#define ACC float
#endif
__kernel __attribute__((reqd_work_group_size(DOT_WG, 1, 1)))
void chunk_dots(ulong n, uint dots, __global const REAL* a0, __global const REAL* b0, __global const REAL* a1,
                __global const REAL* b1, __global const REAL* a2, __global const REAL* b2,
                __global ACC* partials) {
  __local ACC scratch[3][DOT_WG];
  const uint lid = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
  const ulong begin = (ulong)g * CHUNK;
  ACC s0 = 0, s1 = 0, s2 = 0;
  for (uint k = lid; k < CHUNK; k += DOT_WG) {
    const ulong i = begin + k;
    if (i >= n) break;
    s0 += (ACC)a0[i] * (ACC)b0[i];
    if (dots > 1) s1 += (ACC)a1[i] * (ACC)b1[i];
    if (dots > 2) s2 += (ACC)a2[i] * (ACC)b2[i];
  }
  scratch[0][lid] = s0;
  scratch[1][lid] = s1;
  scratch[2][lid] = s2;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = DOT_WG / 2; width > 0; width /= 2) {
    if (lid < width)
      for (uint d = 0; d < 3; ++d) scratch[d][lid] += scratch[d][lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    for (uint d = 0; d < dots; ++d) partials[d * groups + g] = scratch[d][0];
}
