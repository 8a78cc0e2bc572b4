// Variant `interleaved` (OSU ArrayMultReduce): one element per work-item, then a tree whose
// active work-items are picked by a mask (tnum & mask), so they spread across the group.
__kernel void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const size_t gid = get_global_id(0);
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  scratch[lid] = gid < n ? ACC_LOAD(gid) : ACC_IDENTITY;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = 1; stride < size; stride <<= 1) {
    const uint mask = 2 * stride - 1;
    if ((lid & mask) == 0) scratch[lid] = ACC_COMBINE(scratch[lid], scratch[lid + stride]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), scratch[0]);
}
