#pragma once
// The fused CG kernels of kernels/cg_fused.cl: each pass over the vectors also writes the
// per-group partials of the next dot products, which are then read back together (a few
// KB) and finished on the host in index order (compensated, in double). Used by the fused
// and pipelined CG variants. Not thread-safe (kernels hold arguments).
#include <cstddef>
#include <memory>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/csr_matrix.hpp"
#include "clcg/solver/opencl_backend.hpp"

namespace clcg::solver {

class FusedOps {
 public:
  // Picks the same SpMV layout as `spmv` (scalar, vector and its size, or its ELL copy).
  FusedOps(const cl::Env& env, const Spmv& spmv);

  // CG pass 1: p = z + beta p_old; q = A p; x += alpha_x p_old (the previous step's update,
  // deferred); partials of p.q. p and p_old must be different buffers.
  struct StepVectors {
    const ::cl::Buffer *z, *p_old;
    ::cl::Buffer *p, *q, *x;
  };
  void spmv_step(double beta, double alpha_x, const StepVectors& v);
  // CG pass 2: r -= alpha q; partials of r.r
  void update_r(double alpha, const ::cl::Buffer& q, ::cl::Buffer& r);
  // ... and z = inv_diag .* r; partials of r.r, r.z
  void update_rz(double alpha, const ::cl::Buffer& q, const ::cl::Buffer& inv_diag, ::cl::Buffer& r, ::cl::Buffer& z);
  // Pipelined CG steps (see cg_fused.cl); partials of gamma, delta (and r.r with Jacobi).
  struct PipelinedVectors {
    ::cl::Buffer *nv, *z, *q, *s, *p, *x, *r, *u, *w, *m;
    const ::cl::Buffer* inv_diag;  // null: no preconditioner (u = r, q = s, m = w)
  };
  void pipelined_update(double alpha, double beta, const PipelinedVectors& v);

  // The dots of the last launch: a blocking read, or a non-blocking one finished by wait().
  std::vector<double> read();
  void read_async();
  std::vector<double> wait();

 private:
  void launch(::cl::Kernel& kernel, const char* name, std::size_t groups, unsigned dots);
  std::size_t vector_groups() const;  // groups of the grid-stride vector kernels
  std::vector<double> finish() const;  // the partials in host_ -> one double per dot
  const char* spmv_step_name() const noexcept;

  cl::Env env_;
  std::size_t rows_;
  ElementType type_;
  std::size_t wg_;
  unsigned vector_size_;
  DeviceCsrMatrix a_;
  bool ell_ = false;
  ::cl::Buffer ell_col_, ell_val_;
  unsigned ell_width_ = 0;
  ::cl::Kernel spmv_step_, update_r_, update_rz_, pipelined_, pipelined_jacobi_;
  ::cl::Buffer partials_;
  std::size_t last_groups_ = 0;
  unsigned last_dots_ = 0;
  cl::PinnedBuffer host_;  // the partials land here (pinned: no staging copy)
  ::cl::Event read_done_;
};

}  // namespace clcg::solver
