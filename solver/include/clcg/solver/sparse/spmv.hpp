#pragma once
// Sparse matrix-vector products y = A x on the device (kernels/spmv_csr.cl, spmv_ell.cl), with
// the row layout chosen from the matrix: scalar CSR, vector CSR or an ELL copy. Nothing here
// blocks or reads data back.
//
//   Spmv spmv(env, a);                 // picks the layout from the row lengths
//   spmv.enqueue(p, q);                // q = A p
//
// Built with -D REAL=float|double once per Env (its program cache). Launch shapes depend only
// on the device and the matrix, so repeated calls give the same bits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

enum class SpmvKernel {
  automatic,  // choose_spmv_kernel()
  scalar,     // CSR, one work-item per row
  vector,     // CSR, vector_size work-items per row, tree in local memory
  ell,        // ELLPACK copy (rows padded to the longest, column-major): coalesced reads
};
std::string_view spmv_kernel_name(SpmvKernel kernel) noexcept;  // "auto", "scalar", "vector"
SpmvKernel parse_spmv_kernel(std::string_view name);            // std::invalid_argument

// Mean nonzeros per row from which `automatic` picks the vector kernel. Rows shorter than
// this leave most of a vector idle; the scalar kernel's uncoalesced reads cost less there.
inline constexpr double spmv_vector_threshold = 12.0;

// Whether an ELL copy suits rows of this longest and mean length: every row about as long as
// the mean (longest <= 1.6 x mean and <= 64: stencils, meshes, the AMG's coarse levels of them,
// such as 3D Poisson's first: 34 a row, longest 50), so padding stays under 60%. (On an H200 that
// level's smoother by ELL beat a vector of 8 work-items a row by a third: docs/PERFORMANCE.md.)
bool ell_suits(std::int64_t longest, double mean) noexcept;

// On a GPU: ELL where ell_suits; else vector when the mean row length is >= spmv_vector_threshold, else
// scalar (measured on the H100: docs/PERFORMANCE.md). On a CPU: scalar, each work-item
// walking its block of rows in order (clcg/cl/launch_policy.hpp).
SpmvKernel choose_spmv_kernel(const DeviceCsrMatrix& a, const cl::DeviceInfo& device);
// The same from the rows' longest and mean length (for rows spread over MPI ranks: the global ones).
SpmvKernel choose_spmv_kernel(std::int64_t longest, double mean, const cl::DeviceInfo& device);

// The vector kernel's work-items a row for rows of this mean length: a work-item for about eight
// entries, the power of two at or above mean / 8 within [2, 32] (before the work-group's limit).
// Each step of the lanes' tree is a barrier: on an H200 the AMG's coarse levels (27-150 entries
// a row) solved 3D Poisson 14-19% faster than with a work-item an entry (docs/PERFORMANCE.md).
unsigned spmv_vector_size(double mean) noexcept;

// Runs csr_to_ell (kernels/spmv_ell.cl, its arguments set) over `rows` rows: groups of its
// ELL_GROUP work-items, each staging its rows' entries.
void enqueue_csr_to_ell(const cl::Env& env, ::cl::Kernel& csr_to_ell, std::size_t rows);

// y = A x for one matrix. The matrix's buffers are retained (the object holds a copy of the
// DeviceCsrMatrix handles).
class Spmv {
 public:
  // vector_size 0: the power of two nearest above the mean row length, within [2, 32] and the
  // work-group size. A given vector_size must be a power of two <= the work-group size.
  Spmv(const cl::Env& env, const DeviceCsrMatrix& a, SpmvKernel kernel = SpmvKernel::automatic,
       unsigned vector_size = 0);

  // An ELL SpMV on a copy made elsewhere: `columns` (shared, not copied) and `values` hold
  // `width` entries a row, column-major with csr_to_ell's padding (kernels/spmv_ell.cl);
  // `shape` gives the matrix's size, type and longest row (its arrays, if any, are not read:
  // as after release_csr). std::invalid_argument where width is below the longest row.
  Spmv(const cl::Env& env, const DeviceCsrMatrix& shape, ::cl::Buffer columns, ::cl::Buffer values, unsigned width);
  // `a`: this matrix's pattern with new values, in the same or other buffers (an ELL copy is
  // refilled in place; a RowLayout made from this Spmv must be made again where the buffers
  // changed). std::invalid_argument where the shape, nonzeros or type differ.
  void update_values(const DeviceCsrMatrix& a);
  // An ELL SpMV lets its matrix's CSR arrays go (it reads its copy alone; std::logic_error for
  // another kernel): where it held the last handles, their memory. matrix() keeps the shape;
  // residual_f64 needs the arrays again (update_values gives them).
  void release_csr();
  void enqueue(const ::cl::Buffer& x, ::cl::Buffer& y);  // y = A x (x: cols, y: rows elements)
  // r = b - A x in double (needs fp64; throws std::logic_error without it).
  void residual_f64(const ::cl::Buffer& x, const ::cl::Buffer& b, ::cl::Buffer& r);

  SpmvKernel kernel() const noexcept { return kernel_; }  // scalar, vector or ell, never automatic
  // The ELL copy (kernel() == ell): `width` entries per row, column-major.
  const ::cl::Buffer& ell_columns() const noexcept { return ell_col_; }
  const ::cl::Buffer& ell_values() const noexcept { return ell_val_; }
  unsigned ell_width() const noexcept { return ell_width_; }
  unsigned vector_size() const noexcept { return vector_size_; }
  std::size_t work_group_size() const noexcept { return wg_; }
  const DeviceCsrMatrix& matrix() const noexcept { return a_; }

 private:
  cl::Env env_;
  DeviceCsrMatrix a_;
  SpmvKernel kernel_;
  unsigned vector_size_ = 1;
  std::size_t wg_ = 1;
  void build_ell(const std::string& options);
  void fill_ell(bool with_columns);  // the ELL copy from a_ (the values only: the same pattern)

  ::cl::Buffer ell_col_, ell_val_;
  unsigned ell_width_ = 0;
  ::cl::Kernel spmv_;
  ::cl::Kernel residual_;
  ::cl::Kernel convert_;  // csr_to_ell
};

}  // namespace clcg::solver
