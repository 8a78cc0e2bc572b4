// Variant `blocked` (for CPUs): each work-item combines one contiguous block alone, in a
// plain loop with four independent accumulators (the loop is bound by memory, not by the
// latency of one add chain), then the group runs a tree; launched with groups of one
// work-item (clcg/cl/launch_policy.hpp), the tree is a no-op and nothing waits at a barrier.
// The combine order depends only on n and the launch shape: deterministic.
__kernel void reduce_partials(REDUCE_PARTIALS_ARGS) {
  x += x_offset;
  y += y_offset;
  const uint lid = get_local_id(0);
  const size_t block = (n + get_global_size(0) - 1) / get_global_size(0);
  const size_t begin = min(n, get_global_id(0) * block), end = min(n, begin + block);
  ACC_T acc0 = ACC_IDENTITY, acc1 = ACC_IDENTITY, acc2 = ACC_IDENTITY, acc3 = ACC_IDENTITY;
  size_t i = begin;
  for (; i + 3 < end; i += 4) {
    acc0 = ACC_COMBINE(acc0, ACC_LOAD(i));
    acc1 = ACC_COMBINE(acc1, ACC_LOAD(i + 1));
    acc2 = ACC_COMBINE(acc2, ACC_LOAD(i + 2));
    acc3 = ACC_COMBINE(acc3, ACC_LOAD(i + 3));
  }
  for (; i < end; ++i) acc0 = ACC_COMBINE(acc0, ACC_LOAD(i));
  scratch[lid] = ACC_COMBINE(ACC_COMBINE(acc0, acc1), ACC_COMBINE(acc2, acc3));
  barrier(CLK_LOCAL_MEM_FENCE);
  clcg_tree_sequential(scratch, lid, get_local_size(0));
  if (lid == 0) STORE_PARTIAL(partial_values, partial_indices, get_group_id(0), scratch[0]);
}
