#include "clcg/solver/krylov/direct_solve.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace clcg::solver {
namespace {

// r = b - A x; returns ||r||^2.
double residual(const CsrView& a, std::span<const double> b, std::span<const double> x, std::vector<double>& r) {
  double rr = 0;
  for (std::int32_t i = 0; i < a.rows; ++i) {
    double ax = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ax += a.values[std::size_t(k)] * x[std::size_t(a.col_idx[std::size_t(k)])];
    r[std::size_t(i)] = b[std::size_t(i)] - ax;
    rr += r[std::size_t(i)] * r[std::size_t(i)];
  }
  return rr;
}

std::string relative_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

SolveInfo solve_directly(const CsrView& a, const CholeskyFactor& factor, std::span<const double> b, std::span<double> x,
                         bool use_guess, const Settings& settings) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = std::size_t(a.rows);
  SolveInfo info;
  double bb = 0;
  for (double v : b) bb += v * v;
  if (!std::isfinite(bb)) {
    info.status = Status::non_finite;
    info.true_residual = info.recursive_residual = std::nan("");
    info.message = "b has a NaN or infinite entry";
    return info;
  }
  if (!use_guess) std::fill(x.begin(), x.end(), 0.0);
  const double b_norm = std::sqrt(bb);
  const double scale = b_norm > 0 ? b_norm : 1.0;  // b = 0: the absolute residual
  std::vector<double> r(n), correction(n);
  // x0 = 0 needs no product: r = b.
  double rr = use_guess ? residual(a, b, x, r) : (std::copy(b.begin(), b.end(), r.begin()), bb);
  const std::size_t limit = std::min(settings.iteration_limit(n), max_direct_solves);
  while (std::sqrt(rr) > settings.tolerance * scale && info.iterations < limit && std::isfinite(rr)) {
    if (settings.should_stop && settings.should_stop()) {
      info.status = Status::interrupted;
      break;
    }
    factor.solve(r, correction);
    for (std::size_t i = 0; i < n; ++i) x[i] += correction[i];
    ++info.iterations;
    rr = residual(a, b, x, r);
    if (settings.on_iteration) settings.on_iteration(info.iterations, std::sqrt(rr) / scale);
    if (settings.record_history)  // one row a solve (no alpha or beta: there is no CG step)
      info.history.push_back({info.iterations, std::sqrt(rr) / scale, 0, 0,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  }
  info.true_residual = info.recursive_residual = std::sqrt(rr) / scale;
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string where = "relative residual " + relative_text(info.true_residual);
  if (info.status == Status::interrupted) {
    info.message = "interrupted after " + std::to_string(info.iterations) + " direct solve(s), " + where;
  } else if (!std::isfinite(rr)) {
    info.status = Status::non_finite;
    info.message = "the direct solve produced a NaN or infinite residual";
  } else if (std::sqrt(rr) <= settings.tolerance * scale) {
    info.status = Status::converged;
    info.message = "solved directly (" + std::string(factor.kind()) + ") with " + std::to_string(info.iterations) + " solve(s), " + where;
  } else {
    info.status = Status::max_iterations;
    info.message = info.iterations < max_direct_solves
                       ? "stopped at the iteration limit after " + std::to_string(info.iterations) +
                             " direct solve(s), " + where
                       : "the direct solve's " + where + " stays above the tolerance after " +
                             std::to_string(info.iterations) +
                             " solves with the factor: A is too ill-conditioned for this tolerance, or not symmetric";
  }
  return info;
}

}  // namespace clcg::solver
