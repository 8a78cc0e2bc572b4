// Sparse products on the device for the AMG set-up (solver/multigrid/sparse_product.hpp):
// C = A B and T = M^T in CSR, and the exclusive scan that turns row counts into row pointers.
// Every value is summed by one work-item in a fixed order: the same bits on every run, with
// no float atomics (integer atomics only count and place, and rows are sorted afterwards).
// Products are not fused into the sums (no FMA): the bits of the host's multiply(), which the
// distributed set-up (solver/distributed/rank_setup.hpp) is checked against.
#pragma OPENCL FP_CONTRACT OFF

// Row offsets: 32-bit by default. A product with more than 2^31 - 1 nonzeros has 64-bit ones
// (sparse_product.hpp): the scan is built with -DCOUNT=long for its counts, and the products
// with -DB_OFFSET=long where B has them (R (A P)) and -DC_OFFSET=long where C gets them (A P).
// Counting always writes 32-bit counts (C_OFFSET int): a row's count fits them.
#ifndef COUNT
#define COUNT int
#endif
#ifndef B_OFFSET
#define B_OFFSET int
#endif
#ifndef C_OFFSET
#define C_OFFSET int
#endif

// ---- Exclusive scan of n counts in tiles of SCAN_GROUP * per, a group a tile, read a row of
// SCAN_GROUP consecutive counts at a time (work-item `lane` takes count row * SCAN_GROUP + lane
// of its tile: coalesced, where `per` consecutive counts a work-item took a sixth of the
// bandwidth): each tile's total, largest and smallest count (totals[t], totals[tiles + t],
// totals[2 tiles + t]); then the tile offsets by one group, in place of the totals, with the
// total written after the counts and, with the largest and smallest count, to summary (the one
// thing read back); then each tile scanned from its offset, row by row. A scan of one tile is
// one kernel (scan_single_tile): the small levels' scans cost a launch, not three. Integer
// sums: the same result in any order.
#define SCAN_GROUP 256

// The sum, the largest and the smallest of this work-item's counts of the tile from `base`
// (none past n; 0 for none).
inline void scan_segment(__global const COUNT* counts, const uint base, const uint per, const uint n, long* sum,
                         int* most, int* least) {
  *sum = 0;
  *most = *least = 0;
  for (uint row = 0, at = base + get_local_id(0); row < per && at < n; ++row, at += SCAN_GROUP) {
    const int count = (int)counts[at];
    *sum += count;
    *most = max(*most, count);
    *least = min(*least, count);
  }
}

// part[0..SCAN_GROUP) becomes its exclusive prefix sum from `run`, by one work-item (the same
// order every time); returns the sum of all and `run`.
inline long scan_parts(__local long* part, long run) {
  for (uint l = 0; l < SCAN_GROUP; ++l) {
    const long here = part[l];
    part[l] = run;
    run += here;
  }
  return run;
}

// Called by every work-item of the group with its sum, largest and smallest count: part becomes
// the exclusive scan of the sums (by one work-item, in lane order: scan_tile_offsets' tiles'
// offsets); the total, the largest and the smallest count go to summary, the total after the
// counts.
inline void scan_summary(__local long* part, __local long* most, __local long* least, const long sum,
                         const long largest, const long smallest, __global long* summary, __global COUNT* counts,
                         const uint n) {
  const uint lane = get_local_id(0);
  part[lane] = sum;
  most[lane] = largest;
  least[lane] = smallest;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lane == 0) {
    long high = 0, low = 0;
    for (uint l = 0; l < SCAN_GROUP; ++l) {
      high = max(high, most[l]);
      low = min(low, least[l]);
    }
    const long run = scan_parts(part, 0);
    summary[0] = run;
    summary[1] = high;
    summary[2] = low;
    counts[n] = (COUNT)run;  // (where int: the total mod 2^32, which recover_counts undoes)
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The tile's counts from `base` (none past n) become their exclusive prefix sum from `run`: a
// row of SCAN_GROUP counts at a time, scanned across the group (Hillis and Steele's doubling
// in part[]). Every work-item of the group calls it.
inline void scan_tile_in_place(__local long* part, __global COUNT* counts, const uint base, const uint per,
                               const uint n, long run) {
  const uint lane = get_local_id(0);
  for (uint row = 0; row < per && base + row * SCAN_GROUP < n; ++row) {
    const uint at = base + row * SCAN_GROUP + lane;
    const long count = at < n ? (long)counts[at] : 0;
    part[lane] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < SCAN_GROUP; d *= 2) {
      const long before = lane >= d ? part[lane - d] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      part[lane] += before;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (at < n) counts[at] = (COUNT)(run + part[lane] - count);
    run += part[SCAN_GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);  // (every work-item has read part before the next row writes it)
  }
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void scan_tile_totals(const uint tiles, const uint per, const uint n, __global const COUNT* counts,
                      __global long* totals) {
  __local long part[SCAN_GROUP];
  __local int most[SCAN_GROUP], least[SCAN_GROUP];
  const uint lane = get_local_id(0), t = get_group_id(0);
  long sum;
  int largest, smallest;
  scan_segment(counts, t * SCAN_GROUP * per, per, n, &sum, &largest, &smallest);
  part[lane] = sum;
  most[lane] = largest;
  least[lane] = smallest;
  for (uint width = SCAN_GROUP / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane < width) {
      part[lane] += part[lane + width];
      most[lane] = max(most[lane], most[lane + width]);
      least[lane] = min(least[lane], least[lane + width]);
    }
  }
  if (lane == 0) {
    totals[t] = part[0];
    totals[tiles + t] = most[0];
    totals[2 * tiles + t] = least[0];
  }
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void scan_tile_offsets(const uint tiles, __global long* totals, __global COUNT* counts, const uint n,
                       __global long* summary) {
  __local long part[SCAN_GROUP], most[SCAN_GROUP], least[SCAN_GROUP];
  const uint lane = get_local_id(0), per = (tiles + SCAN_GROUP - 1) / SCAN_GROUP;
  const uint begin = min(tiles, lane * per), end = min(tiles, begin + per);
  long sum = 0, largest = 0, smallest = 0;
  for (uint t = begin; t < end; ++t) {
    sum += totals[t];
    largest = max(largest, totals[tiles + t]);
    smallest = min(smallest, totals[2 * tiles + t]);
  }
  scan_summary(part, most, least, sum, largest, smallest, summary, counts, n);
  long run = part[lane];
  for (uint t = begin; t < end; ++t) {
    const long here = totals[t];
    totals[t] = run;
    run += here;
  }
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void scan_tiles(const uint per, const uint n, __global COUNT* counts, __global const long* offsets) {
  __local long part[SCAN_GROUP];
  const uint t = get_group_id(0);
  scan_tile_in_place(part, counts, t * SCAN_GROUP * per, per, n, offsets[t]);
}

// The whole scan where n <= SCAN_GROUP * per: summary and counts[n] as scan_tile_offsets writes
// them, counts as scan_tiles leaves them.
__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1)))
void scan_single_tile(const uint per, const uint n, __global COUNT* counts, __global long* summary) {
  __local long part[SCAN_GROUP], most[SCAN_GROUP], least[SCAN_GROUP];
  long sum;
  int largest, smallest;
  scan_segment(counts, 0, per, n, &sum, &largest, &smallest);
  scan_summary(part, most, least, sum, largest, smallest, summary, counts, n);
  scan_tile_in_place(part, counts, 0, per, n, 0);
}

// The counts of a 32-bit scan whose total passed 2^31 - 1, as longs for the 64-bit scan: each
// offset is the true one mod 2^32, and each count fits 32 bits, so a difference gives it back.
__kernel void recover_counts(const uint n, __global const int* offsets, __global long* counts) {
  CLCG_FOR_EACH(uint, i, n) counts[i] = (long)((uint)offsets[i + 1] - (uint)offsets[i]);
}

// ---- C = A B, row by row. Row i of C sums, for each entry k of A's row in its stored order,
// a_k times row a_col[k] of B: every column of C is summed in that order, whichever of the
// three kernels below computes the row, so all give the same sums (and the same bits on every
// run). For `fill` 0 a kernel writes row i's count to c_row[i]; for `fill` 1, c_row holds C's row
// pointers and the columns (sorted) and values are written; `fill` 2 is new values on a known
// pattern: c_col holds C's columns too (the merges write the same ones again). The hashed
// kernels also take a first product in two passes that find the columns once: `fill` 3 counts
// as 0 and lists each row's columns, sorted, in c_listed (NARROW_CAP a row, rows of at most
// NARROW_CAP columns); `fill` 4 then sums those rows' values as 2 does (spgemm_narrow), copying
// their columns to c_col. The short-row merge and spgemm_rows know only 0 to 2.
//
// Rows of A with at most SHORT_ROW entries are merged by one work-item with its heads in registers
// (spgemm_short_rows); longer ones with a hash table in local memory, by a sub-group of
// NARROW_LANES work-items where C's row has at most NARROW_CAP columns (spgemm_narrow, several
// rows a group), else by a group of HASH_GROUP (spgemm_hashed); a row of C with more than
// HASH_CAP columns by one work-item merging through scratch in global memory (spgemm_rows).
#define SHORT_ROW 8
#define HASH_GROUP 32
// The wide table; built a second time with -DHASH_BITS=11 -DHASH_CAP=1536 -DSKIP_CAP=384 for the
// rows of C the first leaves (block systems' coarse rows: 6 unknowns a node, 300-700 columns),
// which one work-item's merge through global scratch took 1.4 s for (3D elasticity, 2M rows).
#ifndef HASH_BITS
#define HASH_BITS 9
#endif
#define HASH_SLOTS (1 << HASH_BITS)
#ifndef HASH_CAP
#define HASH_CAP 384
#endif
#define HASH_STAGE 64

// The merge: each entry k of A's row keeps its place in its row of B (cursor), that row's end
// and the column there (head; INT_MAX once done); one pass over the heads sums the smallest
// column and finds the next. cursor, end and head are indexed from 0 over A's row.
#define MERGE_ROW(cursor, end, head)                                                              \
  {                                                                                               \
    const int a_begin = a_row[i], a_len = a_row[i + 1] - a_begin;                                 \
    int next = INT_MAX;                                                                           \
    for (int k = 0; k < a_len; ++k) {                                                             \
      const B_OFFSET at = b_row[a_col[a_begin + k]], stop = b_row[a_col[a_begin + k] + 1];        \
      cursor[k] = at;                                                                             \
      end[k] = stop;                                                                              \
      head[k] = at < stop ? b_col[at] : INT_MAX;                                                  \
      next = min(next, head[k]);                                                                  \
    }                                                                                             \
    C_OFFSET out = fill ? c_row[i] : 0;                                                           \
    while (next != INT_MAX) {                                                                     \
      const int column = next;                                                                    \
      REAL sum = 0;                                                                               \
      next = INT_MAX;                                                                             \
      for (int k = 0; k < a_len; ++k) {                                                           \
        int h = head[k];                                                                          \
        if (h == column) {                                                                        \
          const B_OFFSET at = cursor[k];                                                          \
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
    if (!fill) c_row[i] = (C_OFFSET)out;                                                          \
  }

// Every row of A has at most SHORT_ROW entries. The loops over A's row are unrolled, so the
// heads stay in registers (indexed by a constant) rather than in memory.
__kernel void spgemm_short_rows(const uint rows, __global const int* a_row, __global const int* a_col,
                                __global const REAL* a_val, __global const B_OFFSET* b_row, __global const int* b_col,
                                __global const REAL* b_val, __global C_OFFSET* c_row, __global int* c_col,
                                __global REAL* c_val, const int fill) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int a_begin = a_row[i], a_len = a_row[i + 1] - a_begin;
    B_OFFSET cursor[SHORT_ROW], end[SHORT_ROW];
    int head[SHORT_ROW];
    REAL a[SHORT_ROW];
    int next = INT_MAX;
#pragma unroll
    for (int k = 0; k < SHORT_ROW; ++k) {
      cursor[k] = end[k] = 0;
      head[k] = INT_MAX;
      a[k] = 0;
      if (k < a_len) {
        const int j = a_col[a_begin + k];
        cursor[k] = b_row[j];
        end[k] = b_row[j + 1];
        if (cursor[k] < end[k]) head[k] = b_col[cursor[k]];
        if (fill) a[k] = a_val[a_begin + k];
      }
      next = min(next, head[k]);
    }
    C_OFFSET out = fill ? c_row[i] : 0;
    while (next != INT_MAX) {
      const int column = next;
      REAL sum = 0;
      next = INT_MAX;
#pragma unroll
      for (int k = 0; k < SHORT_ROW; ++k) {
        if (head[k] == column) {
          if (fill) sum += a[k] * b_val[cursor[k]];
          ++cursor[k];
          head[k] = cursor[k] < end[k] ? b_col[cursor[k]] : INT_MAX;
        }
        next = min(next, head[k]);
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

// The rows spgemm_hashed leaves: for `fill` 0 those it marked -1, for `fill` 1 those with more
// than HASH_CAP columns. Scratch: nnz(A) each for cursor and end (B_OFFSETs) and head (ints).
__kernel void spgemm_rows(const uint rows, __global const int* a_row, __global const int* a_col,
                          __global const REAL* a_val, __global const B_OFFSET* b_row, __global const int* b_col,
                          __global const REAL* b_val, __global B_OFFSET* cursor_all, __global B_OFFSET* end_all,
                          __global int* head_all, __global C_OFFSET* c_row, __global int* c_col, __global REAL* c_val,
                          const int fill) {
  CLCG_FOR_EACH(uint, i, rows) {
    if (fill ? c_row[i + 1] - c_row[i] <= HASH_CAP : c_row[i] >= 0) continue;
    __global B_OFFSET* cursor = cursor_all + a_row[i];
    __global B_OFFSET* end = end_all + a_row[i];
    __global int* head = head_all + a_row[i];
    MERGE_ROW(cursor, end, head)
  }
}

// A column's first slot in a table of 2^bits slots.
inline int hash_slot(const int column, const int bits) { return (int)(((uint)column * 2654435761u) >> (32 - bits)); }

// Puts `column` in the table of 2^bits slots (integer atomics only), counting it in *found when
// it is new. Most columns are there already (a row of C gathers many rows of B): a plain read
// finds them without an atomic. A slot, once taken, keeps its column.
inline void hash_insert(__local volatile int* key, __local volatile int* found, const int column, const int bits) {
  int slot = hash_slot(column, bits);
  for (;;) {  // the callers stop inserting before the table is full: a free slot is always found
    int there = key[slot];
    if (there == -1) {
      there = atomic_cmpxchg(&key[slot], -1, column);
      if (there == -1) atomic_inc(found);
    }
    if (there == -1 || there == column) return;
    slot = (slot + 1) & ((1 << bits) - 1);
  }
}

// The slot of a column that is in the table.
inline int hash_find(__local const int* key, const int column, const int bits) {
  int slot = hash_slot(column, bits);
  while (key[slot] != column) slot = (slot + 1) & ((1 << bits) - 1);
  return slot;
}


// spgemm_narrow's rows of C: up to NARROW_CAP columns, NARROW_ROWS a group of NARROW_LANES each.
// A hashed kernel given skip_taken leaves the rows of up to SKIP_CAP columns to the kernel
// before it (spgemm_narrow's, or for the second wide table the first's).
#define NARROW_LANES 8
#define NARROW_ROWS (HASH_GROUP / NARROW_LANES)
#define NARROW_BITS 7
#define NARROW_SLOTS (1 << NARROW_BITS)
#define NARROW_CAP 96
#ifndef SKIP_CAP
#define SKIP_CAP NARROW_CAP
#endif
#define NARROW_STAGE 32

// The phases both hashed kernels share, for C's row (out: its first place in c_col), by the
// `width` work-items of the row (this one is `at`) on a table of 2^bits slots.
// Columns: those of the rows of B that A's row [a_begin, a_end) names, a row of B a work-item,
// until more than `cap` are found.
inline void hash_product_columns(const int a_begin, const int a_end, const int at, const int width, const int cap,
                                 const int bits, __global const int* a_col, __global const B_OFFSET* b_row,
                                 __global const int* b_col, __local volatile int* key, __local volatile int* found) {
  for (int k = a_begin + at; k < a_end; k += width) {
    const int j = a_col[k];
    const B_OFFSET stop = b_row[j + 1];
    for (B_OFFSET t = b_row[j]; t < stop && *found <= cap; ++t) hash_insert(key, found, b_col[t], bits);
  }
}

// Places of a known pattern: the row's columns (`known`, sorted), each at its index in the row;
// copied to `copy_to` where it is not null.
inline void hash_known_columns(__global const int* known, __global int* copy_to, const int columns, const int at,
                               const int width, const int bits, __local volatile int* key,
                               __local volatile int* found, __local ushort* place) {
  for (int r = at; r < columns; r += width) {
    const int column = known[r];
    if (copy_to) copy_to[r] = column;
    hash_insert(key, found, column, bits);
    place[hash_find((__local const int*)key, column, bits)] = (ushort)r;
  }
}

// Places of the listed columns: each column's is the number of smaller ones; the row's columns
// are written sorted to row_cols.
inline void rank_listed_columns(const int columns, const int at, const int width, const int bits,
                                __local const int* listed, __local const int* key, __local ushort* place,
                                __global int* row_cols) {
  for (int e = at; e < columns; e += width) {
    const int column = listed[e];
    int rank = 0;
    for (int r = 0; r < columns; ++r) rank += listed[r] < column;
    place[hash_find(key, column, bits)] = (ushort)rank;
    row_cols[rank] = column;
  }
}

// The values of a stage of A's row: for each of its rows of B in order, the `width` work-items
// of C's row (this one is `at`) share the row out, each adding a_k b_kj into column j's place
// (a row of B names a column once, so no two add into one place), with a barrier between rows
// of B: every place sums in A's order. The next row's first entries are loaded before this
// one's are added, to hide the load. Every work-item of the group calls it.
inline void add_stage(const int staged, const int at, const int width, const int bits,
                      __local const B_OFFSET* stage_begin, __local const B_OFFSET* stage_end, __local const REAL* stage_a,
                      __global const int* b_col, __global const REAL* b_val, __local const int* key,
                      __local const ushort* place, __local REAL* sum) {
  B_OFFSET t = stage_begin[0] + at;
  int next_col = -1;
  REAL next_val = 0;
  if (t < stage_end[0]) next_col = b_col[t], next_val = b_val[t];
  for (int s = 0; s < staged; ++s) {
    const int first_col = next_col;
    const REAL first_val = next_val, a = stage_a[s];
    if (s + 1 < staged) {
      t = stage_begin[s + 1] + at;
      next_col = t < stage_end[s + 1] ? b_col[t] : -1;
      next_val = t < stage_end[s + 1] ? b_val[t] : 0;
    }
    if (first_col >= 0) sum[place[hash_find(key, first_col, bits)]] += a * first_val;
    for (t = stage_begin[s] + at + width; t < stage_end[s]; t += width)
      sum[place[hash_find(key, b_col[t], bits)]] += a * b_val[t];
    barrier(CLK_LOCAL_MEM_FENCE);  // the next row of B may add to the same places
  }
}

// One group of HASH_GROUP work-items a row of C, in up to three phases.
// 1. Columns (fill 0 and 1): the rows of B that A's row names are shared out one per
//    work-item, and each puts its row's columns in a hash table in local memory (integer
//    atomics; the set does not depend on their order). fill 0 writes the count and stops.
// 2. Places (fill 1): the occupied slots are listed, each column's place in C's row is the
//    number of smaller columns, and C's columns are written sorted. fill 2 (new values on a
//    known pattern) instead reads C's columns and their places from c_col.
// 3. Values: for each entry k of A's row in its stored order, the work-items share row a_col[k]
//    of B (its columns are unique, so no two add into one place), each adding a_k b_kj into
//    column j's place, with a barrier between rows of B: every place sums in A's order. The
//    next row of B's first entries are loaded before this one's are added, to hide the load.
// A row of C with more than HASH_CAP columns is left to spgemm_rows: marked -1 when counting
// (the scan of the counts finds it), skipped when filling. With skip_taken, so is a row an
// earlier pass took: counted already (a count of 0 or more), or filled by the kernel before it
// (at most SKIP_CAP columns). Counting with `fill` 3, a row of at most NARROW_CAP columns is listed in
// c_listed (phase 2 writes there).
__kernel __attribute__((reqd_work_group_size(HASH_GROUP, 1, 1)))
void spgemm_hashed(const uint rows, __global const int* a_row, __global const int* a_col,
                   __global const REAL* a_val, __global const B_OFFSET* b_row, __global const int* b_col,
                   __global const REAL* b_val, __global C_OFFSET* c_row, __global int* c_col, __global REAL* c_val,
                   const int fill, const int skip_taken, __global int* c_listed) {
  __local int key[HASH_SLOTS];         // a column, or -1
  __local ushort place[HASH_SLOTS];  // the place of the slot's column in C's row (< HASH_CAP)
  __local REAL sum[HASH_CAP];          // C's row, by place
  // C's columns, in the order they were listed: in the sums' memory, which they are done with
  // before the sums begin (less local memory a group, more groups resident).
  __local int* listed = (__local int*)sum;
  // A's row, HASH_STAGE entries at a time: where their rows of B begin and end, and a_k (loaded
  // by all work-items at once, rather than one dependent load after another for each k).
  __local B_OFFSET stage_begin[HASH_STAGE], stage_end[HASH_STAGE];
  __local REAL stage_a[HASH_STAGE];
  __local volatile int found, listing;
  const int lane = (int)get_local_id(0), counting = fill == 0 || fill == 3;
  for (uint i = get_group_id(0); i < rows; i += get_num_groups(0)) {
    const int a_begin = a_row[i], a_end = a_row[i + 1];
    const C_OFFSET out = counting ? 0 : c_row[i];
    const int columns = counting ? 0 : (int)(c_row[i + 1] - out);
    if (columns > HASH_CAP || (skip_taken && (counting ? c_row[i] >= 0 : columns <= SKIP_CAP)))
      continue;  // the same for the whole group
    // (The barriers below are reached by every pass alike: PoCL wants no barrier under a branch.)
    for (int s = lane; s < HASH_SLOTS; s += HASH_GROUP) key[s] = -1;
    if (lane == 0) found = listing = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (fill == 2)
      hash_known_columns(c_col + out, 0, columns, lane, HASH_GROUP, HASH_BITS, key, &found, place);
    else
      hash_product_columns(a_begin, a_end, lane, HASH_GROUP, HASH_CAP, HASH_BITS, a_col, b_row, b_col, key, &found);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int found_here = found;  // (no work-item writes it again before the next row)
    if (counting && lane == 0) c_row[i] = (C_OFFSET)(found_here <= HASH_CAP ? found_here : -1);
    const int list = fill == 1 || (fill == 3 && found_here <= NARROW_CAP);
    if (list)
      for (int s = lane; s < HASH_SLOTS; s += HASH_GROUP)
        if (key[s] >= 0) listed[atomic_inc(&listing)] = key[s];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (list)
      rank_listed_columns(found_here, lane, HASH_GROUP, HASH_BITS, listed, key, place,
                          fill == 1 ? c_col + out : c_listed + (size_t)i * NARROW_CAP);
    barrier(CLK_LOCAL_MEM_FENCE);  // `listed` is read
    for (int r = lane; r < columns; r += HASH_GROUP) sum[r] = 0;
    const int values_end = counting ? a_begin : a_end;  // counting stops here
    for (int k0 = a_begin; k0 < values_end; k0 += HASH_STAGE) {
      const int staged = min(HASH_STAGE, a_end - k0);
      barrier(CLK_LOCAL_MEM_FENCE);  // places and sums are set, or the last stage is used up
      for (int s = lane; s < staged; s += HASH_GROUP) {
        const int j = a_col[k0 + s];
        stage_begin[s] = b_row[j];
        stage_end[s] = b_row[j + 1];
        stage_a[s] = a_val[k0 + s];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      add_stage(staged, lane, HASH_GROUP, HASH_BITS, stage_begin, stage_end, stage_a, b_col, b_val, key, place, sum);
    }
    for (int r = lane; r < columns; r += HASH_GROUP) c_val[out + r] = sum[r];
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next row clears the table
  }
}

// The same product for rows of C of at most NARROW_CAP columns, NARROW_ROWS of them a group:
// each row a sub-group of NARROW_LANES work-items with its own hash table, in the same three
// phases as spgemm_hashed (so with the same sums, in A's order). A group's barriers serve all
// its rows at once: where B's rows are short (~8 entries on meshes), a row of B now keeps a
// sub-group busy instead of a quarter of a group. Counting marks a row with more columns -1
// (it is counted again by spgemm_hashed); filling skips it (spgemm_hashed fills it).
__kernel __attribute__((reqd_work_group_size(HASH_GROUP, 1, 1)))
void spgemm_narrow(const uint rows, __global const int* a_row, __global const int* a_col,
                   __global const REAL* a_val, __global const B_OFFSET* b_row, __global const int* b_col,
                   __global const REAL* b_val, __global C_OFFSET* c_row, __global int* c_col, __global REAL* c_val,
                   const int fill, __global int* c_listed) {
  __local int keys[NARROW_ROWS][NARROW_SLOTS];
  __local ushort places[NARROW_ROWS][NARROW_SLOTS];
  __local REAL sums[NARROW_ROWS][NARROW_CAP];
  __local B_OFFSET stage_begins[NARROW_ROWS][NARROW_STAGE], stage_ends[NARROW_ROWS][NARROW_STAGE];
  __local REAL stage_as[NARROW_ROWS][NARROW_STAGE];
  __local volatile int founds[NARROW_ROWS], listings[NARROW_ROWS];
  __local volatile int longest;  // the longest row of A the group's rows take
  const int lane = (int)get_local_id(0), sub = lane / NARROW_LANES, sl = lane % NARROW_LANES;
  __local volatile int* key = keys[sub];
  __local ushort* place = places[sub];
  __local REAL* sum = sums[sub];
  __local int* listed = (__local int*)sum;  // as spgemm_hashed's
  __local B_OFFSET* stage_begin = stage_begins[sub];
  __local B_OFFSET* stage_end = stage_ends[sub];
  __local REAL* stage_a = stage_as[sub];
  __local volatile int* found = &founds[sub];
  __local volatile int* listing = &listings[sub];
  const int counting = fill == 0 || fill == 3;
  for (uint base = get_group_id(0) * NARROW_ROWS; base < rows; base += get_num_groups(0) * NARROW_ROWS) {
    const uint i = base + (uint)sub;
    const int here = i < rows;
    const int a_begin = here ? a_row[i] : 0, a_end = here ? a_row[i + 1] : 0;
    const C_OFFSET out = !counting && here ? c_row[i] : 0;
    const int columns = !counting && here ? (int)(c_row[i + 1] - out) : 0;
    const int take = here && columns <= NARROW_CAP;  // a sub-group's own, so no barrier under it
    __global int* listed_row = c_listed + (size_t)(here ? i : 0) * NARROW_CAP;
    for (int s = sl; s < NARROW_SLOTS; s += NARROW_LANES) key[s] = -1;
    if (sl == 0) *found = *listing = 0;
    if (lane == 0) longest = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (take && sl == 0) atomic_max(&longest, a_end - a_begin);
    if (take && fill == 2)
      hash_known_columns(c_col + out, 0, columns, sl, NARROW_LANES, NARROW_BITS, key, found, place);
    if (take && fill == 4)
      hash_known_columns(listed_row, c_col + out, columns, sl, NARROW_LANES, NARROW_BITS, key, found, place);
    if (take && fill != 2 && fill != 4)
      hash_product_columns(a_begin, a_end, sl, NARROW_LANES, NARROW_CAP, NARROW_BITS, a_col, b_row, b_col, key, found);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int found_here = *found;  // (no work-item writes it again before the next rows)
    if (counting && here && sl == 0) c_row[i] = (C_OFFSET)(found_here <= NARROW_CAP ? found_here : -1);
    const int list = take && (fill == 1 || (fill == 3 && found_here <= NARROW_CAP));
    if (list)
      for (int s = sl; s < NARROW_SLOTS; s += NARROW_LANES)
        if (key[s] >= 0) listed[atomic_inc(listing)] = key[s];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (list)
      rank_listed_columns(found_here, sl, NARROW_LANES, NARROW_BITS, listed, (__local const int*)key, place,
                          fill == 1 ? c_col + out : listed_row);
    barrier(CLK_LOCAL_MEM_FENCE);  // `listed` is read
    if (take)
      for (int r = sl; r < columns; r += NARROW_LANES) sum[r] = 0;
    const int steps = counting ? 0 : longest;  // counting stops here; read after a barrier: the group's
    for (int k0 = 0; k0 < steps; k0 += NARROW_STAGE) {
      const int staged = min(NARROW_STAGE, steps - k0);
      barrier(CLK_LOCAL_MEM_FENCE);  // places and sums are set, or the last stage is used up
      for (int s = sl; s < staged; s += NARROW_LANES) {
        const int k = a_begin + k0 + s;
        stage_begin[s] = stage_end[s] = 0;
        stage_a[s] = 0;
        if (take && k < a_end) {
          const int j = a_col[k];
          stage_begin[s] = b_row[j];
          stage_end[s] = b_row[j + 1];
          stage_a[s] = a_val[k];
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      add_stage(staged, sl, NARROW_LANES, NARROW_BITS, stage_begin, stage_end, stage_a, b_col, b_val,
                (__local const int*)key, place, sum);
    }
    if (take)
      for (int r = sl; r < columns; r += NARROW_LANES) c_val[out + r] = sum[r];
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next rows clear their tables
  }
}

// ---- T = M^T: entries per column of M (count zeroed first), then each entry placed at its
// column's next free slot (next: a copy of T's row pointers), then each row of T sorted by
// column, which fixes the order the placing left to chance. Both passes take M a tile of
// TILE_ROWS rows at a time and gather the tile's columns in a hash table in local memory first:
// a column then takes one global atomic a tile rather than one an entry (neighbouring rows share
// columns: every row of an aggregate names it, and those atomics queued on one counter). A
// column the table cannot take within TILE_PROBES slots goes to the global counter directly.
#define TILE_ROWS 256
#define TILE_SLOTS 1024
#define TILE_PROBES 32

inline int tile_hash(const int column) { return (int)(((uint)column * 2654435761u) >> 22); }  // 10 bits: TILE_SLOTS

// The slot holding `column`, put in if it is not there; -1 where the probed slots are all taken.
inline int tile_insert(__local volatile int* key, const int column) {
  int slot = tile_hash(column);
  for (int probe = 0; probe < TILE_PROBES; ++probe) {
    int there = key[slot];
    if (there == -1) there = atomic_cmpxchg(&key[slot], -1, column);
    if (there == -1 || there == column) return slot;
    slot = (slot + 1) & (TILE_SLOTS - 1);
  }
  return -1;
}

// The slot holding `column` after the tile's inserts, or -1 (it went to the global counter).
inline int tile_find(__local volatile int* key, const int column) {
  int slot = tile_hash(column);
  for (int probe = 0; probe < TILE_PROBES; ++probe) {
    const int there = key[slot];
    if (there == column) return slot;
    if (there == -1) return -1;
    slot = (slot + 1) & (TILE_SLOTS - 1);
  }
  return -1;
}

// M's columns [first, first + span) are T's rows from 0; its other entries are left out (a
// rank's part of a transpose over the ranks: the others' columns go to their owners).
inline int windowed(const int column, const int first, const int span) {
  const int c = column - first;
  return c >= 0 && c < span ? c : -1;
}

// Clears the table, then puts the columns of row i of the tile (a work-item's row; none past
// rows) in it, counting them in tally; a column the table cannot take is counted in
// spill[column], or left out where spill is null. Every work-item of the group calls it.
inline void tile_tally(__local volatile int* key, __local int* tally, const uint i, const uint rows,
                       __global const int* m_row, __global const int* m_col, const int first, const int span,
                       __global int* spill) {
  for (int s = (int)get_local_id(0); s < TILE_SLOTS; s += TILE_ROWS) key[s] = -1, tally[s] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < rows)
    for (int k = m_row[i]; k < m_row[i + 1]; ++k) {
      const int column = windowed(m_col[k], first, span);
      if (column < 0) continue;
      const int slot = tile_insert(key, column);
      if (slot >= 0)
        atomic_inc(&tally[slot]);
      else if (spill)
        atomic_inc(&spill[column]);
    }
  barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel __attribute__((reqd_work_group_size(TILE_ROWS, 1, 1)))
void column_counts(const uint rows, __global const int* m_row, __global const int* m_col, const int first,
                   const int span, __global int* count) {
  __local volatile int key[TILE_SLOTS];
  __local int tally[TILE_SLOTS];
  const int lane = (int)get_local_id(0);
  for (uint base = get_group_id(0) * TILE_ROWS; base < rows; base += get_num_groups(0) * TILE_ROWS) {
    tile_tally(key, tally, base + (uint)lane, rows, m_row, m_col, first, span, count);
    for (int s = lane; s < TILE_SLOTS; s += TILE_ROWS)
      if (tally[s] > 0) atomic_add(&count[key[s]], tally[s]);
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next tile clears the table
  }
}

// The tile's entries a slot are counted, the slot reserves that many places of its column at
// once (tally then holds the next of them), and each entry takes one. M's row i is T's column
// shift + i.
__kernel __attribute__((reqd_work_group_size(TILE_ROWS, 1, 1)))
void transpose_place(const uint rows, __global const int* m_row, __global const int* m_col,
                     __global const REAL* m_val, const int first, const int span, const int shift, __global int* next,
                     __global int* t_col, __global REAL* t_val) {
  __local volatile int key[TILE_SLOTS];
  __local int tally[TILE_SLOTS];
  const int lane = (int)get_local_id(0);
  for (uint base = get_group_id(0) * TILE_ROWS; base < rows; base += get_num_groups(0) * TILE_ROWS) {
    const uint i = base + (uint)lane;
    tile_tally(key, tally, i, rows, m_row, m_col, first, span, (__global int*)0);
    for (int s = lane; s < TILE_SLOTS; s += TILE_ROWS)
      if (tally[s] > 0) tally[s] = atomic_add(&next[key[s]], tally[s]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < rows)
      for (int k = m_row[i]; k < m_row[i + 1]; ++k) {
        const int column = windowed(m_col[k], first, span);
        if (column < 0) continue;
        const int slot = tile_find(key, column);
        const int at = slot >= 0 ? atomic_inc(&tally[slot]) : atomic_inc(&next[column]);
        t_col[at] = shift + (int)i;
        t_val[at] = m_val[k];
      }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next tile clears the table
  }
}

// New values of M on the pattern T = M^T was built from: each entry (r, i) of T takes M's
// entry (i, r), found by a walk along M's row i (short in a prolongator; no order needed). A
// gather, a team of HASH_GROUP work-items a row of T with its entries shared out: no atomics and
// no sort. The walk waits on three dependent loads, so a group holds GATHER_TEAMS teams: more
// warps in flight than a group a row (the device's groups per unit cap those).
#define GATHER_TEAMS 8
__kernel __attribute__((reqd_work_group_size(HASH_GROUP * GATHER_TEAMS, 1, 1)))
void transpose_gather(const uint rows, __global const int* t_row, __global const int* t_col,
                      __global REAL* t_val, __global const int* m_row, __global const int* m_col,
                      __global const REAL* m_val) {
  const int lane = (int)(get_local_id(0) % HASH_GROUP);
  const uint teams = get_num_groups(0) * GATHER_TEAMS;
  for (uint r = get_group_id(0) * GATHER_TEAMS + get_local_id(0) / HASH_GROUP; r < rows; r += teams) {
    for (int e = t_row[r] + lane; e < t_row[r + 1]; e += HASH_GROUP) {
      const int i = t_col[e], end = m_row[i + 1];
      int k = m_row[i];
      while (k < end && m_col[k] != (int)r) ++k;
      if (k < end) t_val[e] = m_val[k];  // (always, on T's own pattern)
    }
  }
}

// Each row of T sorted by column (columns unique). A row of SORT_FROM + 1 to SORT_CAP entries is
// sorted by a group in local memory: each entry's place is the number of smaller columns. Built
// twice: up to 512, and from 513 to 2048 (a block system's restriction: 300-700 entries a row,
// which one work-item's shell sort took 50 ms for at 2M rows of 3D elasticity). Longer rows are
// left to sort_long_rows.
#ifndef SORT_CAP
#define SORT_CAP 512
#endif
#ifndef SORT_FROM
#define SORT_FROM 0
#endif

__kernel __attribute__((reqd_work_group_size(HASH_GROUP, 1, 1)))
void sort_rows(const uint rows, __global const int* row, __global int* col, __global REAL* val) {
  __local int c[SORT_CAP];
  __local REAL v[SORT_CAP];
  const int lane = (int)get_local_id(0);
  for (uint i = get_group_id(0); i < rows; i += get_num_groups(0)) {
    const int begin = row[i], length = row[i + 1] - begin;
    if (length > SORT_CAP || length <= SORT_FROM) continue;  // the same for the whole group
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

// ---- Products of a block level (k near-null-space vectors): P's columns come in whole groups of
// k (an aggregate's), and so do A P's and R (A P)'s; R = P^T's rows come in groups of k with one
// pattern. Their patterns are counted on the groups (k times fewer columns, and for R k times
// fewer rows: 3D elasticity's R (A P), k = 6, counted 36 times cheaper), expanded, and the values
// summed on the expanded pattern as new values on a known pattern are.

// M's pattern with each group of k columns as one (col / k, the group's first entry kept): row
// i's compressed entries start at row[i] / k (every row holds whole groups).
__kernel void compress_column_groups(const uint rows, const uint k, __global const int* row, __global const int* col,
                                     __global int* c_row, __global int* c_col) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int begin = row[i] / (int)k, end = row[i + 1] / (int)k;
    c_row[i] = begin;
    if (i + 1 == rows) c_row[rows] = end;
    for (int e = begin; e < end; ++e) c_col[e] = col[e * (int)k] / (int)k;
  }
}

// The first row of each group of k rows (rows g k): its length, then (copy 1) its columns.
__kernel void first_of_row_groups(const uint groups, const uint k, const int copy, __global const int* row,
                                  __global const int* col, __global int* g_row, __global int* g_col) {
  CLCG_FOR_EACH(uint, g, groups) {
    const int begin = row[g * k], length = row[g * k + 1] - begin;
    if (!copy) {
      g_row[g] = length;
      continue;
    }
    for (int e = 0; e < length; ++e) g_col[g_row[g] + e] = col[begin + e];
  }
}

// A compressed pattern expanded: each column h becomes columns h k .. h k + k - 1, and with
// `rows_too` each row g becomes rows g k .. g k + k - 1 (all with that pattern).
__kernel void expand_groups(const uint rows, const uint k, const int rows_too, __global const int* c_row,
                            __global const int* c_col, __global int* row, __global int* col) {
  CLCG_FOR_EACH(uint, g, rows) {
    const int begin = c_row[g], length = c_row[g + 1] - begin, width = length * (int)k;
    const uint copies = rows_too ? k : 1;
    for (uint r = 0; r < copies; ++r) {
      const int out = rows_too ? (begin * (int)k + (int)r * length) * (int)k : begin * (int)k;
      row[g * copies + r] = out;
      for (int e = 0; e < length; ++e)
        for (uint c = 0; c < k; ++c) col[out + e * (int)k + (int)c] = c_col[begin + e] * (int)k + (int)c;
      if (g + 1 == rows && r + 1 == copies) row[rows * copies] = out + width;
    }
  }
}
