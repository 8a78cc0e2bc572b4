// Variant `sequential` (dournac sumGPU): one element per work-item, then a tree with halving
// stride, so the active work-items stay contiguous (no divergence inside a warp, no bank
// conflicts).
__kernel void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const size_t gid = get_global_id(0);
  const uint lid = get_local_id(0);
  scratch[lid] = gid < n ? ACC_LOAD(gid) : ACC_IDENTITY;
  barrier(CLK_LOCAL_MEM_FENCE);
  clcg_tree_sequential(scratch, lid, get_local_size(0));
  if (lid == 0) STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), scratch[0]);
}
