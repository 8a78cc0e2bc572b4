#include "clcg/solver/krylov/cg_method.hpp"

#include "clcg/solver/krylov/cg_solver.hpp"
#include "clcg/solver/krylov/pipelined_cg_solver.hpp"
#include "clcg/solver/krylov/single_reduction_cg_solver.hpp"

namespace clcg::solver {

std::unique_ptr<CgMethod> make_cg_solver(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings) {
  if (settings.variant == CgVariant::pipelined) return std::make_unique<PipelinedCgSolver>(env, a, settings);
  if (settings.variant == CgVariant::single) return std::make_unique<SingleReductionCgSolver>(env, a, settings);
  return std::make_unique<CgSolver>(env, a, settings);
}

}  // namespace clcg::solver
