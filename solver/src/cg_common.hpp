#pragma once
// What the CG variants share besides the device kernels: the stopping threshold and the
// wording of how a solve ended, so every variant reports the same way.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

#include "clcg/reduction/op.hpp"

namespace clcg::solver::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline std::string format_double(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

// Eigen's rule ||r||^2 <= tol^2 ||b||^2, never below the smallest normal number.
inline double stopping_threshold(double tolerance, double bb) {
  return std::max(tolerance * tolerance * bb, std::numeric_limits<double>::min());
}

inline std::string breakdown_message(std::size_t k, double pq) {
  return "matrix (or preconditioner) not positive definite at iteration " + std::to_string(k) +
         ": p^T A p = " + format_double(pq);
}

inline std::string preconditioner_breakdown_message(std::size_t k, double rz) {
  return "preconditioner not positive definite at iteration " + std::to_string(k) + ": r^T M^-1 r = " +
         format_double(rz);
}

inline std::string not_converged_message(std::size_t iterations, double residual, double tolerance) {
  return "not converged after " + std::to_string(iterations) + " iterations (relative residual " +
         format_double(residual) + ", tolerance " + format_double(tolerance) + ")";
}

inline std::string stalled_message(std::size_t iterations, double confirmed, double tolerance, std::size_t replacements,
                                   reduction::ElementType type) {
  return "stopped after " + std::to_string(iterations) + " iterations: the true residual " + format_double(confirmed) +
         " stays above the tolerance " + format_double(tolerance) + " although the recursive one met it " +
         std::to_string(replacements + 1) + (replacements ? " times" : " time") + " (the tolerance is below what " +
         std::string(reduction::type_name(type)) + " reaches on this problem)";
}

inline std::string replaced_note(std::size_t replacements) {
  return " (the recursive residual drifted from the true one; replaced " + std::to_string(replacements) +
         (replacements == 1 ? " time)" : " times)");
}

}  // namespace clcg::solver::detail
