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

// ---- C = A B, row by row. Row i of C sums, for each entry k of A's row in its stored order,
// a_k times row a_col[k] of B: every column of C is summed in that order, whichever of the
// three kernels below computes the row, so all give the same sums (and the same bits on every
// run). For `fill` 0 a kernel writes row i's count to c_row[i]; for `fill` 1, c_row holds C's row
// pointers and the columns (sorted) and values are written.
//
// Rows of A with at most SHORT_ROW entries are merged by one work-item with its heads in private
// memory (spgemm_short_rows); longer ones by a group of HASH_GROUP work-items with a hash table
// in local memory (spgemm_hashed); a row of C with more than HASH_CAP columns by one work-item
// merging through scratch in global memory (spgemm_rows).
#define SHORT_ROW 16
#define HASH_GROUP 32
#define HASH_SLOTS 512
#define HASH_CAP 384
#define HASH_STAGE 128

// The merge: each entry k of A's row keeps its place in its row of B (cursor), that row's end
// and the column there (head; INT_MAX once done); one pass over the heads sums the smallest
// column and finds the next. cursor, end and head are indexed from 0 over A's row.
#define MERGE_ROW(cursor, end, head)                                                              \
  {                                                                                               \
    const int a_begin = a_row[i], a_len = a_row[i + 1] - a_begin;                                 \
    int next = INT_MAX;                                                                           \
    for (int k = 0; k < a_len; ++k) {                                                             \
      const int at = b_row[a_col[a_begin + k]], stop = b_row[a_col[a_begin + k] + 1];             \
      cursor[k] = at;                                                                             \
      end[k] = stop;                                                                              \
      head[k] = at < stop ? b_col[at] : INT_MAX;                                                  \
      next = min(next, head[k]);                                                                  \
    }                                                                                             \
    int out = fill ? c_row[i] : 0;                                                                \
    while (next != INT_MAX) {                                                                     \
      const int column = next;                                                                    \
      REAL sum = 0;                                                                               \
      next = INT_MAX;                                                                             \
      for (int k = 0; k < a_len; ++k) {                                                           \
        int h = head[k];                                                                          \
        if (h == column) {                                                                        \
          const int at = cursor[k];                                                               \
          if (fill) sum += a_val[a_begin + k] * b_val[at];                                        \
          cursor[k] = at + 1;                                                                     \
          h = at + 1 < end[k] ? b_col[at + 1] : INT_MAX;                                          \
          head[k] = h;                                                                            \
        }                                                                                         \
        next = min(next, h);                                                                      \
      }                                                                                           \
      if (fill) {                                                                                 \
        c_col[out] = column;                                                                      \
        c_val[out] = sum;                                                                         \
      }                                                                                           \
      ++out;                                                                                      \
    }                                                                                             \
    if (!fill) c_row[i] = out;                                                                    \
  }

// Every row of A has at most SHORT_ROW entries.
__kernel void spgemm_short_rows(const uint rows, __global const int* a_row, __global const int* a_col,
                                __global const REAL* a_val, __global const int* b_row, __global const int* b_col,
                                __global const REAL* b_val, __global int* c_row, __global int* c_col,
                                __global REAL* c_val, const int fill) {
  CLCG_FOR_EACH(uint, i, rows) {
    int cursor[SHORT_ROW], end[SHORT_ROW], head[SHORT_ROW];
    MERGE_ROW(cursor, end, head)
  }
}

// The rows spgemm_hashed leaves: for `fill` 0 those it marked -1, for `fill` 1 those with more
// than HASH_CAP columns. Scratch: nnz(A) ints each for cursor, end and head.
__kernel void spgemm_rows(const uint rows, __global const int* a_row, __global const int* a_col,
                          __global const REAL* a_val, __global const int* b_row, __global const int* b_col,
                          __global const REAL* b_val, __global int* cursor_all, __global int* end_all,
                          __global int* head_all, __global int* c_row, __global int* c_col, __global REAL* c_val,
                          const int fill) {
  CLCG_FOR_EACH(uint, i, rows) {
    if (fill ? c_row[i + 1] - c_row[i] <= HASH_CAP : c_row[i] >= 0) continue;
    __global int* cursor = cursor_all + a_row[i];
    __global int* end = end_all + a_row[i];
    __global int* head = head_all + a_row[i];
    MERGE_ROW(cursor, end, head)
  }
}

inline int hash_slot(const int column) { return (int)(((uint)column * 2654435761u) >> 23); }  // 9 bits: HASH_SLOTS

// One group of HASH_GROUP work-items a row: the columns of C's row are found in a hash table
// in local memory (integer atomics only place them), then each row of B named by A's row adds
// a_k b_kj into its columns' slots, the work-items sharing the row of B (its columns are
// unique, so no two write one slot) and a barrier between rows of B, so every slot sums in A's
// order. The columns are ranked among each other to write C's row sorted. A row of C with more
// than HASH_CAP columns is left to spgemm_rows: marked -1 when counting (and *overflow set),
// skipped when filling.
__kernel __attribute__((reqd_work_group_size(HASH_GROUP, 1, 1)))
void spgemm_hashed(const uint rows, __global const int* a_row, __global const int* a_col,
                   __global const REAL* a_val, __global const int* b_row, __global const int* b_col,
                   __global const REAL* b_val, __global int* c_row, __global int* c_col, __global REAL* c_val,
                   const int fill, __global int* overflow) {
  __local int key[HASH_SLOTS];
  __local REAL sum[HASH_SLOTS];
  // A's row, HASH_STAGE entries at a time: where their rows of B begin and end, and a_k (loaded
  // by all work-items at once, rather than one dependent load after another for each k).
  __local int stage_begin[HASH_STAGE], stage_end[HASH_STAGE];
  __local REAL stage_a[HASH_STAGE];
  __local volatile int found;
  const int lane = (int)get_local_id(0);
  for (uint i = get_group_id(0); i < rows; i += get_num_groups(0)) {
    if (fill && c_row[i + 1] - c_row[i] > HASH_CAP) continue;  // the same for the whole group
    for (int s = lane; s < HASH_SLOTS; s += HASH_GROUP) {
      key[s] = -1;
      sum[s] = 0;
    }
    if (lane == 0) found = 0;
    for (int k0 = a_row[i]; k0 < a_row[i + 1]; k0 += HASH_STAGE) {
      const int staged = min(HASH_STAGE, a_row[i + 1] - k0);
      barrier(CLK_LOCAL_MEM_FENCE);  // the table is cleared, or the last stage is used up
      for (int s = lane; s < staged; s += HASH_GROUP) {
        const int j = a_col[k0 + s];
        stage_begin[s] = b_row[j];
        stage_end[s] = b_row[j + 1];
        stage_a[s] = a_val[k0 + s];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int s = 0; s < staged; ++s) {
        const REAL a = stage_a[s];
        for (int t = stage_begin[s] + lane; t < stage_end[s] && found <= HASH_CAP; t += HASH_GROUP) {
          const int column = b_col[t];
          int slot = hash_slot(column);
          for (;;) {  // at most HASH_CAP + HASH_GROUP of the slots fill: a free one is always found
            const int there = atomic_cmpxchg(&key[slot], -1, column);
            if (there == -1) atomic_inc(&found);
            if (there == -1 || there == column) break;
            slot = (slot + 1) & (HASH_SLOTS - 1);
          }
          if (fill) sum[slot] += a * b_val[t];
        }
        if (fill) barrier(CLK_LOCAL_MEM_FENCE);  // the next row of B may add to the same slots
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int columns = found;
    if (!fill) {
      if (lane == 0) {
        c_row[i] = columns <= HASH_CAP ? columns : -1;
        if (columns > HASH_CAP) *overflow = 1;
      }
    } else {
      const int out = c_row[i];
      for (int s = lane; s < HASH_SLOTS; s += HASH_GROUP) {
        const int column = key[s];
        if (column < 0) continue;
        int rank = 0;
        for (int r = 0; r < HASH_SLOTS; ++r) rank += (uint)key[r] < (uint)column;  // -1: never less
        c_col[out + rank] = column;
        c_val[out + rank] = sum[s];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next row clears the table
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

// Each row of T sorted by column (columns unique). A row of up to SORT_CAP entries is sorted
// by a group in local memory: each entry's place is the number of smaller columns. Longer rows
// are left to sort_long_rows.
#define SORT_CAP 512

__kernel __attribute__((reqd_work_group_size(HASH_GROUP, 1, 1)))
void sort_rows(const uint rows, __global const int* row, __global int* col, __global REAL* val) {
  __local int c[SORT_CAP];
  __local REAL v[SORT_CAP];
  const int lane = (int)get_local_id(0);
  for (uint i = get_group_id(0); i < rows; i += get_num_groups(0)) {
    const int begin = row[i], length = row[i + 1] - begin;
    if (length > SORT_CAP) continue;  // the same for the whole group
    for (int s = lane; s < length; s += HASH_GROUP) {
      c[s] = col[begin + s];
      v[s] = val[begin + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lane; s < length; s += HASH_GROUP) {
      const int mine = c[s];
      int rank = 0;
      for (int r = 0; r < length; ++r) rank += c[r] < mine;
      col[begin + rank] = mine;
      val[begin + rank] = v[s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next row is loaded
  }
}

// Rows longer than SORT_CAP: shell sort by one work-item (gaps 57, 23, 10, 4, 1, Ciura's).
__kernel void sort_long_rows(const uint rows, __global const int* row, __global int* col, __global REAL* val) {
  const int gaps[5] = {57, 23, 10, 4, 1};
  CLCG_FOR_EACH(uint, i, rows) {
    const int begin = row[i], end = row[i + 1];
    if (end - begin <= SORT_CAP) continue;
    for (int g = 0; g < 5; ++g) {
      const int gap = gaps[g];
      for (int k = begin + gap; k < end; ++k) {
        const int c = col[k];
        const REAL v = val[k];
        int j = k - gap;
        while (j >= begin && col[j] > c) {
          col[j + gap] = col[j];
          val[j + gap] = val[j];
          j -= gap;
        }
        col[j + gap] = c;
        val[j + gap] = v;
      }
    }
  }
}
