// Sparse products on the device for the AMG set-up (solver/multigrid/sparse_product.hpp):
// C = A B and T = M^T in CSR, and the exclusive scan that turns row counts into row pointers.
// Every value is summed by one work-item in a fixed order: the same bits on every run, with
// no float atomics (integer atomics only count and place, and rows are sorted afterwards).

// ---- Exclusive scan of n counts in chunks of `chunk`: each chunk's total (and largest
// count) is read back, the chunk offsets are scanned on the host, then each chunk is scanned.
__kernel void scan_chunk_totals(const uint chunks, const uint chunk, const uint n, __global const int* counts,
                                __global long* totals, __global int* largest) {
  CLCG_FOR_EACH(uint, c, chunks) {
    const uint end = min(n, (c + 1) * chunk);
    long sum = 0;
    int most = 0;
    for (uint i = c * chunk; i < end; ++i) {
      sum += counts[i];
      most = max(most, counts[i]);
    }
    totals[c] = sum;
    largest[c] = most;
  }
}

__kernel void scan_chunks(const uint chunks, const uint chunk, const uint n, __global int* counts,
                          __global const long* offsets) {
  CLCG_FOR_EACH(uint, c, chunks) {
    const uint end = min(n, (c + 1) * chunk);
    long sum = offsets[c];
    for (uint i = c * chunk; i < end; ++i) {
      const int count = counts[i];
      counts[i] = (int)sum;
      sum += count;
    }
  }
}

// ---- C = A B, row by row: row i of C merges the rows of B that row i of A names (each sorted
// by column). Each entry k of A's row keeps, in scratch of nnz(A) ints, its place in its row
// of B (cursor), that row's end and the column there (head; INT_MAX once done); one pass over
// the row's heads sums the smallest column and finds the next. Each column of C is the sum
// over A's row in its stored order. For `fill` 0 the kernel writes row i's count to c_row[i];
// for `fill` 1, c_row holds C's row pointers and the columns (sorted) and values are written.
__kernel void spgemm_rows(const uint rows, __global const int* a_row, __global const int* a_col,
                          __global const REAL* a_val, __global const int* b_row, __global const int* b_col,
                          __global const REAL* b_val, __global int* cursor, __global int* end, __global int* head,
                          __global int* c_row, __global int* c_col, __global REAL* c_val, const int fill) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int a_begin = a_row[i], a_end = a_row[i + 1];
    int next = INT_MAX;
    for (int k = a_begin; k < a_end; ++k) {
      const int at = b_row[a_col[k]], stop = b_row[a_col[k] + 1];
      cursor[k] = at;
      end[k] = stop;
      head[k] = at < stop ? b_col[at] : INT_MAX;
      next = min(next, head[k]);
    }
    int out = fill ? c_row[i] : 0;
    while (next != INT_MAX) {
      const int column = next;
      REAL sum = 0;
      next = INT_MAX;
      for (int k = a_begin; k < a_end; ++k) {
        int h = head[k];
        if (h == column) {
          const int at = cursor[k];
          if (fill) sum += a_val[k] * b_val[at];
          cursor[k] = at + 1;
          h = at + 1 < end[k] ? b_col[at + 1] : INT_MAX;
          head[k] = h;
        }
        next = min(next, h);
      }
      if (fill) {
        c_col[out] = column;
        c_val[out] = sum;
      }
      ++out;
    }
    if (!fill) c_row[i] = out;
  }
}

// ---- T = M^T: entries per column of M (count zeroed first), then each entry placed at its
// column's next free slot (next: a copy of T's row pointers), then each row of T sorted by
// column, which fixes the order the placing left to chance.
__kernel void column_counts(const uint rows, __global const int* m_row, __global const int* m_col,
                            __global int* count) {
  CLCG_FOR_EACH(uint, i, rows)
  for (int k = m_row[i]; k < m_row[i + 1]; ++k) atomic_inc(&count[m_col[k]]);
}

__kernel void transpose_place(const uint rows, __global const int* m_row, __global const int* m_col,
                              __global const REAL* m_val, __global int* next, __global int* t_col,
                              __global REAL* t_val) {
  CLCG_FOR_EACH(uint, i, rows)
  for (int k = m_row[i]; k < m_row[i + 1]; ++k) {
    const int at = atomic_inc(&next[m_col[k]]);
    t_col[at] = (int)i;
    t_val[at] = m_val[k];
  }
}

// Insertion sort of each row by column (columns unique): rows come out of transpose_place
// nearly sorted, where it is close to linear.
__kernel void sort_rows(const uint rows, __global const int* row, __global int* col, __global REAL* val) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int begin = row[i], end = row[i + 1];
    for (int k = begin + 1; k < end; ++k) {
      const int c = col[k];
      const REAL v = val[k];
      int j = k - 1;
      while (j >= begin && col[j] > c) {
        col[j + 1] = col[j];
        val[j + 1] = val[j];
        --j;
      }
      col[j + 1] = c;
      val[j + 1] = v;
    }
  }
}
