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
#else
#define REAL float
#endif
#endif
