#include "clcg/solver/krylov/cg_method.hpp"

#include "clcg/solver/krylov/cg_solver.hpp"
#include "clcg/solver/krylov/pipelined_cg_solver.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/preconditioner_factory.hpp"
#include "clcg/solver/krylov/single_reduction_cg_solver.hpp"

namespace clcg::solver {

std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                                         std::shared_ptr<DevicePreconditioner> preconditioner) {
  Settings chosen = settings;
  chosen.precision = a.type();
  chosen = resolve_automatic(env.info(), chosen, std::size_t(a.rows()), std::size_t(a.nnz()));
  if (!preconditioner && chosen.preconditioner != Preconditioner::none)
    preconditioner = make_preconditioner(env, a, nullptr, chosen.preconditioner, chosen.precond_options);
  if (chosen.variant == CgVariant::pipelined) return std::make_unique<PipelinedCgSolver>(env, a, chosen, preconditioner);
  if (chosen.variant == CgVariant::single)
    return std::make_unique<SingleReductionCgSolver>(env, a, chosen, preconditioner);
  return std::make_unique<CgSolver>(env, a, chosen, preconditioner);
}

}  // namespace clcg::solver
