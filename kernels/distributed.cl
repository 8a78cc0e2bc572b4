// The distributed CG's kernels (solver/distributed/): the SpMV of a rank's rows and the fused
// CG passes built on it, dot partials over fixed global chunks, and the
// Chebyshev preconditioner's passes. Every result here depends only on the data and on CHUNK /
// DOT_WG (fixed for a global problem), never on which rank runs it, so the solve has the same
// bits for any number of ranks.
// -D REAL=..., -D CHUNK=... (elements per dot chunk), -D DOT_WG=... (its work-group, a power of
// two dividing CHUNK) and -D ELL_LAYOUT (the rows' layout) come from the host; the defaults
// only let the file build alone.
#ifndef CHUNK
#define CHUNK 256
#endif
#ifndef DOT_WG
#define DOT_WG 256
#endif

// A rank's rows in one of two layouts, the same on every rank of a problem (DistributedCg
// picks it from the global row lengths): CSR with 64-bit offsets (a rank may hold more than
// 2^31 nonzeros), or with -D ELL_LAYOUT an ELL copy of `width` slots a row, column-major
// (slot k of row i at k * rows + i: coalesced reads), rows padded with zeros (on the row's own
// column from the host, on its last from the device: a zero adds nothing). Either way a row's sum runs over its entries in stored (global column) order, so it
// has the same bits whichever rank holds the row. Columns are local (owned, then ghosts).
#define MATRIX_ARGS                                                                                    \
  const uint rows, const uint width, __global const ulong *row_ptr, __global const int *col, \
      __global const REAL *values
#ifdef ELL_LAYOUT
#define ROW_SUM(row, sum, VALUE)                          \
  for (uint k_ = 0; k_ < width; ++k_) {                   \
    const ulong at_ = (ulong)k_ * rows + (row);           \
    sum += values[at_] * VALUE(col[at_]);                 \
  }
#else
#define ROW_SUM(row, sum, VALUE)                                                   \
  for (ulong j_ = row_ptr[row], end_ = row_ptr[(row) + 1]; j_ < end_; ++j_) \
    sum += values[j_] * VALUE(col[j_]);
#endif

// Every row kernel below walks the rank's dot chunks (rows c*CHUNK .. +CHUNK, whose first row
// is a multiple of CHUNK globally), a work-group a chunk at a time (group g takes chunks g,
// g + groups, ...), work-item l taking rows l, l + DOT_WG, ... of it: a chunk's partial sums
// have one order wherever the chunk lives and however many groups run.
#define FOR_EACH_CHUNK(chunk) \
  for (uint chunk = get_group_id(0), chunk##s_ = (rows + CHUNK - 1) / CHUNK; chunk < chunk##s_; chunk += get_num_groups(0))
#define CHUNK_ROWS(row, chunk)                                                    \
  for (uint row = (chunk) * CHUNK + get_local_id(0), row##_end = min(((chunk) + 1) * CHUNK, rows); \
       row < row##_end; row += DOT_WG)

// Which rows a pass computes: all of them (a rank with no ghosts), those that need no ghost
// value (while the ghosts travel), or those that do (after), by `boundary` (1 on such rows).
// The boundary pass visits only the chunks listed in chunk_list (those holding a boundary
// row); chunk_flag marks them (1) for the interior pass, which leaves their partials to it.
#define PASS_ARGS                                                                                   \
  const uint pass, __global const uchar *boundary, __global const uchar *chunk_flag,              \
      __global const uint *chunk_list, const uint listed
// The chunks a pass visits, a work-group at a time.
#define PASS_CHUNKS(chunk)                                                                           \
  for (uint i_ = get_group_id(0), n_ = pass == BOUNDARY_ROWS ? listed : (rows + CHUNK - 1) / CHUNK; i_ < n_; \
       i_ += get_num_groups(0))                                                                        \
    for (uint chunk = pass == BOUNDARY_ROWS ? chunk_list[i_] : i_, once_ = 1; once_; once_ = 0)
// Whether this pass writes the chunk's partials: every pass but the interior one, which does
// only for chunks without boundary rows.
#define WRITES_PARTIAL(chunk) (pass != INTERIOR_ROWS || chunk_flag[chunk] == 0)
#define ALL_ROWS 0
#define INTERIOR_ROWS 1
#define BOUNDARY_ROWS 2
#define SKIPS(pass, boundary, row) ((pass) != ALL_ROWS && ((boundary)[row] != 0) != ((pass) == BOUNDARY_ROWS))

#ifdef REAL_IS_DOUBLE
#define ACC double
#else
#define ACC float
#endif

// partials[slot * chunks + chunk] = the work-items' sum of `value`, by the halving tree of
// chunk_dots. Every work-item calls it; the trailing barrier frees scratch.
inline void chunk_partial(__local ACC* scratch, ACC value, __global ACC* partials, uint slot, uint chunk, uint rows) {
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = DOT_WG / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] += scratch[lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[slot * ((rows + CHUNK - 1) / CHUNK) + chunk] = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
}

// y = A x on the rows `pass` selects.
#define PLAIN(c) x[c]
__kernel __attribute__((reqd_work_group_size(DOT_WG, 1, 1)))
void spmv_rows(MATRIX_ARGS, PASS_ARGS, __global const REAL* x, __global REAL* y) {
  PASS_CHUNKS(chunk) CHUNK_ROWS(row, chunk) {
    if (SKIPS(pass, boundary, row)) continue;
    REAL sum = 0;
    ROW_SUM(row, sum, PLAIN)
    y[row] = sum;
  }
}

// The fused CG's first pass (as kernels/cg_fused.cl's, one device): p = z + beta p_old, built
// wherever the SpMV needs it (ghost columns too: z's and p_old's ghost values are there), so
// p is written once; q = A p; the previous step's x += alpha_x p_old, deferred to here; the
// chunk partials of p . q. A chunk with boundary rows gets its partials from the boundary pass,
// which reads its interior rows' p and q back for them.
#define DIRECTION(c) fma(beta, p_old[c], z[c])
__kernel __attribute__((reqd_work_group_size(DOT_WG, 1, 1)))
void direction_spmv(MATRIX_ARGS, PASS_ARGS, const REAL beta, const REAL alpha_x,
                    __global const REAL* z, __global const REAL* p_old, __global REAL* p, __global REAL* q,
                    __global REAL* x, __global ACC* partials) {
  __local ACC scratch[DOT_WG];
  PASS_CHUNKS(chunk) {
    ACC pq = 0;
    CHUNK_ROWS(row, chunk) {
      REAL p_row, q_row;
      if (SKIPS(pass, boundary, row)) {
        if (pass == INTERIOR_ROWS) continue;
        p_row = p[row];
        q_row = q[row];
      } else {
        REAL sum = 0;
        ROW_SUM(row, sum, DIRECTION)
        p_row = DIRECTION(row);
        q_row = sum;
        p[row] = p_row;
        q[row] = sum;
        x[row] = fma(alpha_x, p_old[row], x[row]);
      }
      pq += (ACC)p_row * (ACC)q_row;
    }
    if (WRITES_PARTIAL(chunk)) chunk_partial(scratch, pq, partials, 0, chunk, rows);
  }
}

// p = z + beta p_old at the ghosts (p[rows + g]): the next step's p_old there.
__kernel void ghost_direction(const uint rows, const uint ghosts, const REAL beta, __global const REAL* z,
                              __global const REAL* p_old, __global REAL* p) {
  CLCG_FOR_EACH(uint, g, ghosts) p[rows + g] = fma(beta, p_old[rows + g], z[rows + g]);
}

// The fused CG's second pass: r -= alpha q ; z = inv_diag .* r (with Jacobi; else z is r) ;
// the chunk partials of r . z (slot 0) and r . r (slot 1).
__kernel __attribute__((reqd_work_group_size(DOT_WG, 1, 1)))
void update_residual(const uint rows, const REAL alpha, const uint jacobi, __global const REAL* q,
                     __global const REAL* inv_diag, __global REAL* r, __global REAL* z, __global ACC* partials) {
  __local ACC scratch[DOT_WG];
  FOR_EACH_CHUNK(chunk) {
    ACC rz = 0, rr = 0;
    CHUNK_ROWS(row, chunk) {
      const REAL r_row = fma(-alpha, q[row], r[row]);
      r[row] = r_row;
      REAL z_row = r_row;
      if (jacobi) {
        z_row = inv_diag[row] * r_row;
        z[row] = z_row;
      }
      rz += (ACC)r_row * (ACC)z_row;
      rr += (ACC)r_row * (ACC)r_row;
    }
    chunk_partial(scratch, rz, partials, 0, chunk, rows);
    chunk_partial(scratch, rr, partials, 1, chunk, rows);
  }
}


// partials[d * groups + g] = the sum over chunk g (elements g*CHUNK .. +CHUNK, cut at n) of
// a_d[i] * b_d[i], for d < dots (1 to 3). Work-item l takes elements l, l + DOT_WG, ... of its
// chunk, then a halving tree: the same order for a chunk wherever it lives. Accumulates in
// double where the device has it.
__kernel __attribute__((reqd_work_group_size(DOT_WG, 1, 1)))
void chunk_dots(ulong n, uint dots, __global const REAL* a0, __global const REAL* b0, __global const REAL* a1,
                __global const REAL* b1, __global const REAL* a2, __global const REAL* b2,
                __global ACC* partials) {
  __local ACC scratch[3][DOT_WG];
  const uint lid = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
  const ulong begin = (ulong)g * CHUNK;
  ACC s0 = 0, s1 = 0, s2 = 0;
  for (uint k = lid; k < CHUNK; k += DOT_WG) {
    const ulong i = begin + k;
    if (i >= n) break;
    s0 += (ACC)a0[i] * (ACC)b0[i];
    if (dots > 1) s1 += (ACC)a1[i] * (ACC)b1[i];
    if (dots > 2) s2 += (ACC)a2[i] * (ACC)b2[i];
  }
  scratch[0][lid] = s0;
  scratch[1][lid] = s1;
  scratch[2][lid] = s2;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = DOT_WG / 2; width > 0; width /= 2) {
    if (lid < width)
      for (uint d = 0; d < 3; ++d) scratch[d][lid] += scratch[d][lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    for (uint d = 0; d < dots; ++d) partials[d * groups + g] = scratch[d][0];
}

// Chebyshev preconditioning of the distributed CG, z = p(D^-1 A) D^-1 r (as ChebyshevSmoother
// from a zero guess, Saad Algorithm 12.1), one element-wise pass around each distributed SpMV:
// start: d = D^-1 r / theta, z = d; then per SpMV w = A z:
// d = c_d d + c_r D^-1 (r - w), z += d. Each row's values depend on its own entries only.
__kernel void chebyshev_start(const uint rows, const REAL inv_theta, __global const REAL* inv_diag,
                              __global const REAL* r, __global REAL* d, __global REAL* z) {
  CLCG_FOR_EACH(uint, i, rows) {
    const REAL di = inv_diag[i] * r[i] * inv_theta;
    d[i] = di;
    z[i] = di;
  }
}

__kernel void chebyshev_update(const uint rows, const REAL c_d, const REAL c_r, __global const REAL* inv_diag,
                               __global const REAL* r, __global const REAL* w, __global REAL* d, __global REAL* z) {
  CLCG_FOR_EACH(uint, i, rows) {
    const REAL di = fma(c_d, d[i], c_r * inv_diag[i] * (r[i] - w[i]));
    d[i] = di;
    z[i] += di;
  }
}

// ---- The rows made from the AMG set-up's copy on the device (CSR with 32-bit offsets, local
// columns), so the host does not upload A a second time (its ELL copy: spmv_ell.cl's csr_to_ell).
// The CSR layout's 64-bit offsets.
__kernel void widened_offsets(const uint count, __global const int* narrow, __global ulong* wide) {
  CLCG_FOR_EACH(uint, i, count) wide[i] = (ulong)narrow[i];
}

// boundary[i] = 1 where row i has a ghost column (one at or past `owned`), else 0.
__kernel void ghost_rows(const uint rows, const int owned, __global const int* row_ptr, __global const int* col_idx,
                         __global uchar* boundary) {
  CLCG_FOR_EACH(uint, i, rows) {
    uchar touches = 0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) touches |= col_idx[k] >= owned ? 1 : 0;
    boundary[i] = touches;
  }
}

// chunk_flag[c] = 1 for each dot chunk c holding a boundary row (chunk_flag zeroed before).
__kernel void boundary_chunks(const uint rows, __global const uchar* boundary, __global uchar* chunk_flag) {
  CLCG_FOR_EACH(uint, i, rows) {
    if (boundary[i]) chunk_flag[i / CHUNK] = 1;
  }
}
