// ELLPACK SpMV for matrices whose rows are all about as long (stencils, meshes): every row
// padded to `width` entries, stored column-major (entry k of row i at k * rows + i), so the
// work-items of a warp read consecutive addresses. Padding repeats the row's last column (column 0
// for an empty row) with a zero value: no branch in the loop, that x is in cache anyway, and it
// exists in a rectangular matrix too (P has more rows than columns: the row's own index would not).

// Builds the ELL arrays from CSR on the device; without the columns, the values only (new values
// on the same pattern: half the bytes). A group of ELL_GROUP work-items takes as many rows: their
// entries, one block of CSR, read side by side into local memory where they fit (ELL_STAGE: rows
// of up to 64, every matrix `auto` keeps as ELL), then each work-item writes its row's slots, the
// group's rows side by side in each column. (A work-item a row reading its own entries took 16.7
// ms for an AMG coarse level of 12M rows of 34 on an H200.) Launched in groups of ELL_GROUP
// (spmv.hpp's enqueue_csr_to_ell).
#define ELL_GROUP 32
#define ELL_STAGE 2048
__kernel __attribute__((reqd_work_group_size(ELL_GROUP, 1, 1)))
void csr_to_ell(const uint rows, const uint width, __global const int* row_ptr, __global const int* col_idx,
                __global const REAL* values, const int with_columns, __global int* ell_col, __global REAL* ell_val) {
  __local int stage_col[ELL_STAGE];
  __local REAL stage_val[ELL_STAGE];
  const uint lid = get_local_id(0);
  for (uint base = get_group_id(0) * ELL_GROUP; base < rows; base += get_num_groups(0) * ELL_GROUP) {
    const uint row = base + lid;
    const int first = row_ptr[base], last = row_ptr[min(rows, base + ELL_GROUP)];
    const bool staged = last - first <= ELL_STAGE;  // (the same for the whole group)
    if (staged)
      for (int e = first + (int)lid; e < last; e += ELL_GROUP) {
        if (with_columns) stage_col[e - first] = col_idx[e];
        stage_val[e - first] = values[e];
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (row < rows) {
      const int begin = row_ptr[row], length = row_ptr[row + 1] - begin, at = begin - first;
      if (with_columns) {
        const int pad_col = length == 0 ? 0 : staged ? stage_col[at + length - 1] : col_idx[begin + length - 1];
        for (int k = 0; k < (int)width; ++k)
          ell_col[(size_t)k * rows + row] = k >= length ? pad_col : staged ? stage_col[at + k] : col_idx[begin + k];
      }
      for (int k = 0; k < (int)width; ++k)
        ell_val[(size_t)k * rows + row] = k >= length ? (REAL)0 : staged ? stage_val[at + k] : values[begin + k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // (the stage is rewritten by the next pass)
  }
}

// y = A x, one work-item per row.
__kernel void spmv_ell(const uint rows, const uint width, __global const int* ell_col, __global const REAL* ell_val,
                       __global const REAL* x, __global REAL* y) {
  CLCG_FOR_EACH(uint, row, rows) {
    REAL sum = 0;
    for (uint k = 0; k < width; ++k) sum += ell_val[(size_t)k * rows + row] * x[ell_col[(size_t)k * rows + row]];
    y[row] = sum;
  }
}
