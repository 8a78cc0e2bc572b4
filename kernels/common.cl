// Prepended to every clcg program. OpenCL C 1.2 (NVIDIA's OpenCL C is 1.2).
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

// Element type of the vectors (-D REAL=float|double); double by default when available.
#ifndef REAL
#ifdef cl_khr_fp64
#define REAL double
#define REAL_IS_DOUBLE
#else
#define REAL float
#endif
#endif
// Set by the host with -D REAL=double, where code must know the width (bit casts).
#if defined(REAL_IS_DOUBLE) && !defined(cl_khr_fp64)
#error "double precision needs cl_khr_fp64, which this device lacks"
#endif

// ---- Which items a work-item takes --------------------------------------------------
// CLCG_FOR_EACH(T, i, n) visits this work-item's items i of [0, n), each item by exactly one
// work-item, as the host's launch shape lays them out (clcg/cl/launch_policy.hpp):
//   GPU (default)                 a grid stride: i = global id, + global size, ... (coalesced)
//   CPU (-D CLCG_CONTIGUOUS,      one contiguous block of ceil(n / global size) items, in order
//        added by the runtime)    (vectorised, prefetched)
// T is the index type (uint, or size_t where n may exceed 2^32).
#ifdef CLCG_CONTIGUOUS
#define CLCG_BLOCK(n) (((n) + get_global_size(0) - 1) / get_global_size(0))
#define CLCG_FOR_EACH(T, i, n)                                                       \
  for (T i = (T)min((size_t)(n), get_global_id(0) * CLCG_BLOCK((size_t)(n))),       \
         i##_end = (T)min((size_t)(n), (get_global_id(0) + 1) * CLCG_BLOCK((size_t)(n))); \
       i < i##_end; ++i)
#else
#define CLCG_FOR_EACH(T, i, n) for (T i = (T)get_global_id(0); i < (n); i += (T)get_global_size(0))
#endif

// ---- A pseudo-random number in [-1, 1) from item i and a seed (splitmix64) -------------
#ifdef cl_khr_fp64
inline double clcg_pseudo_random(const ulong seed, const uint i) {
  ulong z = seed + 0x9E3779B97F4A7C15UL * ((ulong)i + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}
#endif

// ---- Reduction operations -------------------------------------------------------------
// A reduction kernel is specialised by one of -D OP_SUM | OP_DOT | OP_SUMSQ | OP_MIN |
// OP_MAX | OP_ARGMIN | OP_ARGMAX (sum by default). Each defines ACC_T (the accumulator),
// ACC_IDENTITY, ACC_LOAD(i) (element i of the slice; x, y are already offset) and
// ACC_COMBINE(a, b). Arg operations carry (value, index); ties go to the lower index and
// NaN beats every number (numpy's rule); min/max propagate NaN.
#if !defined(OP_SUM) && !defined(OP_DOT) && !defined(OP_SUMSQ) && !defined(OP_MIN) && \
    !defined(OP_MAX) && !defined(OP_ARGMIN) && !defined(OP_ARGMAX)
#define OP_SUM
#endif

typedef struct {
  REAL value;
  ulong index;
} clcg_arg_t;

inline clcg_arg_t clcg_make_arg(REAL value, ulong index) {
  clcg_arg_t a;
  a.value = value;
  a.index = index;
  return a;
}

// True when a should be chosen over b; `less` is the strict order of the operation.
#define CLCG_ARG_BETTER(a, b, less)                                                   \
  (isnan((a).value) ? (!isnan((b).value) || (a).index < (b).index)                    \
                    : (!isnan((b).value) &&                                             \
                       (less((a).value, (b).value) ||                                   \
                        ((a).value == (b).value && (a).index < (b).index))))
#define CLCG_LESS(a, b) ((a) < (b))
#define CLCG_GREATER(a, b) ((a) > (b))

inline clcg_arg_t clcg_argmin_combine(clcg_arg_t a, clcg_arg_t b) { return CLCG_ARG_BETTER(a, b, CLCG_LESS) ? a : b; }
inline clcg_arg_t clcg_argmax_combine(clcg_arg_t a, clcg_arg_t b) { return CLCG_ARG_BETTER(a, b, CLCG_GREATER) ? a : b; }
inline REAL clcg_min_combine(REAL a, REAL b) { return (isnan(a) || a < b) ? a : b; }
inline REAL clcg_max_combine(REAL a, REAL b) { return (isnan(a) || a > b) ? a : b; }

#if defined(OP_SUM)
#define ACC_T REAL
#define ACC_IDENTITY ((REAL)0)
#define ACC_LOAD(i) (x[i])
#define ACC_COMBINE(a, b) ((a) + (b))
#elif defined(OP_DOT)
#define ACC_T REAL
#define ACC_IDENTITY ((REAL)0)
#define ACC_LOAD(i) (x[i] * y[i])
#define ACC_COMBINE(a, b) ((a) + (b))
#elif defined(OP_SUMSQ)
#define ACC_T REAL
#define ACC_IDENTITY ((REAL)0)
#define ACC_LOAD(i) (x[i] * x[i])
#define ACC_COMBINE(a, b) ((a) + (b))
#elif defined(OP_MIN)
#define ACC_T REAL
#define ACC_IDENTITY ((REAL)INFINITY)
#define ACC_LOAD(i) (x[i])
#define ACC_COMBINE(a, b) clcg_min_combine(a, b)
#elif defined(OP_MAX)
#define ACC_T REAL
#define ACC_IDENTITY ((REAL)-INFINITY)
#define ACC_LOAD(i) (x[i])
#define ACC_COMBINE(a, b) clcg_max_combine(a, b)
#elif defined(OP_ARGMIN)
#define CLCG_ARG_OP
#define ACC_T clcg_arg_t
#define ACC_IDENTITY clcg_make_arg((REAL)INFINITY, ULONG_MAX)
#define ACC_LOAD(i) clcg_make_arg(x[i], (ulong)(i))
#define ACC_COMBINE(a, b) clcg_argmin_combine(a, b)
#elif defined(OP_ARGMAX)
#define CLCG_ARG_OP
#define ACC_T clcg_arg_t
#define ACC_IDENTITY clcg_make_arg((REAL)-INFINITY, ULONG_MAX)
#define ACC_LOAD(i) clcg_make_arg(x[i], (ulong)(i))
#define ACC_COMBINE(a, b) clcg_argmax_combine(a, b)
#endif

// Writes a group's partial: the value, and for arg operations its index.
#ifdef CLCG_ARG_OP
#define STORE_PARTIAL(values, indices, g, acc) \
  do {                                         \
    (values)[g] = (acc).value;                 \
    (indices)[g] = (acc).index;                \
  } while (0)
#else
#define STORE_PARTIAL(values, indices, g, acc) ((values)[g] = (acc))
#endif

// The argument list every reduction variant's entry point `reduce_partials` takes.
#define REDUCE_PARTIALS_ARGS                                                            \
  __global const REAL *x, ulong x_offset, __global const REAL *y, ulong y_offset, ulong n, \
      __global REAL *partial_values, __global ulong *partial_indices, __local ACC_T *scratch

// Halving-stride tree over scratch[0 .. size) (size a power of two); result in scratch[0].
// Every level ends with a barrier: nothing relies on warp-synchronous execution.
inline void clcg_tree_sequential(__local ACC_T* scratch, uint lid, uint size) {
  for (uint stride = size / 2; stride > 0; stride >>= 1) {
    if (lid < stride) scratch[lid] = ACC_COMBINE(scratch[lid], scratch[lid + stride]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
