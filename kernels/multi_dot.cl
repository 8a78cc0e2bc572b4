// Several dot products in one pass over up to four vectors v0..v3: dot k is
// v[DOT_Ak] . v[DOT_Bk] (-D NUM_DOTS=1..4, -D DOT_A0=0 -D DOT_B0=1 ...). Each vector element
// is loaded once; partials of dot k go to partials[k * get_num_groups(0) + group]. The loop
// adds in the order of the single-dot reductions with the same launch: grid_stride on a GPU,
// blocked (four accumulators per work-item) on a CPU, so both give the same bits.
#ifndef NUM_DOTS
#define NUM_DOTS 1
#define DOT_A0 0
#define DOT_B0 0
#endif
#ifndef NUM_VECTORS
#define NUM_VECTORS 4
#endif

#define LOADED(j) ((j) == 0 ? a0 : (j) == 1 ? a1 : (j) == 2 ? a2 : a3)

// Adds element i's products into accumulator set `lane`.
#define ACCUMULATE(i, lane)                                 \
  do {                                                      \
    const REAL a0 = v0[i];                                  \
    const REAL a1 = NUM_VECTORS > 1 ? v1[i] : 0;            \
    const REAL a2 = NUM_VECTORS > 2 ? v2[i] : 0;            \
    const REAL a3 = NUM_VECTORS > 3 ? v3[i] : 0;            \
    acc[0][lane] += LOADED(DOT_A0) * LOADED(DOT_B0);        \
    if (NUM_DOTS > 1) acc[1][lane] += LOADED(DOT_A1) * LOADED(DOT_B1); \
    if (NUM_DOTS > 2) acc[2][lane] += LOADED(DOT_A2) * LOADED(DOT_B2); \
    if (NUM_DOTS > 3) acc[3][lane] += LOADED(DOT_A3) * LOADED(DOT_B3); \
  } while (0)

#ifndef DOT_A1
#define DOT_A1 0
#define DOT_B1 0
#endif
#ifndef DOT_A2
#define DOT_A2 0
#define DOT_B2 0
#endif
#ifndef DOT_A3
#define DOT_A3 0
#define DOT_B3 0
#endif

__kernel void multi_dot_partials(__global const REAL* v0, __global const REAL* v1, __global const REAL* v2,
                                 __global const REAL* v3, ulong n, __global REAL* partials,
                                 __local REAL* scratch) {
  const uint lid = get_local_id(0);
  REAL acc[4][4];
  for (int k = 0; k < 4; ++k)
    for (int lane = 0; lane < 4; ++lane) acc[k][lane] = 0;
#ifdef CLCG_CONTIGUOUS
  const size_t block = (n + get_global_size(0) - 1) / get_global_size(0);
  const size_t begin = min((size_t)n, get_global_id(0) * block), end = min((size_t)n, begin + block);
  size_t i = begin;
  for (; i + 3 < end; i += 4) {
    ACCUMULATE(i, 0);
    ACCUMULATE(i + 1, 1);
    ACCUMULATE(i + 2, 2);
    ACCUMULATE(i + 3, 3);
  }
  for (; i < end; ++i) ACCUMULATE(i, 0);
#else
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) ACCUMULATE(i, 0);
#endif
  // One tree per dot over the same scratch; the barrier after each read protects the reuse.
  for (int k = 0; k < NUM_DOTS; ++k) {
    scratch[lid] = (acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3]);
    barrier(CLK_LOCAL_MEM_FENCE);
    clcg_tree_sequential(scratch, lid, get_local_size(0));
    if (lid == 0) partials[k * get_num_groups(0) + get_group_id(0)] = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
