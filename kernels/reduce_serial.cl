// Variant `serial` (the pi article's kernel 1): each work-item loads one element into local
// memory, then work-item 0 combines the whole group alone, in order.
__kernel void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const size_t gid = get_global_id(0);
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  scratch[lid] = gid < n ? ACC_LOAD(gid) : ACC_IDENTITY;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ACC_T acc = scratch[0];
    for (uint i = 1; i < size; ++i) acc = ACC_COMBINE(acc, scratch[i]);
    STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), acc);
  }
}
