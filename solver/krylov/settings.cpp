#include "clcg/solver/krylov/settings.hpp"

#include <stdexcept>
#include <string>

#include "clcg/solver/krylov/solve_info.hpp"

namespace clcg::solver {

std::string_view status_name(Status status) noexcept {
  switch (status) {
    case Status::converged: return "converged";
    case Status::max_iterations: return "max_iterations";
    case Status::breakdown: return "breakdown";
    case Status::non_finite: return "non_finite";
    case Status::stagnated: return "stagnated";
    case Status::diverged: return "diverged";
    case Status::interrupted: return "interrupted";
  }
  return "?";
}

std::string_view cg_variant_name(CgVariant v) noexcept {
  switch (v) {
    case CgVariant::textbook: return "textbook";
    case CgVariant::fused: return "fused";
    case CgVariant::pipelined: return "pipelined";
    case CgVariant::single: return "single";
    case CgVariant::automatic: return "auto";
  }
  return "?";
}

std::span<const CgVariant> all_cg_variants() noexcept {
  static constexpr CgVariant variants[] = {CgVariant::textbook, CgVariant::fused, CgVariant::pipelined,
                                           CgVariant::single};
  return variants;
}

CgVariant parse_cg_variant(std::string_view name) {
  if (name == cg_variant_name(CgVariant::automatic)) return CgVariant::automatic;
  std::string known = std::string(cg_variant_name(CgVariant::automatic));
  for (CgVariant v : all_cg_variants()) {
    if (cg_variant_name(v) == name) return v;
    known += ", " + std::string(cg_variant_name(v));
  }
  throw std::invalid_argument("unknown CG variant '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace clcg::solver
