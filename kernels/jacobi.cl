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
