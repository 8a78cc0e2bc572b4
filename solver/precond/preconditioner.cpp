#include "clcg/solver/precond/preconditioner.hpp"

#include <stdexcept>
#include <string>

namespace clcg::solver {

std::string_view preconditioner_name(Preconditioner p) noexcept {
  return p == Preconditioner::jacobi ? "jacobi" : "none";
}

Preconditioner parse_preconditioner(std::string_view name) {
  if (name == "none") return Preconditioner::none;
  if (name == "jacobi") return Preconditioner::jacobi;
  throw std::invalid_argument("unknown preconditioner '" + std::string(name) + "' (known: none, jacobi)");
}

}  // namespace clcg::solver
