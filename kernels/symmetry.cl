// The symmetry check on the device (solver/sparse/symmetry.cpp): for each stored entry k =
// (i, j) of a CSR matrix with sorted rows, mismatch[k] = |a_ij - a_ji|, a_ji found by a binary
// search of row j (0 where row j does not store column i). The largest mismatch and where it
// is are then an argmax reduction (clcg::reduction).
__kernel void csr_symmetry_mismatch(const uint rows, __global const int* row_ptr, __global const int* col_idx,
                                    __global const REAL* values, __global REAL* mismatch) {
  CLCG_FOR_EACH(uint, i, rows) {
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const int j = col_idx[k];
      int low = row_ptr[j], high = row_ptr[j + 1];
      while (low < high) {  // the first entry of row j with column >= i
        const int middle = low + (high - low) / 2;
        if (col_idx[middle] < (int)i) low = middle + 1;
        else high = middle;
      }
      const REAL mirror = low < row_ptr[j + 1] && col_idx[low] == (int)i ? values[low] : (REAL)0;
      mismatch[k] = fabs(values[k] - mirror);
    }
  }
}
