#pragma once
// Smoothed-aggregation algebraic multigrid as a CG preconditioner: the hierarchy is built on
// the device, level by level (device_coarsening.hpp: strength, aggregation, smoothed
// prolongator; sparse_product.hpp: R = P^T and the Galerkin A_c = R (A P)), with the same bits
// on every run; the host reference (coarsening.hpp) builds the same hierarchy for the tests. z = M^-1 r is one V-cycle on the device from z = 0, with the same
// Chebyshev smoother before and after the coarse correction on every level (so M is
// symmetric) and an exact solve on the coarsest level through a sparse Cholesky factor on the
// host (so it is positive definite; precond/cholesky.hpp): the coarse vector, at most
// AmgOptions::coarse_rows values, is the only thing read back during an apply.
// A near-null space of k vectors (AmgOptions::near_nullspace, or one constant a component of
// AmgOptions::block_size) gives coarse levels k unknowns a node (multigrid/near_nullspace.hpp).
// New values of A on the same pattern (update_values) keep every level's aggregates, P_tent (so
// the near-null space) and the patterns of P, R and A_c: only the numbers are computed again.
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/chebyshev.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/precond/spectrum.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::solver {

class DeviceCoarsening;
class SparseCholesky;

// The most rows a level may have and not be coarsened again (the coarsest is factored on the
// host): coarse_rows, and for a coarse level of an A of 1M rows or more half as many.
std::size_t amg_largest_coarsest(std::size_t a_rows, bool coarse_level, const AmgOptions& options);
// Most rows the coarsest level may keep for a sparse Cholesky solve; a hierarchy that stops
// coarsening above it (or whose coarsest operator is not positive definite) ends with a
// Chebyshev solve of this degree instead.
inline constexpr std::size_t amg_coarse_factor_limit = 2000;
inline constexpr unsigned amg_coarse_chebyshev_degree = 16;
// The prolongator smoother's weight for rho(D^-1 A) = radius: 4/3 over it (as pyamg).
double prolongator_weight(double radius);
// A level smoother's Chebyshev interval [lower, upper] from its estimate of rho(D^-1 A).
std::pair<double, double> amg_smoother_interval(double estimate, bool coarsest, const AmgOptions& options);
// 1 on the diagonal of a row of A_c whose values are all 0 (a dependent near-null-space vector
// left a zero column of P): the coarse factor stays positive definite and solves that unknown to 0.
void unit_diagonal_on_empty_rows(HostCsr& a);

class AmgPreconditioner : public DevicePreconditioner {
 public:
  // The hierarchy built on the device from `a` (level 0).
  AmgPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const AmgOptions& options);
  // The host reference: the hierarchy built on the host from `host` (A in full storage, the
  // same matrix as `a`) and uploaded.
  AmgPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const HostCsr& host, const AmgOptions& options);
  ~AmgPreconditioner() override;
  void apply(const ::cl::Buffer& r, ::cl::Buffer& z) override;
  const Spmv* matrix_spmv() const noexcept override;  // the finest level's
  // `a`: level 0's pattern with new values. false for the host reference (it keeps nothing).
  // std::invalid_argument when a's size, nonzeros or type differ from level 0's.
  bool update_values(const DeviceCsrMatrix& a) override;
  std::size_t levels() const noexcept;

 private:
  struct Level;
  struct Hierarchy;
  void build_levels(Hierarchy& hierarchy);
  void update_levels(Hierarchy& hierarchy);  // new values: the levels kept, their numbers made again
  // Level l's operator on the device: its SpMV (the set-up's, where it made one), layout, 1/diag.
  void make_device_operator(Hierarchy& hierarchy, std::size_t l);
  // Every level's smoother (made, or with `update` given its new interval): the Lanczos
  // estimates the set-up has no radius for are enqueued, then the coarsest operator (`coarse`,
  // where it is small enough) is factored on the host while the device runs them. false when
  // an update finds the coarsest level changing hands (factor <-> Chebyshev): set up anew.
  bool make_smoothers(Hierarchy& hierarchy, std::optional<HostCsr> coarse, bool update, double& factor_s);
  // The coarsest operator on the host where it is small enough to factor (read back).
  std::optional<HostCsr> coarsest_on_host(Hierarchy& hierarchy);
  // Its factor for the exact coarse solve, or null where there is none or it is not positive
  // definite; the symbolic analysis is kept for new values.
  std::unique_ptr<DevicePreconditioner> factor_coarsest(std::optional<HostCsr> host, ElementType type);
  void add_level_phases(double kernels_s, double smoother_s, double factor_s);
  void cycle(std::size_t level, const ::cl::Buffer& b, ::cl::Buffer& x);

  cl::Env env_;
  AmgOptions options_;
  SpectrumEstimator spectrum_;  // rho(D^-1 A) of every level: prolongator weights, smoother bounds
  std::unique_ptr<DeviceCoarsening> coarsening_;  // device set-up: its kernels, kept for update_values
  std::unique_ptr<Hierarchy> hierarchy_;          // device set-up: operators, P, R and the kept patterns
  std::vector<std::unique_ptr<Level>> levels_;
  std::unique_ptr<DevicePreconditioner> coarse_solve_;  // A_c^-1 on the coarsest level, unless Chebyshev
  std::shared_ptr<SparseCholesky> coarse_analysis_;     // its symbolic analysis, kept for new values
};

}  // namespace clcg::solver
