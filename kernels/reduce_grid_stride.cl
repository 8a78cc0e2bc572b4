// Variant `grid_stride` (PCL global-stride): a fixed number of groups; each work-item first
// combines a strided slice in registers (coalesced loads), then the group runs a tree.
__kernel void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const uint lid = get_local_id(0);
  const size_t stride = get_global_size(0);
  ACC_T acc = ACC_IDENTITY;
  for (size_t i = get_global_id(0); i < n; i += stride) acc = ACC_COMBINE(acc, ACC_LOAD(i));
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  clcg_tree_sequential(scratch, lid, get_local_size(0));
  if (lid == 0) STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), scratch[0]);
}
