#include "clcg/solver/krylov/preconditioner_factory.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/precond/cholesky.hpp"
#include "clcg/solver/precond/chebyshev.hpp"
#include "clcg/solver/precond/ic0.hpp"
#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/precond/mixed_precision.hpp"
#include "clcg/solver/sparse/conversion.hpp"

namespace clcg::solver {

namespace {

std::shared_ptr<DevicePreconditioner> construct(const cl::Env& env, const DeviceCsrMatrix& a,
                                                const std::function<const HostCsr&()>& host, Preconditioner p,
                                                const PreconditionerOptions& options) {
  switch (p) {
    case Preconditioner::jacobi: return std::make_shared<JacobiPreconditioner>(env, a);
    case Preconditioner::chebyshev: return std::make_shared<ChebyshevPreconditioner>(env, a, options.chebyshev);
    case Preconditioner::ic0: return std::make_shared<Ic0Preconditioner>(env, a, host(), options.ic0);
    case Preconditioner::amg: return std::make_shared<AmgPreconditioner>(env, a, options.amg);
    case Preconditioner::cholesky:
      return std::make_shared<CholeskyPreconditioner>(env, host(), a.type(), nullptr,
                                                      options.factor == FactorPlace::device);
    case Preconditioner::none:
    case Preconditioner::automatic: break;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<DevicePreconditioner> make_preconditioner(const cl::Env& env, const DeviceCsrMatrix& a,
                                                          const HostCsr* host, Preconditioner p,
                                                          const PreconditionerOptions& options) {
  if (p == Preconditioner::automatic)
    p = choose_preconditioner(env.info(), std::size_t(a.rows()), std::size_t(a.nnz()), options);
  if (p == Preconditioner::none) return nullptr;
  const ElementType precision = p == Preconditioner::jacobi
                                    ? a.type()
                                    : options.precision.value_or(
                                          choose_preconditioner_precision(env.info(), p, a.type(), std::size_t(a.rows()), options));
  if (precision == ElementType::f64 && a.type() == ElementType::f32)
    throw std::invalid_argument("a preconditioner in double for a solve in float: solve in double, or apply " +
                                std::string(preconditioner_name(p)) + " in float");
  std::optional<HostCsr> read_back;
  const auto host_matrix = [&]() -> const HostCsr& {
    if (host) return *host;
    if (!read_back) read_back = download(env, a);
    return *read_back;
  };
  const double built_before = env.programs().build_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<DevicePreconditioner> m;
  if (precision == a.type()) {
    m = construct(env, a, host_matrix, p, options);
  } else {
    DeviceCsrMatrix narrow = with_value_type(env, a, precision);
    auto inner = construct(env, narrow, host_matrix, p, options);
    m = std::make_shared<MixedPrecisionPreconditioner>(env, a.type(), std::move(narrow), std::move(inner));
  }
  env.queue().finish();
  m->record_setup(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  env.programs().build_seconds() - built_before, reduction::type_name(precision));
  return m;
}

std::shared_ptr<DevicePreconditioner> refresh_preconditioner(const cl::Env& env,
                                                             std::shared_ptr<DevicePreconditioner> m,
                                                             const DeviceCsrMatrix& a, const HostCsr* host,
                                                             Preconditioner p, const PreconditionerOptions& options) {
  if (!m) return make_preconditioner(env, a, host, p, options);
  const std::string precision = m->report().precision;
  const double built_before = env.programs().build_seconds();
  const auto start = std::chrono::steady_clock::now();
  if (!m->update_values(a)) return make_preconditioner(env, a, host, p, options);
  env.queue().finish();
  m->record_setup(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  env.programs().build_seconds() - built_before, precision);
  return m;
}

Spmv solver_spmv(const cl::Env& env, const DeviceCsrMatrix& a, const Settings& settings,
                 const DevicePreconditioner* m) {
  const Spmv* own = m ? m->matrix_spmv() : nullptr;
  const bool same_matrix = own && own->matrix().row_ptr()() == a.row_ptr()() &&
                           own->matrix().col_idx()() == a.col_idx()() && own->matrix().values()() == a.values()() &&
                           own->matrix().type() == a.type();
  const bool same_layout = own && (settings.spmv == SpmvKernel::automatic || settings.spmv == own->kernel()) &&
                           (settings.spmv_vector_size == 0 || settings.spmv_vector_size == own->vector_size());
  if (same_matrix && same_layout) return *own;
  return Spmv(env, a, settings.spmv, settings.spmv_vector_size);
}

}  // namespace clcg::solver
