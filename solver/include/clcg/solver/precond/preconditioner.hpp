#pragma once
// Which preconditioner M a CG solve applies (z = M^-1 r). M must be symmetric positive
// definite for CG to converge; each one is documented where it is built.
#include <string_view>

namespace clcg::solver {

enum class Preconditioner {
  none,    // M = I: plain CG
  jacobi,  // M = diag(A) (Eigen's DiagonalPreconditioner); precond/jacobi.hpp
};

std::string_view preconditioner_name(Preconditioner p) noexcept;  // "none", "jacobi"
Preconditioner parse_preconditioner(std::string_view name);       // std::invalid_argument listing the names

}  // namespace clcg::solver
