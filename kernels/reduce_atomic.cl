// Variant `atomic` (the seeds' "slow built-in" baseline): grid_stride and a tree per group,
// then work-item 0 folds the group's partial into partial_values[0] (or, for arg
// operations, the index in partial_indices[0]) with an integer compare-and-swap loop; the
// host reads one result. Floating-point atomics do not exist in OpenCL 1.2, hence the CAS
// on the bit pattern. The order of the folds varies from run to run: nondeterministic.
// The host fills the result slot with the identity (arg ops: 0xFF bytes = "none") first.

#ifdef CLCG_ARG_OP
// The slot holds the best index so far (32 bits: n < 2^32 - 1); a candidate replaces it
// when it is better than the element the slot points at. x is read-only, so that is safe.
inline void clcg_atomic_fold(__global const REAL* x, volatile __global uint* slot, ACC_T mine) {
  for (;;) {
    const uint current = *slot;
    if (current != UINT_MAX) {
      const ACC_T held = clcg_make_arg(x[current], current);
      if (ACC_COMBINE(held, mine).index == held.index) return;
    }
    if (atomic_cmpxchg(slot, current, (uint)mine.index) == current) return;
  }
}
#elif defined(REAL_IS_DOUBLE)
inline void clcg_atomic_fold(__global const REAL* x, volatile __global ulong* slot, ACC_T mine) {
  (void)x;
  ulong expected = *slot;
  for (;;) {
    const ulong desired = as_ulong(ACC_COMBINE(as_double(expected), mine));
    const ulong seen = atom_cmpxchg(slot, expected, desired);
    if (seen == expected) return;
    expected = seen;
  }
}
#else
inline void clcg_atomic_fold(__global const REAL* x, volatile __global uint* slot, ACC_T mine) {
  (void)x;
  uint expected = *slot;
  for (;;) {
    const uint desired = as_uint(ACC_COMBINE(as_float(expected), mine));
    const uint seen = atomic_cmpxchg(slot, expected, desired);
    if (seen == expected) return;
    expected = seen;
  }
}
#endif

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
  if (lid == 0) {
#ifdef CLCG_ARG_OP
    if (scratch[0].index != ULONG_MAX)
      clcg_atomic_fold(x, (volatile __global uint*)partial_indices, scratch[0]);
#elif defined(REAL_IS_DOUBLE)
    clcg_atomic_fold(x, (volatile __global ulong*)partial_values, scratch[0]);
#else
    clcg_atomic_fold(x, (volatile __global uint*)partial_values, scratch[0]);
#endif
  }
}
