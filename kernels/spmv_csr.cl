// CSR sparse matrix-vector products y = A x, and the CSR helpers CG needs.
// A is stored as row_ptr[rows + 1], col_idx[nnz] (32-bit, 0-based, columns sorted within a
// row) and values[nnz] of type REAL. Every kernel loops over rows with a stride, so any
// launch shape covers any size. Each row is always summed in the same order for a given
// vector_size, so results do not depend on the number of groups launched.

// Work-group size of spmv_csr_vector (the host passes the one it launches with).
#ifndef WG_SIZE
#define WG_SIZE 128
#endif

// Scalar CSR: one work-item per row. Best when rows are short (few nonzeros per row).
__kernel void spmv_csr_scalar(const uint rows, __global const int* row_ptr, __global const int* col_idx,
                              __global const REAL* values, __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, row, rows) {
    const int end = row_ptr[row + 1];
    REAL sum = 0;
    for (int j = row_ptr[row]; j < end; ++j) sum += values[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

// Vector CSR: vector_size work-items per row (a power of two <= WG_SIZE), each summing a
// strided part of the row, then a tree in local memory. Every step of the tree is separated
// by a barrier: nothing relies on work-items running in lock-step. All work-items of a group
// run the same number of passes (base depends only on the group), so every one reaches every
// barrier; work-items past the last row contribute 0.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void spmv_csr_vector(const uint rows, const uint vector_size, __global const int* row_ptr,
                     __global const int* col_idx, __global const REAL* values, __global const REAL* x,
                     __global REAL* y) {
  __local REAL partial[WG_SIZE];
  const uint lid = get_local_id(0);
  const uint lane = lid & (vector_size - 1);
  const uint rows_per_group = WG_SIZE / vector_size;
  const uint row_in_group = lid / vector_size;
  const uint stride = get_num_groups(0) * rows_per_group;
  for (uint base = get_group_id(0) * rows_per_group; base < rows; base += stride) {
    const uint row = base + row_in_group;
    REAL sum = 0;
    if (row < rows) {
      const int end = row_ptr[row + 1];
      for (int j = row_ptr[row] + (int)lane; j < end; j += (int)vector_size) sum += values[j] * x[col_idx[j]];
    }
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = vector_size / 2; s > 0; s >>= 1) {
      if (lane < s) partial[lid] += partial[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && row < rows) y[row] = partial[lid];
    barrier(CLK_LOCAL_MEM_FENCE);  // partial[] is rewritten by the next pass
  }
}

#ifdef cl_khr_fp64
// r = b - A x computed in double whatever REAL is (the true residual of a float solve).
__kernel void csr_residual_f64(const uint rows, __global const int* row_ptr, __global const int* col_idx,
                               __global const REAL* values, __global const REAL* x, __global const REAL* b,
                               __global double* r) {
  CLCG_FOR_EACH(uint, row, rows) {
    const int end = row_ptr[row + 1];
    double sum = 0;
    for (int j = row_ptr[row]; j < end; ++j) sum += (double)values[j] * (double)x[col_idx[j]];
    r[row] = (double)b[row] - sum;
  }
}
#endif
