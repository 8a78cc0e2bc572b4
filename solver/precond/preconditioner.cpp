#include "clcg/solver/precond/preconditioner.hpp"

#include <stdexcept>
#include <string>

namespace clcg::solver {
namespace {

constexpr Preconditioner all[] = {Preconditioner::none, Preconditioner::jacobi, Preconditioner::chebyshev,
                                  Preconditioner::ic0, Preconditioner::amg, Preconditioner::cholesky,
                                  Preconditioner::automatic};

}  // namespace

std::string_view preconditioner_name(Preconditioner p) noexcept {
  switch (p) {
    case Preconditioner::none: return "none";
    case Preconditioner::jacobi: return "jacobi";
    case Preconditioner::chebyshev: return "chebyshev";
    case Preconditioner::ic0: return "ic0";
    case Preconditioner::amg: return "amg";
    case Preconditioner::cholesky: return "cholesky";
    case Preconditioner::automatic: return "auto";
  }
  return "?";
}

Preconditioner parse_preconditioner(std::string_view name) {
  std::string known;
  for (Preconditioner p : all) {
    if (preconditioner_name(p) == name) return p;
    known += (known.empty() ? "" : ", ") + std::string(preconditioner_name(p));
  }
  throw std::invalid_argument("unknown preconditioner '" + std::string(name) + "' (known: " + known + ")");
}

std::string_view factor_place_name(FactorPlace p) noexcept {
  switch (p) {
    case FactorPlace::automatic: return "auto";
    case FactorPlace::host: return "host";
    case FactorPlace::device: return "device";
  }
  return "?";
}

FactorPlace parse_factor_place(std::string_view name) {
  for (FactorPlace p : {FactorPlace::automatic, FactorPlace::host, FactorPlace::device})
    if (factor_place_name(p) == name) return p;
  throw std::invalid_argument("unknown factor place '" + std::string(name) + "' (known: auto, host, device)");
}

}  // namespace clcg::solver
