#pragma once
// Builds the preconditioner Settings name for a matrix: where every preconditioner class (in
// precond/ and multigrid/) comes together. A new preconditioner adds its line here.
#include <cstddef>
#include <memory>

#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

// `p` set up for `a` (automatic: choose_preconditioner's); null for Preconditioner::none.
// Host set-ups (IC(0), AMG) use `host` (A in full storage) when given, else read A back from
// the device. Throws std::invalid_argument for a matrix the preconditioner cannot take (IC(0)
// or AMG of a matrix that is not SPD).
std::shared_ptr<DevicePreconditioner> make_preconditioner(const cl::Env& env, const DeviceCsrMatrix& a,
                                                          const HostCsr* host, Preconditioner p,
                                                          const PreconditionerOptions& options = {});

// The preconditioner `automatic` stands for, measured fastest to solution with the set-up
// included (docs/PERFORMANCE.md, "Preconditioners"): on a GPU, Chebyshev from
// chebyshev_from_rows rows (4-16% ahead of Jacobi on every Poisson problem measured, set-up
// 2-23 ms), else Jacobi (on small matrices no other set-up and per-step cost paid off on more
// than a few); on a CPU, Jacobi (PoCL runs Chebyshev's extra SpMVs slower than it saves steps).
inline constexpr std::size_t chebyshev_from_rows = 100'000;
Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz);

// The precision an unset PreconditionerOptions::precision stands for (docs/PERFORMANCE.md,
// "Preconditioners"): float for Chebyshev, IC(0) and AMG in a double solve on a GPU from
// float_apply_from_rows rows, where their applies are bandwidth bound and float halves them
// (CG's steps the same on every mesh problem measured); else the solve's own. Below it an apply
// is latency bound, float saves nothing, and on ill-conditioned matrices it costs steps
// (IC(0) on 1138_bus: 232 instead of 149).
inline constexpr std::size_t float_apply_from_rows = 100'000;
ElementType choose_preconditioner_precision(const cl::DeviceInfo& device, Preconditioner p, ElementType solve,
                                            std::size_t rows);

}  // namespace clcg::solver
