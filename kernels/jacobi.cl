// The Jacobi preconditioner M = diag(A): its setup on the device. Its apply, z = inv_diag .* r,
// is fused into the CG kernels (cg_update.cl, cg_fused.cl).

// inv_diag[i] = 1 / a_ii, or 1 where a_ii is 0 or not stored (Eigen's DiagonalPreconditioner).
__kernel void csr_inverse_diagonal(const uint rows, __global const int* row_ptr, __global const int* col_idx,
                                   __global const REAL* values, __global REAL* inv_diag) {
  CLCG_FOR_EACH(uint, row, rows) {
    REAL d = 0;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      if (col_idx[j] == (int)row) d += values[j];
    inv_diag[row] = d != (REAL)0 ? (REAL)1 / d : (REAL)1;
  }
}

// The same from an ELL copy (`width` entries a row, column-major: spmv_ell.cl's csr_to_ell),
// summed in the row's stored order: its padding (the row's last column, 0) adds nothing.
__kernel void ell_inverse_diagonal(const uint rows, const uint width, __global const int* ell_col,
                                   __global const REAL* ell_val, __global REAL* inv_diag) {
  CLCG_FOR_EACH(uint, row, rows) {
    REAL d = 0;
    for (uint k = 0; k < width; ++k)
      if (ell_col[(size_t)k * rows + row] == (int)row) d += ell_val[(size_t)k * rows + row];
    inv_diag[row] = d != (REAL)0 ? (REAL)1 / d : (REAL)1;
  }
}
