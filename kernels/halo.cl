// The halo's pack (solver/distributed/device_halo.hpp): the owned values other ranks need,
// gathered into one buffer to read back and send.
__kernel void pack(uint count, __global const uint* index, __global const REAL* x, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, count) out[i] = x[index[i]];
}

// flags[row / chunk] = 1 for every row of a CSR matrix that reads a ghost (a column from
// `owned` on; flags zeroed first): the chunks a pass must leave until the ghosts are in.
__kernel void ghost_chunks(uint rows, int owned, uint chunk, __global const int* row_ptr, __global const int* col_idx,
                           __global uchar* flags) {
  CLCG_FOR_EACH(uint, row, rows) {
    const int end = row_ptr[row + 1];
    for (int j = row_ptr[row]; j < end; ++j)
      if (col_idx[j] >= owned) {
        flags[row / chunk] = 1;
        break;
      }
  }
}
