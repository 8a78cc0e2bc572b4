// Smoothed-aggregation coarsening on the device (solver/multigrid/device_coarsening.hpp), one
// pass per kernel, each work-item owning its rows: the strength graph A_f (strong entries, and
// the diagonal with the weak ones added, first in each row; A itself where the filter keeps
// every entry), aggregates from a distance-2 maximal independent set of A_f's graph (Bell,
// Dalton, Olson 2012), the tentative prolongator and its smoothing with A itself (smoothing with
// A_f lumps the weak couplings onto the diagonal, which across coefficient jumps took 2-3x the
// steps: docs/PERFORMANCE.md). The host reference (coarsening.cpp) makes the same choices.

// Strength of connection, relative to the rows' strongest: with c_ij = a_ij^2 / |a_ii a_jj| (the
// symmetric measure of Vanek, Mandel and Brezina, squared) and m_i the largest c_ij of row i,
// a_ij is strong where c_ij >= theta^2 max(m_i, m_j). On a Poisson grid every neighbour is then
// strong, as with the absolute test c_ij >= theta^2; a row whose couplings are all weak by an
// absolute bar (a trilinear hex stencil: 1/256 and 1/1024 against 0.0064) keeps its strongest
// ones, while couplings far below a row's strongest (anisotropy, coefficient jumps) stay weak.
// A zero diagonal (never SPD) makes every coupling of the row strong.
inline bool is_strong(const uint i, const int j, const REAL v, const REAL d_i, const REAL d_j, const REAL m_i,
                      const REAL m_j, const REAL theta2) {
  const REAL dd = fabs(d_i * d_j);
  return j != (int)i && v != (REAL)0 && (dd == (REAL)0 || v * v >= theta2 * fmax(m_i, m_j) * dd);
}

// most[i] = m_i, the largest a_ij^2 / |a_ii a_jj| over row i's off-diagonal entries (0 where
// none; entries with a zero diagonal left out).
__kernel void coupling_max(const uint rows, __global const int* row, __global const int* col, __global const REAL* val,
                           __global const REAL* diag, __global REAL* most) {
  CLCG_FOR_EACH(uint, i, rows) {
    REAL m = 0;
    for (int k = row[i]; k < row[i + 1]; ++k) {
      const int j = col[k];
      const REAL dd = fabs(diag[i] * diag[j]);
      if (j != (int)i && dd != (REAL)0) m = fmax(m, val[k] * val[k] / dd);
    }
    most[i] = m;
  }
}

// diag[i] = A's diagonal entry of row i (0 where none is stored), or with `invert` 1 / it (0
// where it is 0): the prolongator smoother's D^-1.
__kernel void row_diagonal(const uint rows, __global const int* row, __global const int* col,
                           __global const REAL* val, const int invert, __global REAL* diag) {
  CLCG_FOR_EACH(uint, i, rows) {
    REAL d = 0;
    for (int k = row[i]; k < row[i + 1]; ++k)
      if (col[k] == (int)i) d += val[k];
    diag[i] = !invert ? d : d != (REAL)0 ? (REAL)1 / d : (REAL)0;
  }
}

// Rows shared by teams of `team` consecutive work-items (lane: the work-item's place in its
// team), for the levels whose rows are long: one work-item a row of 34 entries reads its arrays
// 136 bytes apart from its neighbours' and thrashes the cache; a team reads a row's entries
// side by side. The host launches a multiple of `team` work-items; team 1 is one work-item a row.
#define CLCG_FOR_EACH_TEAM_ROW(i, lane, rows, team)                                              \
  for (uint lane = get_global_id(0) % (team), i##_stride = get_global_size(0) / (team),          \
            i = get_global_id(0) < i##_stride * (team) ? get_global_id(0) / (team) : (rows);     \
       i < (rows); i += i##_stride)

// The same with a reduction over each team: groups of TEAM_GROUP work-items (the host's
// RowKernels::team_group; `team` a power of two dividing it), every work-item of a group running
// the same passes (`base` depends on the group alone), so each reaches every barrier.
#define TEAM_GROUP 64
#define CLCG_FOR_EACH_TEAM_PASS(i, lane, rows, team)                                            \
  for (uint lane = get_local_id(0) % (team), i##_base = get_group_id(0) * (TEAM_GROUP / (team)), \
            i = i##_base + get_local_id(0) / (team);                                            \
       i##_base < (rows); i##_base += get_num_groups(0) * (TEAM_GROUP / (team)),               \
            i = i##_base + get_local_id(0) / (team))

// out[i] = the largest of each team's `mine` (row i's team), by a tree of barriers in `slot`
// (TEAM_GROUP of them); the last barrier frees `slot` for the next pass.
#define CLCG_TEAM_MAX_INTO(out, i, rows, slot, mine, lane, team, MAX)                      \
  slot[get_local_id(0)] = (mine);                                                          \
  barrier(CLK_LOCAL_MEM_FENCE);                                                            \
  for (uint width = (team) / 2; width > 0; width >>= 1) {                                  \
    if ((lane) < width) slot[get_local_id(0)] = MAX(slot[get_local_id(0)], slot[get_local_id(0) + width]); \
    barrier(CLK_LOCAL_MEM_FENCE);                                                          \
  }                                                                                        \
  if ((lane) == 0 && (i) < (rows)) out[i] = slot[get_local_id(0)];                         \
  barrier(CLK_LOCAL_MEM_FENCE);

// coupling_max with teams (long rows: a coarse level's 30-90 entries). The largest of the same
// values: the same bits for any team.
__kernel __attribute__((reqd_work_group_size(TEAM_GROUP, 1, 1)))
void coupling_max_team(const uint rows, const uint team, __global const int* row, __global const int* col,
                       __global const REAL* val, __global const REAL* diag, __global REAL* most) {
  __local REAL slot[TEAM_GROUP];
  CLCG_FOR_EACH_TEAM_PASS(i, lane, rows, team) {
    REAL m = 0;
    if (i < rows)
      for (int k = row[i] + (int)lane; k < row[i + 1]; k += (int)team) {
        const int j = col[k];
        const REAL dd = fabs(diag[i] * diag[j]);
        if (j != (int)i && dd != (REAL)0) m = fmax(m, val[k] * val[k] / dd);
      }
    CLCG_TEAM_MAX_INTO(most, i, rows, slot, m, lane, team, fmax)
  }
}

// The strength marks of A's entries: STRONG where entry k is a strong connection (the pattern
// A_f keeps), DIAGONAL on the diagonal, WEAK elsewhere.
#define WEAK 0
#define STRONG 1
#define DIAGONAL 2

__kernel void strength_mask(const uint rows, const uint team, __global const int* row, __global const int* col,
                            __global const REAL* val, __global const REAL* diag, __global const REAL* most,
                            const REAL theta2, __global uchar* strong) {
  CLCG_FOR_EACH_TEAM_ROW(i, lane, rows, team)
  for (int k = row[i] + (int)lane; k < row[i + 1]; k += (int)team)
    strong[k] = col[k] == (int)i                                                ? DIAGONAL
                : is_strong(i, col[k], val[k], diag[i], diag[col[k]], most[i], most[col[k]], theta2) ? STRONG
                                                                              : WEAK;
}

// count[i] = 1 + strong entries of row i: A_f's row lengths. *changed = 1 where a row of A_f
// is not row i of A (a weak entry, or not exactly one diagonal entry); left alone elsewhere.
__kernel void filter_count(const uint rows, __global const int* row, __global const uchar* strong,
                           __global int* count, __global int* changed) {
  CLCG_FOR_EACH(uint, i, rows) {
    int c = 1, kept = 0, diagonals = 0;
    for (int k = row[i]; k < row[i + 1]; ++k) {
      c += strong[k] == STRONG;
      kept += strong[k] != WEAK;
      diagonals += strong[k] == DIAGONAL;
    }
    count[i] = c;
    if (kept != row[i + 1] - row[i] || diagonals != 1) *changed = 1;
  }
}

// Of the chunk [c, chunk_end) of a row that a team takes `team` entries at a time: its strong
// entries (returned) and, in *before, those ahead of entry k (the lane's).
inline int strong_in_chunk(__global const uchar* strong, const int c, const int chunk_end, const int k, int* before) {
  int chunk = 0, ahead = 0;
  for (int e = c; e < chunk_end; ++e) {
    const int s = strong[e] == STRONG;
    chunk += s;
    ahead += e < k ? s : 0;
  }
  *before = ahead;
  return chunk;
}

// A_f's entries. A team takes its row
// `team` entries at a time; an entry's place counts the strong entries before it (those of
// earlier chunks carried, those of its chunk counted by each work-item). The diagonal, with
// the weak entries added in the row's order, by the team's first work-item.
__kernel void filter_fill(const uint rows, const uint team, __global const int* row, __global const int* col,
                          __global const REAL* val, __global const uchar* strong, __global const int* f_row,
                          __global int* f_col, __global REAL* f_val) {
  CLCG_FOR_EACH_TEAM_ROW(i, lane, rows, team) {
    const int begin = row[i], end = row[i + 1];
    int before = f_row[i] + 1;  // where the chunk's first strong entry goes
    for (int c = begin; c < end; c += (int)team) {
      const int k = c + (int)lane, chunk_end = min(end, c + (int)team);
      int mine;
      const int chunk = strong_in_chunk(strong, c, chunk_end, k, &mine);
      if (k < end && strong[k] == STRONG) {
        f_col[before + mine] = col[k];
        f_val[before + mine] = val[k];
      }
      before += chunk;
    }
    if (lane == 0) {
      REAL dia = 0;
      for (int k = begin; k < end; ++k)
        if (strong[k] != STRONG) dia += val[k];
      f_col[f_row[i]] = (int)i;
      f_val[f_row[i]] = dia;
    }
  }
}

// ---- The independent set. A row's key orders rows by state (in > undecided > out), then a
// hash of its index, then the index: unique, the same on every run.
#define MIS_OUT 0u
#define MIS_UNDECIDED 1u
#define MIS_IN 2u

inline uint row_hash(uint i) {
  i ^= i >> 16;
  i *= 0x7feb352dU;
  i ^= i >> 15;
  i *= 0x846ca68bU;
  i ^= i >> 16;
  return i;
}

inline ulong mis_key(const uint state, const uint i) {
  return ((ulong)state << 62) | ((ulong)(row_hash(i) & 0x3fffffffU) << 32) | (ulong)i;
}

// A row with a strong connection starts undecided; one without is out (and never aggregated).
__kernel void mis_start(const uint rows, __global const int* f_row, __global uint* state, __global ulong* key) {
  CLCG_FOR_EACH(uint, i, rows) {
    state[i] = f_row[i + 1] - f_row[i] > 1 ? MIS_UNDECIDED : MIS_OUT;
    key[i] = mis_key(state[i], i);
  }
}

// Rounds from which mis_neighbour_max visits only the rows an undecided row will read (marked
// by mis_decide in the round before). Before it nearly every row is such a row: only the
// winners of round 1 are decided in it (their neighbours leave in round 2), and marking them
// would cost more than the pass it saves. (The host's solver::mis_marked_from: the same number.)
#define MIS_MARKED_FROM 3

// A round's first step: most[i] = the largest key over row i of A_f (which holds i itself).
__kernel void mis_neighbour_max(const uint rows, __global const int* f_row, __global const int* f_col,
                                __global const uchar* near, const int round, __global const ulong* key,
                                __global ulong* most) {
  CLCG_FOR_EACH(uint, i, rows) {
    if (round >= MIS_MARKED_FROM && near[i] != (uchar)round) continue;
    ulong m = key[i];
    for (int k = f_row[i]; k < f_row[i + 1]; ++k) m = max(m, key[f_col[k]]);
    most[i] = m;
  }
}

// The round's decision, for the undecided rows: the largest `most` over row i is the largest
// key within distance 2. A row that holds it joins the set, one that sees a row of the set
// leaves; `last` puts them all in. A row still undecided makes undecided[round] nonzero (one
// count a work-item that holds one: a count a row queues every row on one atomic, 3.3 ms of
// the first round's 4.0 at 512^3 on an H200 in mis_settle) and marks the rows it reads for the
// next round (each writer stores the same value; rounds are fewer than 256). The decided rows'
// keys never change again, so a row with no undecided neighbour drops out of
// mis_neighbour_max: late rounds cost little.
__kernel void mis_decide(const uint rows, __global const int* f_row, __global const int* f_col,
                         __global const ulong* most, const int round, const int last, __global uint* state,
                         __global ulong* key, __global uchar* near, __global int* undecided) {
  int left = 0;
  CLCG_FOR_EACH(uint, i, rows) {
    if (state[i] != MIS_UNDECIDED) continue;
    ulong m = most[i];
    for (int k = f_row[i]; k < f_row[i + 1]; ++k) m = max(m, most[f_col[k]]);
    uint now = MIS_UNDECIDED;
    if ((uint)(m & 0xffffffffUL) == i || last) {
      now = MIS_IN;
    } else if ((uint)(m >> 62) == MIS_IN) {
      now = MIS_OUT;
    } else {
      left = 1;
      if (round + 1 >= MIS_MARKED_FROM) {
        near[i] = (uchar)(round + 1);
        for (int k = f_row[i]; k < f_row[i + 1]; ++k) near[f_col[k]] = (uchar)(round + 1);
      }
    }
    state[i] = now;
    key[i] = mis_key(now, i);
  }
  if (left) atomic_inc(&undecided[round]);
}

__kernel void mis_members(const uint rows, __global const uint* state, __global int* count) {
  CLCG_FOR_EACH(uint, i, rows) count[i] = state[i] == MIS_IN;
}

// ---- Aggregates: each row of the set seeds one (numbered in row order: `seed` is the scan of
// mis_members); a row next to seeds joins the one with the largest key; a row two steps away
// joins the aggregate of the neighbour with the largest key that has one. Rows left over
// (only where A_f's graph is not symmetric) stay unaggregated, as rows with no strong connection.
__kernel void join_seeds(const uint rows, __global const int* f_row, __global const int* f_col,
                         __global const uint* state, __global const int* seed, __global int* aggregate) {
  CLCG_FOR_EACH(uint, i, rows) {
    int joined = -1;
    if (state[i] == MIS_IN) {
      joined = seed[i];
    } else {
      ulong best = 0;
      for (int k = f_row[i]; k < f_row[i + 1]; ++k) {
        const uint j = (uint)f_col[k];
        if (j != i && state[j] == MIS_IN && mis_key(MIS_IN, j) > best) best = mis_key(MIS_IN, j), joined = seed[j];
      }
    }
    aggregate[i] = joined;
  }
}

__kernel void join_neighbours(const uint rows, __global const int* f_row, __global const int* f_col,
                              __global const int* first, __global int* aggregate) {
  CLCG_FOR_EACH(uint, i, rows) {
    int joined = first[i];
    if (joined < 0) {
      ulong best = 0;
      for (int k = f_row[i]; k < f_row[i + 1]; ++k) {
        const uint j = (uint)f_col[k];
        if (j != i && first[j] >= 0 && mis_key(MIS_IN, j) > best) best = mis_key(MIS_IN, j), joined = first[j];
      }
    }
    aggregate[i] = joined;
  }
}

// ---- The tentative prolongator of the level's near-null space B (rows x k, row-major: the
// constant on the finest level of a scalar problem, one constant a component, rigid body
// modes, ...), over aggregates of nodes (`block` consecutive rows each: a node's components
// share its aggregate). Aggregate g's block of B (its rows, in order) is orthonormalised,
// B_g = Q_g R_g; P_tent's rows of the aggregate hold Q_g in columns g k .. g k + k - 1 and the
// next level's candidates are the R_g (count k rows, k columns), so that P_tent B_c = B.
// P_tent is filled with B, transposed (T: aggregate g's column j is T's row g k + j, every one
// of them over the aggregate's rows in the same order: the block is column-major in T's values),
// orthonormalised there in a fixed order and scattered back. Then P = P_tent -
// omega D^-1 A P_tent in place on A P_tent (whose pattern holds every entry of P_tent);
// P_tent is kept, so new values of A give a new P without aggregating again.
#ifndef MAX_CANDIDATES
#define MAX_CANDIDATES 16
#endif

// out[i k + j] = 1 where row i is component j of its node (i % k == j), else 0: one constant
// vector a component, the near-null space of a block system with no vectors given.
__kernel void component_constants(const uint rows, const uint k, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, rows)
  for (uint j = 0; j < k; ++j) out[(size_t)i * k + j] = i % k == j ? (REAL)1 : (REAL)0;
}

// The node matrix of A whose nodes are `block` consecutive rows: entry (u, v) is the Frobenius
// norm of A's block (u, v), for the strength of connection between nodes. A node's columns are
// its rows' columns / block, merged in order (A's rows sorted); `fill` 0 counts them into
// n_count, 1 writes them and the norms (each summed row by row, in column order).
// This kernel takes the nodes whose rows hold more than BLOCK_STAGE entries (block_norms_team
// takes the others; skip_team 0: every node).
#define BLOCK_GROUP 64
#define BLOCK_STAGE 1024
__kernel void block_norms(const uint nodes, const uint block, const int fill, const int skip_team,
                          __global const int* row, __global const int* col, __global const REAL* val,
                          __global int* n_count, __global const int* n_row, __global int* n_col,
                          __global REAL* n_val) {
  CLCG_FOR_EACH(uint, u, nodes) {
    if (skip_team && row[u * block + block] - row[u * block] <= BLOCK_STAGE) continue;
    int at[MAX_CANDIDATES], end[MAX_CANDIDATES];
    for (uint c = 0; c < block; ++c) at[c] = row[u * block + c], end[c] = row[u * block + c + 1];
    int emitted = 0;
    for (;;) {
      int next = INT_MAX;
      for (uint c = 0; c < block; ++c)
        if (at[c] < end[c]) next = min(next, col[at[c]] / (int)block);
      if (next == INT_MAX) break;
      REAL sum = 0;
      for (uint c = 0; c < block; ++c)
        for (; at[c] < end[c] && col[at[c]] / (int)block == next; ++at[c]) sum += val[at[c]] * val[at[c]];
      if (fill) {
        n_col[n_row[u] + emitted] = next;
        n_val[n_row[u] + emitted] = sqrt(sum);
      }
      ++emitted;
    }
    if (!fill) n_count[u] = emitted;
  }
}

// The first place in [begin, end) of the sorted `list` whose value is not below v.
inline int lower_bound_local(__local const int* list, int begin, int end, const int v) {
  while (begin < end) {
    const int mid = (begin + end) / 2;
    if (list[mid] < v) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

// block_norms for a node whose rows hold at most BLOCK_STAGE entries, by a group: the rows'
// entries read side by side into local memory as (node column, square), each row's node columns
// in order; a node column is new where it starts a run of its row and no earlier row holds it;
// the new ones are ranked (their places in the node's sorted row), and each place sums its
// squares row by row in column order, as block_norms does (the same bits).
__kernel __attribute__((reqd_work_group_size(BLOCK_GROUP, 1, 1)))
void block_norms_team(const uint nodes, const uint block, const int fill, __global const int* row,
                      __global const int* col, __global const REAL* val, __global int* n_count,
                      __global const int* n_row, __global int* n_col, __global REAL* n_val) {
  __local int node_col[BLOCK_STAGE], distinct[BLOCK_STAGE];
  __local REAL square[BLOCK_STAGE];
  __local int starts[MAX_CANDIDATES + 1];  // row c of the node: entries [starts[c], starts[c + 1])
  __local volatile int found;
  const int lane = (int)get_local_id(0);
  for (uint u = get_group_id(0); u < nodes; u += get_num_groups(0)) {
    const int first = row[u * block], total = row[u * block + block] - first;
    if (total > BLOCK_STAGE) continue;  // (the same for the whole group) left to block_norms
    if (lane <= (int)block) starts[lane] = row[u * block + (uint)lane] - first;
    if (lane == 0) found = 0;
    for (int e = lane; e < total; e += BLOCK_GROUP) {
      node_col[e] = col[first + e] / (int)block;
      square[e] = val[first + e] * val[first + e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lane; e < total; e += BLOCK_GROUP) {
      int c = 0;
      while (e >= starts[c + 1]) ++c;
      const int v = node_col[e];
      bool fresh = e == starts[c] || node_col[e - 1] != v;
      for (int r = 0; r < c && fresh; ++r) {
        const int at = lower_bound_local(node_col, starts[r], starts[r + 1], v);
        fresh = at == starts[r + 1] || node_col[at] != v;
      }
      if (fresh) distinct[atomic_inc(&found)] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int count = found;
    if (!fill && lane == 0) n_count[u] = count;
    for (int d = fill ? lane : count; d < count; d += BLOCK_GROUP) {
      const int v = distinct[d];
      int rank = 0;
      for (int t = 0; t < count; ++t) rank += distinct[t] < v;
      REAL sum = 0;
      for (uint c = 0; c < block; ++c)
        for (int k = lower_bound_local(node_col, starts[c], starts[c + 1], v); k < starts[c + 1] && node_col[k] == v; ++k)
          sum += square[k];
      n_col[n_row[u] + rank] = v;
      n_val[n_row[u] + rank] = sqrt(sum);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next node overwrites the arrays
  }
}

// count[i] = k where row i's node (i / block) is aggregated, else 0: P_tent's row lengths.
__kernel void tentative_count(const uint rows, const uint block, const uint k, __global const int* aggregate,
                              __global int* count) {
  CLCG_FOR_EACH(uint, i, rows) count[i] = aggregate[i / block] >= 0 ? (int)k : 0;
}

__kernel void tentative_fill(const uint rows, const uint block, const uint k, __global const int* aggregate,
                             __global const REAL* candidates, __global const int* t_row, __global int* t_col,
                             __global REAL* t_val) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int g = aggregate[i / block];
    if (g < 0) continue;
    for (uint j = 0; j < k; ++j) {
      t_col[t_row[i] + j] = g * (int)k + (int)j;
      t_val[t_row[i] + j] = candidates[(size_t)i * k + j];
    }
  }
}

// Modified Gram-Schmidt on aggregate g's block (m rows, column j at q + j m), each column's
// projections taken twice (the second removes what the first's rounding left). A column whose
// norm falls to `dependent` times its norm before is a combination of the ones before it on
// this aggregate: it becomes 0, and so does R's diagonal entry (its projections stay in R, so
// Q R is still the block). coarse[(g k + l) k + j] = R_lj.
__kernel void tentative_qr(const uint aggregates, const uint k, const REAL dependent, __global const int* t_row,
                           __global REAL* t_val, __global REAL* coarse) {
  CLCG_FOR_EACH(uint, g, aggregates) {
    const int m = t_row[g * k + 1] - t_row[g * k];
    __global REAL* q = t_val + t_row[g * k];
    for (uint j = 0; j < k; ++j) {
      __global REAL* v = q + j * m;
      REAL r[MAX_CANDIDATES];
      REAL before = 0;
      if (j > 0)
        for (int e = 0; e < m; ++e) before += v[e] * v[e];
      for (uint l = 0; l < j; ++l) r[l] = 0;
      for (int pass = 0; pass < (j > 0 ? 2 : 0); ++pass)
        for (uint l = 0; l < j; ++l) {
          __global const REAL* ql = q + l * m;
          REAL dot = 0;
          for (int e = 0; e < m; ++e) dot += ql[e] * v[e];
          for (int e = 0; e < m; ++e) v[e] -= dot * ql[e];
          r[l] += dot;
        }
      REAL sum = 0;
      for (int e = 0; e < m; ++e) sum += v[e] * v[e];
      const REAL norm = sqrt(sum);
      const bool kept = norm != (REAL)0 && (j == 0 || norm > dependent * sqrt(before));
      for (int e = 0; e < m; ++e) v[e] = kept ? v[e] / norm : (REAL)0;
      for (uint l = 0; l < k; ++l)
        coarse[((size_t)g * k + l) * k + j] = l < j ? r[l] : l == j && kept ? norm : (REAL)0;
    }
  }
}

// P_tent's values from T's: T's entry (g k + j, i) is the j-th of P_tent's row i.
__kernel void tentative_scatter(const uint t_rows, const uint k, __global const int* t_row, __global const int* t_col,
                                __global const REAL* t_val, __global const int* p_row, __global REAL* p_val) {
  CLCG_FOR_EACH(uint, c, t_rows) {
    const uint j = c % k;
    for (int e = t_row[c]; e < t_row[c + 1]; ++e) p_val[p_row[t_col[e]] + j] = t_val[e];
  }
}

// P_tent's entries of row i are consecutive columns (its aggregate's k), so P's entry in
// column c adds P_tent's (i, c) where c is among them.
__kernel void smooth_prolongator(const uint rows, __global const int* t_row, __global const int* t_col,
                                 __global const REAL* t_val, __global const REAL* inv_diag, const REAL omega,
                                 __global const int* p_row, __global const int* p_col, __global REAL* p_val) {
  CLCG_FOR_EACH(uint, i, rows) {
    const int t = t_row[i], in_row = t_row[i + 1] - t;
    const int first = in_row > 0 ? t_col[t] : 0;
    for (int k = p_row[i]; k < p_row[i + 1]; ++k) {
      REAL v = -omega * inv_diag[i] * p_val[k];
      const int c = p_col[k] - first;
      if (c >= 0 && c < in_row) v += t_val[t + c];
      p_val[k] = v;
    }
  }
}
