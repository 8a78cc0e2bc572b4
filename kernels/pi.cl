// The pi example from the seeds: pi = integral over [0, 1] of 4 / (1 + x^2), by the midpoint
// rule with n intervals. Each work-item sums the points i = gid, gid + global size, ... in a
// register, stores its sum in local memory, and the group reduces those sums to one partial
// per group; the host finishes the partials and multiplies by the step 1/n.
// REAL comes from -D REAL (common.cl defaults it); both kernels take any work-group size up to
// the device's, the tree one a power of two.

inline REAL pi_point(ulong i, REAL step) {
  const REAL x = ((REAL)i + (REAL)0.5) * step;
  return (REAL)4 / ((REAL)1 + x * x);
}

// This work-item's share of the sum over all n points (grid-stride, so any n fits any launch).
inline REAL pi_work_item_sum(ulong n) {
  const REAL step = (REAL)1 / (REAL)n;
  REAL sum = 0;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) sum += pi_point(i, step);
  return sum;
}

// (a) The pi article's kernel 1: work-item 0 adds the group's sums alone, in order.
__kernel void pi_serial(ulong n, __global REAL* partials, __local REAL* scratch) {
  const uint lid = get_local_id(0);
  scratch[lid] = pi_work_item_sum(n);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    REAL group_sum = scratch[0];
    for (uint k = 1; k < get_local_size(0); ++k) group_sum += scratch[k];
    partials[get_group_id(0)] = group_sum;
  }
}

// (b) The same with a tree: the stride halves each level, so the active work-items stay
// contiguous; every level ends with a barrier (no warp-synchronous assumptions).
__kernel void pi_tree(ulong n, __global REAL* partials, __local REAL* scratch) {
  const uint lid = get_local_id(0);
  scratch[lid] = pi_work_item_sum(n);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[get_group_id(0)] = scratch[0];
}
