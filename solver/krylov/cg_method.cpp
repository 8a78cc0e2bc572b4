#include "clcg/solver/krylov/cg_method.hpp"

#include "clcg/solver/krylov/cg_solver.hpp"
#include "clcg/solver/krylov/pipelined_cg_solver.hpp"
#include "clcg/solver/krylov/single_reduction_cg_solver.hpp"

namespace clcg::solver {

std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings) {
  Settings chosen = settings;
  if (chosen.variant == CgVariant::automatic)
    chosen.variant =
        choose_cg_variant(env.info(), std::size_t(a.rows()), std::size_t(a.nnz()), a.type(), chosen.preconditioner);
  if (chosen.variant == CgVariant::pipelined) return std::make_unique<PipelinedCgSolver>(env, a, chosen);
  if (chosen.variant == CgVariant::single) return std::make_unique<SingleReductionCgSolver>(env, a, chosen);
  return std::make_unique<CgSolver>(env, a, chosen);
}

}  // namespace clcg::solver
