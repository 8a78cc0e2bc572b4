// The distributed AMG set-up's work on each rank's device (solver/distributed/rank_setup.hpp):
// the strength of connection and the rounds of the independent set (with the one-device
// kernels of aggregation.cl, keyed here on global row numbers), and the Lanczos estimate of
// rho(D^-1 A). Each value is computed in the host reference's order, products not fused into
// sums, so that a level has the same bits on any partition (and on PoCL the host's). A's rows
// have local columns: this rank's rows, then the ghosts (halo.hpp), whose values the host
// exchanges between the kernels.
#pragma OPENCL FP_CONTRACT OFF
#include "aggregation.cl"

// ---- The independent set's rounds over the strong entries (strength_mask's STRONG), as the
// host reference's: each round every row's key (state, hash, global row; made once, then changed
// with the state), the largest key within distance 1 (mis_spread), then within distance 2 and
// the decision in one pass (mis_settle), the ghosts' values exchanged before each. The rounds
// read the strong graph (row, col): A's own rows where every entry is strong or the row's
// diagonal (a row itself among its neighbours changes no maximum and no join), else the strong
// entries alone (strong_count, strong_fill: on a coarse level of 3D Poisson half of A's, without
// a mark an entry to read each round).

// count[i] = the strong entries of row i; *weak = 1 where a row has a weak one (left alone elsewhere).
__kernel void strong_count(const uint rows, __global const int* row, __global const uchar* strong,
                           __global int* count, __global int* weak) {
  CLCG_FOR_EACH(uint, i, rows) {
    int c = 0, w = 0;
    for (int k = row[i]; k < row[i + 1]; ++k) c += strong[k] == STRONG, w |= strong[k] == WEAK;
    count[i] = c;
    if (w) *weak = 1;
  }
}

// The strong graph's columns: row i's strong entries, in A's order, from s_row[i] (strong_count's
// scan). A team takes its row `team` entries at a time, as filter_fill does (a work-item a row of
// a coarse level's 34 entries took 10 of 12 ms at 512^3).
__kernel void strong_fill(const uint rows, const uint team, __global const int* row, __global const int* col,
                          __global const uchar* strong, __global const int* s_row, __global int* s_col) {
  CLCG_FOR_EACH_TEAM_ROW(i, lane, rows, team) {
    const int end = row[i + 1];
    int before = s_row[i];  // where the chunk's first strong entry goes
    for (int c = row[i]; c < end; c += (int)team) {
      const int k = c + (int)lane, chunk_end = min(end, c + (int)team);
      int mine;
      const int chunk = strong_in_chunk(strong, c, chunk_end, k, &mine);
      if (k < end && strong[k] == STRONG) s_col[before + mine] = col[k];
      before += chunk;
    }
  }
}

// key[i] = the key of row i (global row first + i) in its state.
__kernel void mis_keys(const uint rows, const uint first, __global const uint* state, __global ulong* key) {
  CLCG_FOR_EACH(uint, i, rows) key[i] = mis_key(state[i], first + i);
}

// The ghosts' keys from their states (after rows, as the halo writes them) and global rows: a
// key is a function of the two, so a round's exchange moves the states, half the bytes.
__kernel void ghost_keys(const uint ghosts, const uint rows, __global const uint* ghost_row,
                         __global const uint* state, __global ulong* key) {
  CLCG_FOR_EACH(uint, g, ghosts) key[rows + g] = mis_key(state[rows + g], ghost_row[g]);
}

// The rows a round's spread computes: from round MIS_MARKED_FROM (aggregation.cl) only those an
// undecided row reads in mis_settle (marked near[i] == round by mis_settle in the round before), and always those sent to other ranks (NEAR_SENT: the rows another rank's undecided
// rows may read, which this rank cannot mark). The others' spread is read by no one.
#define NEAR_SENT 0xff

// near[rows[s]] = NEAR_SENT: the rows the halo sends.
__kernel void mark_sent(const uint count, __global const uint* rows, __global uchar* near) {
  CLCG_FOR_EACH(uint, s, count) near[rows[s]] = NEAR_SENT;
}

// out[i] = the largest of in[i] and in over row i's strong neighbours, a team a row (the largest:
// the same bits for any team), for the rows the round reads (above); a skipped row's out is left
// as it was (no one reads it).
__kernel __attribute__((reqd_work_group_size(TEAM_GROUP, 1, 1)))
void mis_spread(const uint rows, const uint team, __global const int* row, __global const int* col,
                __global const uchar* near, const int round, __global const ulong* in, __global ulong* out) {
  __local ulong slot[TEAM_GROUP];
  CLCG_FOR_EACH_TEAM_PASS(i, lane, rows, team) {
    ulong m = 0;
    const bool wanted =
        i < rows && (round < MIS_MARKED_FROM || near[i] == (uchar)round || near[i] == NEAR_SENT);
    if (wanted) {
      if (lane == 0) m = in[i];
      for (int k = row[i] + (int)lane; k < row[i + 1]; k += (int)team) m = max(m, in[col[k]]);
    }
    CLCG_TEAM_MAX_INTO(out, i, wanted ? rows : 0u, slot, m, lane, team, max)
  }
}

// The round's decision for the undecided rows, a team a row (mis_spread's): the largest key
// within distance 2 is the largest of `spread` (mis_spread's, the ghosts' exchanged) over the
// row's strong neighbours and itself. A row joins the set where that key is its own (or in the
// `last` round), leaves it where that key is of a row in the set, and its key follows its state
// (mis_keys makes the keys once, before the first round). A row still undecided makes
// *undecided nonzero (mis_decide's count, a work-item at a time) and, for rounds from
// MIS_MARKED_FROM, marks itself and its strong neighbours for the next round's spread (each
// writer stores the same value; the sent rows keep NEAR_SENT; ghosts, columns from `rows` on,
// are their owners').
__kernel __attribute__((reqd_work_group_size(TEAM_GROUP, 1, 1)))
void mis_settle(const uint rows, const uint team, const uint first, __global const int* row, __global const int* col,
                __global const ulong* spread, const int round, const int last, __global uint* state,
                __global ulong* key, __global uchar* near, __global int* undecided) {
  __local ulong slot[TEAM_GROUP];
  int left = 0;
  CLCG_FOR_EACH_TEAM_PASS(i, lane, rows, team) {
    const bool wanted = i < rows && state[i] == MIS_UNDECIDED;
    ulong m = 0;
    if (wanted) {
      if (lane == 0) m = spread[i];
      for (int k = row[i] + (int)lane; k < row[i + 1]; k += (int)team) m = max(m, spread[col[k]]);
    }
    slot[get_local_id(0)] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = team / 2; width > 0; width >>= 1) {
      if (lane < width) slot[get_local_id(0)] = max(slot[get_local_id(0)], slot[get_local_id(0) + width]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ulong most = slot[get_local_id(0) - lane];
    barrier(CLK_LOCAL_MEM_FENCE);  // (the slots free for the next pass; every lane read state[i] above)
    if (!wanted) continue;
    if ((uint)(most & 0xffffffffUL) == first + i || last) {
      if (lane == 0) state[i] = MIS_IN, key[i] = mis_key(MIS_IN, first + i);
    } else if ((uint)(most >> 62) == MIS_IN) {
      if (lane == 0) state[i] = MIS_OUT, key[i] = mis_key(MIS_OUT, first + i);
    } else {
      left = 1;
      if (round + 1 >= MIS_MARKED_FROM) {
        const uchar next = (uchar)(round + 1);
        if (lane == 0 && near[i] != NEAR_SENT) near[i] = next;
        for (int k = row[i] + (int)lane; k < row[i + 1]; k += (int)team) {
          const int j = col[k];
          if (j < (int)rows && near[j] != NEAR_SENT) near[j] = next;
        }
      }
    }
  }
  if (left) atomic_inc(undecided);
}

// A row with a strong neighbour starts undecided; one without is out (and never aggregated).
__kernel void mis_begin(const uint rows, __global const int* row, __global const int* col, __global uint* state) {
  CLCG_FOR_EACH(uint, i, rows) {
    uint s = MIS_OUT;
    for (int k = row[i]; k < row[i + 1]; ++k)
      if (col[k] != (int)i) s = MIS_UNDECIDED;
    state[i] = s;
  }
}

#define DOT_LANES 256

// A chunk's lanes' sums by the one fixed tree (every lane of the group calls it).
inline REAL chunk_tree(__local REAL* lane_sum, const uint lane, const REAL sum) {
  lane_sum[lane] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = DOT_LANES / 2; width > 0; width >>= 1) {
    if (lane < width) lane_sum[lane] += lane_sum[lane + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const REAL total = lane_sum[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

// The body of a kernel of chunk sums (chunks, begin, ..., partial): partial[c] = the sum of TERM
// (an expression of row i) over chunk c's rows [begin[c], begin[c + 1]), a work-group of
// DOT_LANES a chunk, each lane summing the rows lane, lane + DOT_LANES, ... in order, then the
// lanes' sums by the fixed tree. A chunk lies on one rank, so the order does not depend on the
// partition; the host sums the chunks' partials in a fixed order. (One work-item a chunk, in
// row order, read 32K-row chunks at a crawl: most of a 512^3 level's Lanczos estimate.)
#define CLCG_CHUNK_SUMS(TERM)                                                     \
  __local REAL lane_sum[DOT_LANES];                                               \
  const uint lane = get_local_id(0);                                              \
  for (uint c = get_group_id(0); c < chunks; c += get_num_groups(0)) {            \
    REAL sum = 0;                                                                 \
    for (long i = begin[c] + lane; i < begin[c + 1]; i += DOT_LANES) sum += TERM; \
    const REAL total = chunk_tree(lane_sum, lane, sum);                           \
    if (lane == 0) partial[c] = total;                                            \
  }

// partial[c] = chunk c's sum of x[i] y[i].
__kernel __attribute__((reqd_work_group_size(DOT_LANES, 1, 1)))
void chunk_dots(const uint chunks, __global const long* begin, __global const REAL* x, __global const REAL* y,
                __global REAL* partial) {
  CLCG_CHUNK_SUMS(x[i] * y[i])
}

// partial[c] = chunk c's sum of x[i] (d[i] x[i]): chunk_dots of x and D x, without D x stored.
__kernel __attribute__((reqd_work_group_size(DOT_LANES, 1, 1)))
void chunk_norms(const uint chunks, __global const long* begin, __global const REAL* d, __global const REAL* x,
                 __global REAL* partial) {
  CLCG_CHUNK_SUMS(x[i] * (d[i] * x[i]))
}

// The Lanczos start: pseudo-random in [-1, 1) from a hash of the global row (30 bits of the
// independent set's key), the same for any partition. `first`: the rank's first row, mod 2^32.
// (In REAL throughout: a float build computes no double.)
__kernel void lanczos_start(const uint rows, const uint first, __global REAL* v) {
  CLCG_FOR_EACH(uint, i, rows) v[i] = (REAL)(uint)(mis_key(0, (first + i) ^ 0x5bd1e995U) >> 32) / (REAL)536870912 - (REAL)1;
}

// u[i] = (D^-1 A v - alpha v - beta v_prev)[i] (D^-1 taken as 0 where d is 0), stored; its term
// of the D-norm, u[i] (d[i] u[i]), returned.
inline REAL lanczos_term(const long i, __global const REAL* av, __global const REAL* d, __global const REAL* v,
                         __global const REAL* v_prev, const REAL alpha, const REAL beta, __global REAL* u) {
  const REAL next = (d[i] != (REAL)0 ? av[i] / d[i] : (REAL)0) - alpha * v[i] - beta * v_prev[i];
  u[i] = next;
  return next * (d[i] * next);
}

// u = D^-1 A v - alpha v - beta v_prev over the chunks (which hold every row) and partial[c] =
// chunk c's sum of u (d u), as chunk_norms(d, u) sums it: the step and its norm in one pass.
__kernel __attribute__((reqd_work_group_size(DOT_LANES, 1, 1)))
void lanczos_step(const uint chunks, __global const long* begin, __global const REAL* av, __global const REAL* d,
                  __global const REAL* v, __global const REAL* v_prev, const REAL alpha, const REAL beta,
                  __global REAL* u, __global REAL* partial) {
  CLCG_CHUNK_SUMS(lanczos_term(i, av, d, v, v_prev, alpha, beta, u))
}

// out = x / s.
__kernel void divided(const uint rows, __global const REAL* x, const REAL s, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, rows) out[i] = x[i] / s;
}

// ---- Where each asked row (local numbers) of a kept product starts, and its length; its
// offsets are B_OFFSET (32-bit, or 64-bit with -DB_OFFSET=long; below).
#ifndef B_OFFSET
#define B_OFFSET int
#endif
__kernel void row_spans(const uint count, __global const long* asked, __global const B_OFFSET* row,
                        __global long* first, __global long* length) {
  CLCG_FOR_EACH(uint, q, count) {
    const long i = asked[q];
    first[q] = row[i];
    length[q] = (long)row[i + 1] - (long)row[i];
  }
}

// ---- Rows of a kept product that other ranks asked for (local numbers `asked`), packed: their
// lengths as counts to scan, then row q's entries to [at[q], at[q + 1]) of the answer.
__kernel void asked_lengths(const uint count, __global const uint* asked, __global const B_OFFSET* row,
                            __global int* length) {
  CLCG_FOR_EACH(uint, q, count) length[q] = (int)(row[asked[q] + 1] - row[asked[q]]);
}

__kernel void gather_rows(const uint count, __global const uint* asked, __global const B_OFFSET* row,
                          __global const long* at, __global const int* col, __global const REAL* val,
                          __global int* col_out, __global REAL* val_out) {
  CLCG_FOR_EACH(uint, q, count) {
    const long from = row[asked[q]], to = at[q], length = at[q + 1] - at[q];
    for (long k = 0; k < length; ++k) {
      col_out[to + k] = col[from + k];
      val_out[to + k] = val[from + k];
    }
  }
}

// ---- A transpose's columns, M's rows in global order (the `below` ghosts before this rank's
// `owned` rows, then its rows, then the ghosts after them), renumbered as local columns: the
// rank's rows first, then the ghosts in order.
__kernel void ghosts_last(const uint entries, const int below, const int owned, __global int* col) {
  CLCG_FOR_EACH(uint, k, entries) {
    const int m = col[k];
    col[k] = m < below ? owned + m : (m < below + owned ? m - below : m);
  }
}

// ---- P = P_tent - omega D^-1 (A P_tent), in place on C = A P_tent, as the host reference's
// smoothed_prolongator(): row i of P_tent is B's row i (this rank's rows come first in B), its
// columns consecutive. B's offsets are 32-bit, or 64-bit with -DB_OFFSET=long.
__kernel void smooth_rows(const uint rows, __global const long* c_row, __global const int* c_col, __global REAL* c_val,
                          __global const B_OFFSET* t_row, __global const int* t_col, __global const REAL* t_val,
                          __global const REAL* d, const REAL omega) {
  CLCG_FOR_EACH(uint, i, rows) {
    const REAL inv_diag = d[i] != (REAL)0 ? (REAL)1 / d[i] : (REAL)0;
    const long t = t_row[i], in_row = (long)t_row[i + 1] - t;
    const long first = in_row > 0 ? t_col[t] : 0;
    for (long k = c_row[i]; k < c_row[i + 1]; ++k) {
      REAL v = -omega * inv_diag * c_val[k];
      const long c = (long)c_col[k] - first;
      if (c >= 0 && c < in_row) v += t_val[t + c];
      c_val[k] = v;
    }
  }
}

// ---- A kept product's entries in columns outside [first, last) (other ranks' columns: sent
// to their owners for a transpose, or the ghosts of its rows): count[i] of row i.
__kernel void count_outside(const uint rows, __global const long* row, __global const int* col, const int first,
                            const int last, __global int* count) {
  CLCG_FOR_EACH(uint, i, rows) {
    int c = 0;
    for (long k = row[i]; k < row[i + 1]; ++k) c += col[k] < first || col[k] >= last;
    count[i] = c;
  }
}

// Row i's entries outside the range, from at[i], with their row.
__kernel void entries_outside(const uint rows, __global const long* row, __global const int* col,
                              __global const REAL* val, const int first, const int last, __global const int* at,
                              __global int* out_row, __global int* out_col, __global REAL* out_val) {
  CLCG_FOR_EACH(uint, i, rows) {
    int a = at[i];
    for (long k = row[i]; k < row[i + 1]; ++k)
      if (col[k] < first || col[k] >= last) {
        out_row[a] = (int)i;
        out_col[a] = col[k];
        out_val[a] = val[k];
        ++a;
      }
  }
}

// ---- Global columns as local ones, in place: [first, last) from 0, the others after them by
// their place in the sorted `ghost` list (which holds each of them).
__kernel void local_columns(const uint entries, const int first, const int last, __global const int* ghost,
                            const int ghosts, __global int* col) {
  CLCG_FOR_EACH(uint, k, entries) {
    const int c = col[k];
    if (c >= first && c < last) {
      col[k] = c - first;
    } else {
      int lo = 0, hi = ghosts;  // the first ghost >= c
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (ghost[mid] < c) lo = mid + 1; else hi = mid;
      }
      col[k] = (last - first) + lo;
    }
  }
}

// ---- The tentative prolongator over the ranks (aggregation.cl's tentative_count, _fill and _qr
// on this rank's rows and on T, the distributed transpose of P_tent filled with B): Q's values
// back from T's rows (aggregate g's column j is T's row g k + j) to P_tent's entries, for T's
// entries in this rank's rows (local columns below `owned`; the ghosts' go to their owners).
__kernel void scatter_own(const uint t_rows, const uint k, const int owned, __global const int* t_row,
                          __global const int* t_col, __global const REAL* t_val, __global const int* p_row,
                          __global REAL* p_val) {
  CLCG_FOR_EACH(uint, c, t_rows) {
    const uint j = c % k;
    for (int e = t_row[c]; e < t_row[c + 1]; ++e)
      if (t_col[e] < owned) p_val[p_row[t_col[e]] + j] = t_val[e];
  }
}

// ---- P_tent of one constant a component (no candidates given): aggregate g's block has a one on
// each of its m_g nodes' rows of each component, so tentative_qr gives Q = 1 / sqrt(m_g) there
// (0 on the others) and R = sqrt(m_g) I, from the sum of m_g ones, its root and 1 / it: these
// kernels compute the same operations from the aggregates' sizes, without the transpose.

// Row i's entries: its aggregate's k columns, values 0 (set by constant_values, or by the host
// for rows in other ranks' aggregates).
__kernel void constant_columns(const uint rows, const uint k, __global const int* aggregate,
                               __global const int* t_row, __global int* t_col, __global REAL* t_val) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int g = aggregate[i / k];
    if (g < 0) continue;
    for (uint j = 0; j < k; ++j) t_col[t_row[i] + j] = g * (int)k + (int)j, t_val[t_row[i] + j] = 0;
  }
}

// sizes[g - first] = the nodes of this rank in aggregate g, for this rank's aggregates
// [first, first + count) (sizes cleared before; integers: any order of the adds).
__kernel void own_sizes(const uint nodes, const int first, const int count, __global const int* aggregate,
                        __global int* sizes) {
  CLCG_FOR_EACH(uint, u, nodes) {
    const int g = aggregate[u] - first;
    if (g >= 0 && g < count) atomic_inc(&sizes[g]);
  }
}

// sizes[at[e]] += add[e]: other ranks' nodes in this rank's aggregates.
__kernel void add_sizes(const uint count, __global const int* at, __global const int* add, __global int* sizes) {
  CLCG_FOR_EACH(uint, e, count) atomic_add(&sizes[at[e]], add[e]);
}

// out[e] = sizes[at[e]].
__kernel void sizes_at(const uint count, __global const int* at, __global const int* sizes, __global int* out) {
  CLCG_FOR_EACH(uint, e, count) out[e] = sizes[at[e]];
}

// Q's values on the rows in this rank's aggregates.
__kernel void constant_values(const uint rows, const uint k, const int first, const int count,
                              __global const int* aggregate, __global const int* sizes, __global const int* t_row,
                              __global REAL* t_val) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int g = aggregate[i / k] - first;
    if (g >= 0 && g < count) t_val[t_row[i] + i % k] = (REAL)1 / sqrt((REAL)sizes[g]);
  }
}

// R of this rank's aggregates (k x k each: the next level's candidates).
__kernel void constant_r(const uint aggregates, const uint k, __global const int* sizes, __global REAL* coarse) {
  CLCG_FOR_EACH(uint, g, aggregates) {
    for (uint l = 0; l < k; ++l)
      for (uint j = 0; j < k; ++j) coarse[((size_t)g * k + l) * k + j] = l == j ? sqrt((REAL)sizes[g]) : (REAL)0;
  }
}

// p_val[at[e]] = value[e] (the entries other ranks' T rows sent back).
__kernel void scatter_values(const uint entries, __global const long* at, __global const REAL* value,
                             __global REAL* p_val) {
  CLCG_FOR_EACH(uint, e, entries) p_val[at[e]] = value[e];
}

// ---- The seeds and joins of the host reference's aggregate() over the ranks, keyed on global
// rows. count[i] = 1 where row i is a seed (in the set); seed[i] = its global aggregate
// (first_seed + its place among this rank's seeds, `at` the counts' exclusive sums), else -1.
__kernel void seed_flags(const uint rows, __global const uint* state, __global int* count) {
  CLCG_FOR_EACH(uint, i, rows) count[i] = state[i] == MIS_IN ? 1 : 0;
}

// out[j] = at[bound[j]]: the seeds before each bound (`at`: seed_flags' exclusive scan, n + 1 ints).
__kernel void seeds_before(const uint count, __global const long* bound, __global const int* at, __global long* out) {
  CLCG_FOR_EACH(uint, j, count) out[j] = at[bound[j]];
}

__kernel void seed_numbers(const uint rows, const long first_seed, __global const uint* state,
                           __global const int* at, __global long* seed) {
  CLCG_FOR_EACH(uint, i, rows) seed[i] = state[i] == MIS_IN ? first_seed + at[i] : -1L;
}

// One join: a row without an aggregate in `joined` (local columns: the ghosts' exchanged before)
// takes that of its strong neighbour (the strong graph's row) whose global row has the largest
// key, among those with one. `ghost`: the ghosts' global rows.
__kernel void join_step(const uint rows, const uint first, __global const int* row, __global const int* col,
                        __global const uint* ghost, __global const long* joined, __global long* result) {
  CLCG_FOR_EACH(uint, i, rows) {
    long g = joined[i];
    if (g < 0) {
      ulong best = 0;
      for (int k = row[i]; k < row[i + 1]; ++k) {
        const int j = col[k];
        const long h = joined[j];
        const uint global_j = j < (int)rows ? first + (uint)j : ghost[j - (int)rows];
        if (h >= 0 && mis_key(MIS_IN, global_j) > best) best = mis_key(MIS_IN, global_j), g = h;
      }
    }
    result[i] = g;
  }
}

// out[i] = in[i] in 32 bits (aggregates, whose count fits; row offsets below 2^31).
__kernel void narrowed_ids(const uint rows, __global const long* in, __global int* out) {
  CLCG_FOR_EACH(uint, i, rows) out[i] = (int)in[i];
}

// Rows [0, rows) of the Dirichlet Laplacian on nx x ny x nz (2D: nz 1, no planes), global row
// `first` on: each row's entries from row_ptr[i] in poisson_rows's order (the host's
// LocalRows::make_entries: the same columns and values), columns as distances from `base`.
__kernel void stencil_entries(const uint rows, const long first, const long nx, const long ny, const long nz,
                              const int three_d, const REAL diagonal, const long base,
                              __global const int* row_ptr, __global int* col, __global REAL* values) {
  CLCG_FOR_EACH(uint, i, rows) {
    const long r = first + i, plane = nx * ny;
    const long x = r % nx, y = (r / nx) % ny, z = r / plane;
    int at = row_ptr[i];
    const long d = r - base;
    if (three_d && z > 0) col[at] = (int)(d - plane), values[at++] = (REAL)-1;
    if (y > 0) col[at] = (int)(d - nx), values[at++] = (REAL)-1;
    if (x > 0) col[at] = (int)(d - 1), values[at++] = (REAL)-1;
    col[at] = (int)d, values[at++] = diagonal;
    if (x + 1 < nx) col[at] = (int)(d + 1), values[at++] = (REAL)-1;
    if (y + 1 < ny) col[at] = (int)(d + nx), values[at++] = (REAL)-1;
    if (three_d && z + 1 < nz) col[at] = (int)(d + plane), values[at] = (REAL)-1;
  }
}
