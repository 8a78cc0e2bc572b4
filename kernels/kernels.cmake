# Every OpenCL C source embedded into clcg (explicit list: a new kernel file is added here).
# common.cl is prepended to every program by the runtime, since #include cannot find
# embedded files.
set(CLCG_KERNEL_FILES
  common.cl
  reduce_serial.cl
  reduce_interleaved.cl
  reduce_sequential.cl
  reduce_grid_stride.cl
  reduce_unrolled.cl
  reduce_atomic.cl
  reduce_blocked.cl
  multi_dot.cl
  cg_fused.cl
  spmv_rows.cl
  chebyshev.cl
  ic0.cl
  multigrid.cl
  sparse_product.cl
  aggregation.cl
  spmv_csr.cl
  jacobi.cl
  spmv_ell.cl
  symmetry.cl
  blas1.cl
  lanczos.cl
  distributed_setup.cl
  cg_update.cl
  distributed.cl
  halo.cl
  pi.cl
  dense_cholesky.cl
)
list(TRANSFORM CLCG_KERNEL_FILES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
