# Every OpenCL C source embedded into clcg (explicit list: a new kernel file is added here).
# common.cl is prepended to every program by the runtime, since #include cannot find
# embedded files.
set(CLCG_KERNEL_FILES
  common.cl
  spmv_csr.cl
  blas1.cl
  cg_update.cl
)
list(TRANSFORM CLCG_KERNEL_FILES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
