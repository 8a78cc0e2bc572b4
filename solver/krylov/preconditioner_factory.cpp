#include "clcg/solver/krylov/preconditioner_factory.hpp"

#include <chrono>
#include <optional>

#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/precond/chebyshev.hpp"
#include "clcg/solver/precond/ic0.hpp"
#include "clcg/solver/precond/jacobi.hpp"

namespace clcg::solver {

Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t) {
  return !device.is_cpu() && rows >= chebyshev_from_rows ? Preconditioner::chebyshev : Preconditioner::jacobi;
}

std::shared_ptr<DevicePreconditioner> make_preconditioner(const cl::Env& env, const DeviceCsrMatrix& a,
                                                          const HostCsr* host, Preconditioner p,
                                                          const PreconditionerOptions& options) {
  if (p == Preconditioner::automatic) p = choose_preconditioner(env.info(), std::size_t(a.rows()), std::size_t(a.nnz()));
  std::optional<HostCsr> read_back;
  const auto host_matrix = [&]() -> const HostCsr& {
    if (host) return *host;
    if (!read_back) read_back = download(env, a);
    return *read_back;
  };
  const double built_before = env.programs().build_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<DevicePreconditioner> m;
  switch (p) {
    case Preconditioner::none: return nullptr;
    case Preconditioner::jacobi: m = std::make_shared<JacobiPreconditioner>(env, a); break;
    case Preconditioner::chebyshev: m = std::make_shared<ChebyshevPreconditioner>(env, a, options.chebyshev); break;
    case Preconditioner::ic0: m = std::make_shared<Ic0Preconditioner>(env, a, host_matrix(), options.ic0); break;
    case Preconditioner::amg: m = std::make_shared<AmgPreconditioner>(env, a, host_matrix(), options.amg); break;
    case Preconditioner::automatic: return nullptr;
  }
  env.queue().finish();
  m->record_setup(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  env.programs().build_seconds() - built_before);
  return m;
}

}  // namespace clcg::solver
