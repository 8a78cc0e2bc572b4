#include "clcg/solver/krylov/plan.hpp"

#include <cstdio>

namespace clcg::solver {
namespace {

// 41K, 1.2M, 117M: a count as the summary shows it.
std::string count_text(double count) {
  char text[32];
  if (count < 1e3) std::snprintf(text, sizeof text, "%.0f", count);
  else if (count < 1e6) std::snprintf(text, sizeof text, "%.3gK", count * 1e-3);
  else if (count < 1e9) std::snprintf(text, sizeof text, "%.3gM", count * 1e-6);
  else std::snprintf(text, sizeof text, "%.3gG", count * 1e-9);
  return text;
}

std::string factor_text(const FactorEstimate& f) {
  char flops[32];
  std::snprintf(flops, sizeof flops, "%.3g", f.flops * 1e-6);
  return "factor " + count_text(double(f.factor_nonzeros)) + " nonzeros, " + flops + " Mflop";
}

std::string cg_text(const Settings& s, bool preconditioner_chosen, bool variant_chosen) {
  std::string text = "CG, " + std::string(preconditioner_name(s.preconditioner));
  if (!preconditioner_chosen) text += " (requested)";
  text += ", " + std::string(cg_variant_name(s.variant));
  if (!variant_chosen) text += " (requested)";
  return text;
}

}  // namespace

std::string_view method_name(Method m) noexcept { return m == Method::direct ? "direct" : "cg"; }

bool worth_analysing(std::size_t rows, std::size_t nnz) { return rows > 0 && nnz <= analyse_up_to_nnz; }

bool direct_pays(const FactorEstimate& factor) { return factor.flops <= direct_up_to_flops; }

Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz,
                                     const PreconditionerOptions& options) {
  if (device.is_cpu() || rows < chebyshev_from_rows) return Preconditioner::jacobi;
  if (options.amg.near_nullspace || options.amg.block_size > 1) return Preconditioner::amg;
  const bool short_rows = double(nnz) <= amg_up_to_row_length * double(rows);
  const bool amg = (rows >= amg_from_rows && short_rows) || rows >= amg_any_from_rows;
  return amg ? Preconditioner::amg : Preconditioner::chebyshev;
}

ElementType choose_preconditioner_precision(const cl::DeviceInfo& device, Preconditioner p, ElementType solve,
                                            std::size_t rows) {
  const bool has_own_passes = p == Preconditioner::chebyshev || p == Preconditioner::ic0 || p == Preconditioner::amg;
  const bool bandwidth_bound = !device.is_cpu() && rows >= float_apply_from_rows;
  return solve == ElementType::f64 && has_own_passes && bandwidth_bound ? ElementType::f32 : solve;
}

CgVariant choose_cg_variant(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz, ElementType precision,
                            Preconditioner preconditioner) {
  if (device.is_cpu()) return rows + nnz < cpu_fused_from_work ? CgVariant::single : CgVariant::fused;
  if (rows >= gpu_fused_from_rows) return CgVariant::fused;
  const bool pipelined_is_safe = precision == ElementType::f64 && preconditioner == Preconditioner::jacobi;
  return pipelined_is_safe ? CgVariant::pipelined : CgVariant::single;
}

Settings resolve_automatic(const cl::DeviceInfo& device, Settings settings, std::size_t rows, std::size_t nnz) {
  if (settings.preconditioner == Preconditioner::automatic) {
    settings.preconditioner = choose_preconditioner(device, rows, nnz, settings.precond_options);
    // pipelined's recurrences take a diagonal M only
    if (settings.variant == CgVariant::pipelined) settings.preconditioner = Preconditioner::jacobi;
  }
  if (settings.variant == CgVariant::automatic)
    settings.variant = choose_cg_variant(device, rows, nnz, settings.precision, settings.preconditioner);
  return settings;
}

Plan plan_solve(const cl::DeviceInfo& device, const Settings& requested, std::size_t rows, std::size_t nnz,
                const CsrView* host) {
  Plan plan;
  const bool choose_preconditioner = requested.preconditioner == Preconditioner::automatic;
  const bool choose_variant = requested.variant == CgVariant::automatic;
  std::string facts;
  if (host && choose_preconditioner && choose_variant && worth_analysing(rows, nnz)) {
    plan.analysis = std::make_shared<SparseCholesky>(*host);
    facts = factor_text(plan.analysis->estimate());
    if (direct_pays(plan.analysis->estimate())) {
      plan.method = Method::direct;
      plan.settings = requested;
      plan.settings.preconditioner = Preconditioner::cholesky;
      plan.settings.variant = CgVariant::textbook;  // not run: what CG would use with this M
      plan.reason = facts + ": direct";
      return plan;
    }
    plan.analysis.reset();  // CG: the analysis is not needed any more
  } else {
    facts = count_text(double(rows)) + " rows, " + count_text(double(nnz)) + " nonzeros on a " +
            (device.is_cpu() ? "CPU" : "GPU");
  }
  plan.settings = resolve_automatic(device, requested, rows, nnz);
  plan.reason = facts + ": " + cg_text(plan.settings, choose_preconditioner, choose_variant);
  return plan;
}

}  // namespace clcg::solver
