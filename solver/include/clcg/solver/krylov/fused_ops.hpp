#pragma once
// The fused CG kernels of kernels/cg_fused.cl: each pass over the vectors also writes the
// per-group partials of the next dot products, which are then read back together (a few
// KB) and finished on the host in index order (compensated, in double). Used by the fused
// and pipelined CG variants. Not thread-safe (kernels hold arguments).
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

class FusedOps {
 public:
  // Groups per compute unit for the grid-stride fused kernels: enough work-items in flight to
  // reach the memory bandwidth on the H100, few enough partials (16 KB a dot) that reading
  // them back adds little to the round trip (8 KB a dot). 8 measured best on the H100 (fused pass 1 on 3D
  // Poisson 256^3: 806 us at 8, 856 at 16, 884 at 4); cg-bench --breakdown measures others.
  static constexpr std::size_t default_groups_per_unit = 8;
  // The single-reduction step's cap (see single_step); groups_per_unit does not apply to it.
  static constexpr std::size_t single_groups_per_unit = 32;

  // Picks the same SpMV layout as `spmv` (scalar, vector and its size, or its ELL copy).
  FusedOps(const cl::Env& env, const Spmv& spmv, std::size_t groups_per_unit = default_groups_per_unit);

  // CG pass 1: p = z + beta p_old; q = A p; x += alpha_x p_old (the previous step's update,
  // deferred); partials of p.q. p and p_old must be different buffers.
  struct StepVectors {
    const ::cl::Buffer *z, *p_old;
    ::cl::Buffer *p, *q, *x;
  };
  void spmv_step(double beta, double alpha_x, const StepVectors& v);
  // One Chronopoulos-Gear step (see cg_fused.cl): s = w + beta s_old; p = u + beta p;
  // x += alpha p; r' = r - alpha s; w' = A M^-1 r'; partials of r'.u', w'.u' (and r'.r' with
  // inv_diag). The *_new buffers must differ from the *_old ones.
  struct SingleVectors {
    const ::cl::Buffer* inv_diag;  // null: no preconditioner
    const ::cl::Buffer *r_old, *w_old, *s_old;
    ::cl::Buffer *r_new, *w_new, *s_new, *p, *x;
  };
  void single_step(double alpha, double beta, const SingleVectors& v);
  // The same with a general preconditioner, around its apply (see cg_fused.cl): pass 1
  // s = w + beta s; p = u + beta p; x += alpha p; r -= alpha s (in place, no partials), then,
  // once u = M^-1 r, pass 2 w = A u with the partials of r.u, w.u, r.r.
  struct SingleGeneralVectors {
    ::cl::Buffer *w, *u, *s, *p, *x, *r;
  };
  void single_update(double alpha, double beta, const SingleGeneralVectors& v);
  void spmv_dots(const ::cl::Buffer& u, const ::cl::Buffer& r, ::cl::Buffer& w);
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
  void launch(cl::CachedKernel& kernel, const char* name, std::size_t groups, unsigned dots);
  std::size_t vector_groups() const;  // groups of the grid-stride vector kernels
  std::vector<double> finish();  // the partials in host_ -> one double per dot
  void set_real(cl::CachedKernel& k, cl_uint index, double value) const;
  // The kernel of the pair whose argument `arg` already holds `buffer` (else the first).
  static cl::CachedKernel& bound_to(std::array<cl::CachedKernel, 2>& pair, cl_uint arg, const ::cl::Buffer& buffer);

  cl::Env env_;
  std::size_t groups_per_unit_;
  std::size_t rows_;
  ElementType type_;
  RowLayout layout_;  // the matrix as the SpMV passes read it
  std::size_t wg_;
  std::array<cl::CachedKernel, 2> spmv_step_, single_step_;  // one per buffer parity
  cl::CachedKernel update_r_, update_rz_, pipelined_, pipelined_jacobi_, single_update_, spmv_dots_;
  ::cl::Buffer partials_;
  std::size_t last_groups_ = 0;
  unsigned last_dots_ = 0;
  cl::PinnedBuffer host_;  // the partials land here (pinned: no staging copy)
  std::vector<double> widened_;  // float partials as doubles (kept: no allocation per step)
  ::cl::Event read_done_;
};

}  // namespace clcg::solver
