#include "clcg/solver/krylov/plan.hpp"

#include "clcg/solver/direct/dense_device_cholesky.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

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

// The s-th of a sample from [0, n): scattered by a multiplicative hash, so that a sample of a
// grid does not fall on one line of it (s n / samples would, where n is a multiple of samples).
std::size_t sampled_index(std::size_t s, std::size_t n) { return std::size_t((s * 2654435761ULL + 97) % n); }

// Whether the sampled nodes of `block` rows have, in at least 90% of cases, one set of node
// columns (column / block) for all their rows, of at least two nodes.
bool rows_share_node_columns(const CsrView& a, unsigned block) {
  const std::size_t nodes = std::size_t(a.rows) / block, sampled = std::min<std::size_t>(nodes, block_sample_nodes);
  std::size_t agree = 0;
  std::vector<std::int32_t> first, other;
  const auto node_columns = [&](std::size_t row, std::vector<std::int32_t>& out) {
    out.clear();
    for (std::int32_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      const std::int32_t v = a.col_idx[std::size_t(k)] / std::int32_t(block);
      if (out.empty() || out.back() != v) out.push_back(v);  // (columns sorted: a node's are adjacent)
    }
  };
  for (std::size_t s = 0; s < sampled; ++s) {
    const std::size_t u = sampled_index(s, nodes);
    node_columns(u * block, first);
    bool same = first.size() >= 2;
    for (unsigned c = 1; c < block && same; ++c) {
      node_columns(u * block + c, other);
      same = other == first;
    }
    agree += same;
  }
  return sampled > 0 && 10 * agree >= 9 * sampled;
}

}  // namespace

double two_step_growth(const CsrView& a) {
  const std::size_t rows = std::size_t(a.rows), sampled = std::min<std::size_t>(rows, growth_sample_rows);
  if (sampled == 0) return 0;
  double one = 0, two = 0;
  std::vector<std::int32_t> reached;
  for (std::size_t s = 0; s < sampled; ++s) {
    const std::size_t i = sampled_index(s, rows);
    reached.clear();
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::size_t j = std::size_t(a.col_idx[std::size_t(k)]);
      for (std::int32_t l = a.row_ptr[j]; l < a.row_ptr[j + 1]; ++l) reached.push_back(a.col_idx[std::size_t(l)]);
    }
    std::sort(reached.begin(), reached.end());
    two += double(std::unique(reached.begin(), reached.end()) - reached.begin());
    one += double(a.row_ptr[i + 1] - a.row_ptr[i]);
  }
  return one > 0 ? two / one : 0;
}

unsigned detect_block_size(const CsrView& a) {
  for (unsigned block = max_detected_block; block >= 2; --block)
    if (a.rows > 0 && std::size_t(a.rows) % block == 0 && rows_share_node_columns(a, block)) return block;
  return 1;
}

std::string_view method_name(Method m) noexcept { return m == Method::direct ? "direct" : "cg"; }

double dominant_fraction(const CsrView& a) {
  const std::size_t rows = std::size_t(a.rows), sampled = std::min<std::size_t>(rows, dominance_sample_rows);
  std::size_t dominant = 0;
  for (std::size_t s = 0; s < sampled; ++s) {
    const std::size_t i = sampled_index(s, rows);
    double diagonal = 0, off = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      (std::size_t(a.col_idx[std::size_t(k)]) == i ? diagonal : off) += std::abs(a.values[std::size_t(k)]);
    dominant += diagonal >= off;
  }
  return sampled ? double(dominant) / double(sampled) : 1.0;
}

bool worth_analysing(std::size_t rows, std::size_t nnz, const CsrView* host) {
  if (rows == 0) return false;
  if (nnz <= analyse_up_to_nnz) return true;
  return host && nnz <= analyse_stiff_up_to_nnz && dominant_fraction(*host) < 0.5;
}

bool direct_pays(const FactorEstimate& factor) { return factor.flops <= direct_up_to_flops; }

bool dense_factor_allowed(const cl::DeviceInfo& device, std::size_t rows, FactorPlace place) {
  if (rows == 0 || place == FactorPlace::host) return false;
  if (place == FactorPlace::device) return true;
  return !device.is_cpu() && device.fp64 && rows <= dense_factor_up_to_rows;
}

double dense_direct_seconds(std::size_t rows) {
  const double blocks = std::ceil(double(rows) / double(DenseDeviceCholesky::block));
  return dense_seconds_fixed + blocks * dense_seconds_per_block + DenseDeviceCholesky::flops(rows) / dense_flops_per_second;
}

double sparse_direct_seconds(const FactorEstimate& factor) { return factor.flops / sparse_flops_per_second; }

double cg_step_seconds(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz) {
  if (device.is_cpu()) return 20e-6 + double(nnz) * 1e-9;
  return 25e-6 + (12.0 * double(nnz) + 56.0 * double(rows)) / 2.5e12;
}

std::optional<Plan> direct_instead(const cl::DeviceInfo& device, const Plan& cg_plan, const CsrView& host,
                                   double cg_seconds_left, const std::string& why,
                                   std::shared_ptr<SparseCholesky>& analysis) {
  const std::size_t rows = std::size_t(host.rows), nnz = std::size_t(host.nnz());
  const FactorPlace place = cg_plan.settings.precond_options.factor;
  const double dense = dense_factor_allowed(device, rows, place) ? dense_direct_seconds(rows) : INFINITY;
  // The sparse factor only where the dense one is not allowed (its analysis costs as much as
  // the dense factor on these sizes: bcsstk13 4 ms) and CG's time left would pay the analysis
  // and a factor at least as dear (else it is paid for nothing: lap2D_5pt_n100, 6 ms).
  const double analyse = double(nnz) * analyse_seconds_per_nonzero;
  if (!analysis && dense == INFINITY && place != FactorPlace::device && nnz <= analyse_when_watched_up_to_nnz &&
      cg_seconds_left > 2 * watch_margin * analyse)
    analysis = std::make_shared<SparseCholesky>(host);
  const double sparse = analysis ? analyse + sparse_direct_seconds(analysis->estimate()) : INFINITY;
  if (watch_margin * std::min(dense, sparse) >= cg_seconds_left) return std::nullopt;
  Plan plan = cg_plan;
  plan.method = Method::direct;
  plan.watch_for_direct = false;
  plan.settings.preconditioner = Preconditioner::cholesky;
  plan.factor_on_device = dense <= sparse;
  char text[128];
  std::snprintf(text, sizeof text, "%.2g ms", 1e3 * cg_seconds_left);
  std::string reason = cg_plan.reason + "; " + why + " (" + text + "): direct, ";
  if (plan.factor_on_device) {
    std::snprintf(text, sizeof text, "a dense factor on the device (%.3g Mflop, %.2g ms)",
                  DenseDeviceCholesky::flops(rows) * 1e-6, 1e3 * dense);
  } else {
    plan.analysis = analysis;
    std::snprintf(text, sizeof text, "%s (%.2g ms)", factor_text(analysis->estimate()).c_str(), 1e3 * sparse);
  }
  plan.reason = reason + text;
  return plan;
}

bool grows_like_a_surface(std::size_t rows, std::size_t nnz, const CsrView* host) {
  return host ? two_step_growth(*host) < surface_growth_below : double(nnz) <= amg_up_to_row_length * double(rows);
}

Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz,
                                     const PreconditionerOptions& options, const CsrView* host) {
  if (device.is_cpu() || rows < chebyshev_from_rows) return Preconditioner::jacobi;
  if (options.amg.near_nullspace || options.amg.block_size > 1) return Preconditioner::amg;
  const bool finite_elements = double(nnz) > amg_fe_row_length * double(rows);
  const bool amg = rows >= amg_any_from_rows || (rows >= amg_fe_from_rows && finite_elements) ||
                   (rows >= amg_from_rows && grows_like_a_surface(rows, nnz, host));  // (the sample last)
  return amg ? Preconditioner::amg : Preconditioner::chebyshev;
}

ElementType choose_preconditioner_precision(const cl::DeviceInfo& device, Preconditioner p, ElementType solve,
                                            std::size_t rows, const PreconditionerOptions& options) {
  if (p == Preconditioner::amg && near_nullspace_vectors(options.amg) > 1) return solve;
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

Settings resolve_automatic(const cl::DeviceInfo& device, Settings settings, std::size_t rows, std::size_t nnz,
                           const CsrView* host) {
  if (settings.preconditioner == Preconditioner::automatic) {
    settings.preconditioner = choose_preconditioner(device, rows, nnz, settings.precond_options, host);
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
  const FactorPlace place = requested.precond_options.factor;
  const bool may_go_direct = host && choose_preconditioner && choose_variant;
  const auto direct = [&](std::string why) {
    plan.method = Method::direct;
    plan.settings = requested;
    plan.settings.preconditioner = Preconditioner::cholesky;
    plan.settings.variant = CgVariant::textbook;  // not run: what CG would use with this M
    plan.reason = std::move(why);
    return plan;
  };
  std::string facts = count_text(double(rows)) + " rows, " + count_text(double(nnz)) + " nonzeros on a " +
                      (device.is_cpu() ? "CPU" : "GPU");
  if (may_go_direct && place != FactorPlace::device && worth_analysing(rows, nnz, host)) {
    plan.analysis = std::make_shared<SparseCholesky>(*host);
    facts = factor_text(plan.analysis->estimate());
    if (direct_pays(plan.analysis->estimate())) return direct(facts + ": direct");
    plan.analysis.reset();  // (a watched CG's hand-over runs it again only where it pays)
  }
  if (may_go_direct && place == FactorPlace::device && dense_factor_allowed(device, rows, place)) {
    char flops[32];
    std::snprintf(flops, sizeof flops, "%.3g", DenseDeviceCholesky::flops(rows) * 1e-6);
    plan.factor_on_device = true;
    return direct(facts + ": direct, a dense factor on the device (" + flops + " Mflop)");
  }
  Settings requested_here = requested;
  AmgOptions& amg = requested_here.precond_options.amg;
  // (a block size matters only where AMG may run)
  if (host && choose_preconditioner && !device.is_cpu() && rows >= chebyshev_from_rows && !amg.near_nullspace &&
      amg.block_size == 1) {
    amg.block_size = detect_block_size(*host);
    if (amg.block_size > 1) facts += ", nodes of " + std::to_string(amg.block_size) + " rows";
  }
  plan.settings = resolve_automatic(device, requested_here, rows, nnz, host);
  plan.watch_for_direct = may_go_direct && rows <= watch_up_to_rows;
  plan.reason = facts + ": " + cg_text(plan.settings, choose_preconditioner, choose_variant) +
                (plan.watch_for_direct ? ", watched" : "");
  return plan;
}

}  // namespace clcg::solver
