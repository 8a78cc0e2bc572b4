// Variant `unrolled` (PCL completely-unroll): grid_stride with the work-group size fixed at
// compile time (-D WG_SIZE, a power of two), so the strided loop is unrolled by UNROLL and
// every tree level is a straight-line step (still one barrier per level).
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef UNROLL
#define UNROLL 16  // H100, 10^8 doubles: dot 2.2% and sum 0.6% faster than 4 (same bits)
#endif
#if (WG_SIZE & (WG_SIZE - 1)) != 0
#error "WG_SIZE must be a power of two"
#endif

#define TREE_LEVEL(s)                                                          \
  if (WG_SIZE > (s)) {                                                         \
    if (lid < (s)) scratch[lid] = ACC_COMBINE(scratch[lid], scratch[lid + (s)]); \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
  }

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const uint lid = get_local_id(0);
  const size_t stride = get_global_size(0);
  ACC_T acc = ACC_IDENTITY;
  size_t i = get_global_id(0);
  // UNROLL independent loads in flight per trip; the combine order stays i, i+stride, ...
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    ACC_T loaded[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) loaded[u] = ACC_LOAD(i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc = ACC_COMBINE(acc, loaded[u]);
  }
  for (; i < n; i += stride) acc = ACC_COMBINE(acc, ACC_LOAD(i));
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  TREE_LEVEL(2048)
  TREE_LEVEL(1024)
  TREE_LEVEL(512)
  TREE_LEVEL(256)
  TREE_LEVEL(128)
  TREE_LEVEL(64)
  TREE_LEVEL(32)
  TREE_LEVEL(16)
  TREE_LEVEL(8)
  TREE_LEVEL(4)
  TREE_LEVEL(2)
  TREE_LEVEL(1)
  if (lid == 0) STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), scratch[0]);
}
