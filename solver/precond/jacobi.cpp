#include "clcg/solver/precond/jacobi.hpp"

#include <chrono>
#include <stdexcept>

#include "clcg/solver/sparse/launch.hpp"

namespace clcg::solver {

void jacobi_inverse_diagonal(const cl::Env& env, const DeviceCsrMatrix& a, ::cl::Buffer& inv_diag) {
  ::cl::Kernel kernel = env.kernel("jacobi.cl", "csr_inverse_diagonal", real_build_options(a.type()));
  kernel.setArg(0, as_count(std::size_t(a.rows())));
  kernel.setArg(1, a.row_ptr());
  kernel.setArg(2, a.col_idx());
  kernel.setArg(3, a.values());
  kernel.setArg(4, inv_diag);
  enqueue_grid_stride(env, kernel, "csr_inverse_diagonal", std::size_t(a.rows()), spmv_group);
}

void jacobi_inverse_diagonal(const cl::Env& env, const Spmv& ell, ::cl::Buffer& inv_diag) {
  if (ell.kernel() != SpmvKernel::ell) throw std::logic_error("jacobi_inverse_diagonal: an SpMV without an ELL copy");
  ::cl::Kernel kernel = env.kernel("jacobi.cl", "ell_inverse_diagonal", real_build_options(ell.matrix().type()));
  kernel.setArg(0, as_count(std::size_t(ell.matrix().rows())));
  kernel.setArg(1, cl_uint(ell.ell_width()));
  kernel.setArg(2, ell.ell_columns());
  kernel.setArg(3, ell.ell_values());
  kernel.setArg(4, inv_diag);
  enqueue_grid_stride(env, kernel, "ell_inverse_diagonal", std::size_t(ell.matrix().rows()), spmv_group);
}

JacobiPreconditioner::JacobiPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a)
    : ops_(env, a.type()), n_(std::size_t(a.rows())), inv_diag_(make_vector(env, a.type(), n_)) {
  jacobi_inverse_diagonal(env, a, inv_diag_);
  env.queue().finish();
  report_.name = "jacobi";
}

void JacobiPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) { ops_.diag_mul(n_, inv_diag_, r, z); }

}  // namespace clcg::solver
