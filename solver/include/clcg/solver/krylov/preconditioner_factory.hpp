#pragma once
// Builds the preconditioner Settings name for a matrix: where every preconditioner class (in
// precond/ and multigrid/) comes together. A new preconditioner adds its line here.
#include <cstddef>
#include <memory>

#include "clcg/cl/env.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::solver {

// `p` set up for `a` (automatic: the planner's choice for CG, krylov/plan.hpp); null for
// Preconditioner::none.
// Host set-ups (IC(0), AMG) use `host` (A in full storage) when given, else read A back from
// the device. Throws std::invalid_argument for a matrix the preconditioner cannot take (IC(0)
// or AMG of a matrix that is not SPD).
std::shared_ptr<DevicePreconditioner> make_preconditioner(const cl::Env& env, const DeviceCsrMatrix& a,
                                                          const HostCsr* host, Preconditioner p,
                                                          const PreconditionerOptions& options = {});

// The SpMV a CG solver on `a` runs: a copy of m's own (sharing its buffers: one ELL copy of A,
// not two) where m keeps one for these very buffers in the layout `settings` asks for
// (Settings::spmv automatic or the same kernel, spmv_vector_size 0 or the same), else a new one.
Spmv solver_spmv(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                 const DevicePreconditioner* m);

// `m`, made by make_preconditioner(env, a, host, p, options) for a matrix with a's pattern,
// brought to a's values now: updated in place where it keeps what depends on the pattern only
// (AMG: strong connections, aggregates, P_tent and every product's pattern), else (or for a
// null m) set up anew. Returns the preconditioner to use; its report times this refresh.
std::shared_ptr<DevicePreconditioner> refresh_preconditioner(const cl::Env& env,
                                                             std::shared_ptr<DevicePreconditioner> m,
                                                             const DeviceCsrMatrix& a, const HostCsr* host,
                                                             Preconditioner p, const PreconditionerOptions& options = {});

}  // namespace clcg::solver
