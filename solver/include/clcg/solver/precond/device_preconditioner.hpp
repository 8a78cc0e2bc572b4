#pragma once
// The preconditioner interface every CG variant that can uses: set up once per matrix (host
// or device, its time reported), then z = M^-1 r applied on the device as kernels, nothing
// read back, as many times as solves need.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/sparse/launch.hpp"

namespace clcg::solver {

class DeviceCsrMatrix;

// What a set-up produced, for reports (cg-solve's JSON "preconditioner" object).
struct PreconditionerReport {
  std::string name;
  std::string precision;     // what M is applied in: "double" or "float" (mixed_precision.hpp)
  double setup_seconds = 0;  // the set-up, OpenCL program builds left out (they are build_seconds)
  double build_seconds = 0;  // programs compiled during the set-up (PoCL: once, then cached on disk)
  std::vector<std::pair<std::string, double>> figures;  // e.g. {"degree", 4}, {"lambda_max", 1.98}
  std::vector<std::pair<std::string, double>> phases;   // set-up seconds by phase (AMG)
  std::vector<std::size_t> level_rows, level_nnz;       // multigrid hierarchies, finest first
  std::vector<KernelTime> kernels;                      // set-up kernels (AMG, the dense factor), on a profiling queue
};

// A preconditioner's set-up found A not symmetric positive definite (IC(0): no positive pivot
// even with a diagonal shift). The one-call solve APIs report it as Status::breakdown.
class PreconditionerBreakdown : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Spmv;

class DevicePreconditioner {
 public:
  virtual ~DevicePreconditioner() = default;
  // z = M^-1 r: rows() elements of the matrix's type each, r and z different buffers;
  // enqueued on the Env's queue.
  virtual void apply(const ::cl::Buffer& r, ::cl::Buffer& z) = 0;
  // Where M^-1 is a diagonal, its entries, so a CG variant can fuse the apply into its own
  // passes (Jacobi); null otherwise.
  virtual const ::cl::Buffer* inverse_diagonal() const noexcept { return nullptr; }
  // The SpMV of the matrix it was made for, where it keeps one (AMG's finest level, Chebyshev):
  // a CG solver on the same matrix takes it rather than making a second ELL copy of A
  // (solver_spmv, krylov/preconditioner_factory.hpp). Null otherwise.
  virtual const Spmv* matrix_spmv() const noexcept { return nullptr; }
  // A's values changed, its pattern did not (time stepping, Newton): recompute what depends on
  // the values and keep what depends on the pattern only. false: nothing here is worth keeping
  // (a set-up as cheap as the update), so the caller sets a new one up (refresh_preconditioner).
  virtual bool update_values(const DeviceCsrMatrix& /*a*/) { return false; }
  const PreconditionerReport& report() const noexcept { return report_; }
  // The factory's measurement of the whole construction: `total` seconds, `builds` of them
  // compiling OpenCL programs (the queue finished, so device work is inside).
  void record_setup(double total, double builds, std::string_view precision) {
    report_.precision = precision;
    report_.build_seconds = builds;
    report_.setup_seconds = total > builds ? total - builds : 0.0;
  }

 protected:
  PreconditionerReport report_;
};

}  // namespace clcg::solver
