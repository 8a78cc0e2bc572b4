// What every kernel that walks a matrix's rows and writes dot partials shares (cg_fused.cl,
// chebyshev.cl, multigrid.cl include it): the work-group size, the group partial, and the
// three row layouts of clcg's SpMV (as spmv_csr.cl and spmv_ell.cl) as macros, one copy of
// each loop. WG_SIZE (a power of two) is the work-group size the host launches with.
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#if (WG_SIZE & (WG_SIZE - 1)) != 0
#error "WG_SIZE must be a power of two"
#endif


// Writes the group's sum of `value` to partials[slot * groups + group]. All work-items call
// it; the trailing barrier lets the caller reuse scratch at once.
inline void write_partial(__local REAL* scratch, REAL value, __global REAL* partials, uint slot) {
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  clcg_tree_sequential(scratch, lid, WG_SIZE);
  if (lid == 0) partials[slot * get_num_groups(0) + get_group_id(0)] = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The three row layouts of the SpMV passes below (as spmv_csr.cl and spmv_ell.cl). Each sums
// A[row, c] * VALUE(c) over a row and hands the sum to FINISH(row, sum); OpenCL C has no
// templates, so the macros keep one copy of each loop for both CG variants that use them.
// Every work-item of a group reaches every barrier of the vector layout (see spmv_csr_vector).
#define CSR_SCALAR_ROWS(VALUE, FINISH)                                           \
  CLCG_FOR_EACH(uint, at, rows - first) {                                       \
    const uint row = first + at;                                                \
    const int end = row_ptr[row + 1];                                           \
    REAL sum = 0;                                                               \
    for (int j = row_ptr[row]; j < end; ++j) {                                  \
      const int c = col_idx[j];                                                 \
      sum += values[j] * VALUE(c);                                              \
    }                                                                           \
    FINISH(row, sum);                                                           \
  }

#define CSR_VECTOR_ROWS(VALUE, FINISH)                                                   \
  const uint lid = get_local_id(0);                                                     \
  const uint lane = lid & (vector_size - 1);                                            \
  const uint rows_per_group = WG_SIZE / vector_size;                                    \
  const uint row_in_group = lid / vector_size;                                          \
  const uint step = get_num_groups(0) * rows_per_group;                                 \
  for (uint base = first + get_group_id(0) * rows_per_group; base < rows; base += step) { \
    const uint row = base + row_in_group;                                               \
    REAL sum = 0;                                                                       \
    if (row < rows) {                                                                   \
      const int end = row_ptr[row + 1];                                                 \
      for (int j = row_ptr[row] + (int)lane; j < end; j += (int)vector_size) {          \
        const int c = col_idx[j];                                                       \
        sum += values[j] * VALUE(c);                                                    \
      }                                                                                 \
    }                                                                                   \
    scratch[lid] = sum;                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    for (uint s = vector_size / 2; s > 0; s >>= 1) {                                    \
      if (lane < s) scratch[lid] += scratch[lid + s];                                   \
      barrier(CLK_LOCAL_MEM_FENCE);                                                     \
    }                                                                                   \
    if (lane == 0 && row < rows) FINISH(row, scratch[lid]); /* lane 0 keeps the dots */ \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
  }

#define ELL_ROWS(VALUE, FINISH)                                                  \
  CLCG_FOR_EACH(uint, at, rows - first) {                                       \
    const uint row = first + at;                                                \
    REAL sum = 0;                                                               \
    for (uint k = 0; k < width; ++k) {                                          \
      const int c = ell_col[(size_t)k * stride + row];                          \
      sum += ell_val[(size_t)k * stride + row] * VALUE(c);                      \
    }                                                                           \
    FINISH(row, sum);                                                           \
  }

// The matrix arguments of each layout, first in every SpMV pass: the pass visits rows
// [first, rows), every row but where a halo exchange runs beside the rows that read no ghost
// (distributed_amg.cpp); an ELL copy's slots lie `stride` (the matrix's rows) apart.
#define CSR_SCALAR_ARGS \
  const uint first, const uint rows, __global const int *row_ptr, __global const int *col_idx, __global const REAL *values
#define CSR_VECTOR_ARGS                                                                                              \
  const uint first, const uint rows, const uint vector_size, __global const int *row_ptr, __global const int *col_idx, \
      __global const REAL *values
#define ELL_ARGS                                                                                             \
  const uint first, const uint rows, const uint stride, const uint width, __global const int *ell_col, \
      __global const REAL *ell_val

// A pass of the three layouts, <base>_scalar, <base>_vector and <base>_ell: each row's sum of
// A[row, c] * VALUE(c) handed to FINISH(row, sum); the layout's matrix arguments, then the
// kernel's own, which KERNEL_ARGS() lists (a function-like macro passed by its name, so that
// its commas come in after the arguments are split: no variadic macro, which NVIDIA's OpenCL
// compiler rejects).
#define ROW_PASS(name, MATRIX_ARGS, ROWS, VALUE, FINISH, KERNEL_ARGS)                                   \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(MATRIX_ARGS, KERNEL_ARGS()) { \
    __local REAL scratch[WG_SIZE];                                                                     \
    ROWS(VALUE, FINISH)                                                                                \
  }
#define ROW_PASSES(base, VALUE, FINISH, KERNEL_ARGS)                                    \
  ROW_PASS(base##_scalar, CSR_SCALAR_ARGS, CSR_SCALAR_ROWS, VALUE, FINISH, KERNEL_ARGS) \
  ROW_PASS(base##_vector, CSR_VECTOR_ARGS, CSR_VECTOR_ROWS, VALUE, FINISH, KERNEL_ARGS) \
  ROW_PASS(base##_ell, ELL_ARGS, ELL_ROWS, VALUE, FINISH, KERNEL_ARGS)
