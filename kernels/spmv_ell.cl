// ELLPACK SpMV for matrices whose rows are all about as long (stencils, meshes): every row
// padded to `width` entries, stored column-major (entry k of row i at k * rows + i), so the
// work-items of a warp read consecutive addresses. Padding repeats the row's last column (column 0
// for an empty row) with a zero value: no branch in the loop, that x is in cache anyway, and it
// exists in a rectangular matrix too (P has more rows than columns: the row's own index would not).

// Builds the ELL arrays from CSR on the device (one work-item per row); without the columns,
// the values only (new values on the same pattern: half the bytes).
__kernel void csr_to_ell(const uint rows, const uint width, __global const int* row_ptr, __global const int* col_idx,
                         __global const REAL* values, const int with_columns, __global int* ell_col,
                         __global REAL* ell_val) {
  CLCG_FOR_EACH(uint, row, rows) {
    const int begin = row_ptr[row], length = row_ptr[row + 1] - begin;
    const int pad_col = length > 0 ? col_idx[begin + length - 1] : 0;
    for (uint k = 0; k < width; ++k) {
      const bool stored = (int)k < length;
      if (with_columns) ell_col[(size_t)k * rows + row] = stored ? col_idx[begin + k] : pad_col;
      ell_val[(size_t)k * rows + row] = stored ? values[begin + k] : (REAL)0;
    }
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
