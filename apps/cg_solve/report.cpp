#include "report.hpp"

#include <cstdio>
#include <sstream>

#include "clcg/solver/eigen/reference_solve.hpp"
#include "clcg/solver/version.hpp"

namespace cg_solve {
namespace {

const char* field_name(clcg::solver::MmField field) {
  switch (field) {
    case clcg::solver::MmField::real: return "real";
    case clcg::solver::MmField::integer: return "integer";
    case clcg::solver::MmField::pattern: return "pattern";
  }
  return "?";
}

nlohmann::json preconditioner_json(const RunReport& report) {
  const clcg::solver::PreconditionerReport& p = report.preconditioner_report;
  nlohmann::json json = {{"name", std::string(clcg::solver::preconditioner_name(report.preconditioner))},
                         {"setup_seconds", p.setup_seconds}};
  if (!p.precision.empty()) json["precision"] = p.precision;
  for (const auto& [name, value] : p.figures) json[name] = value;
  if (!p.phases.empty()) {
    json["phases"] = nlohmann::json::object();
    for (const auto& [name, seconds] : p.phases) json["phases"][name] = seconds;
  }
  if (!p.level_rows.empty()) {
    json["levels"] = nlohmann::json::array();
    for (std::size_t l = 0; l < p.level_rows.size(); ++l)
      json["levels"].push_back({{"rows", p.level_rows[l]}, {"nnz", p.level_nnz[l]}});
  }
  return json;
}

std::string preconditioner_text(const RunReport& report) {
  const clcg::solver::PreconditionerReport& p = report.preconditioner_report;
  std::ostringstream out;
  out << clcg::solver::preconditioner_name(report.preconditioner);
  if (report.options->preconditioner == clcg::solver::Preconditioner::automatic) out << " (auto)";
  if (!p.precision.empty() && p.precision != clcg::reduction::type_name(report.options->precision))
    out << ", applied in " << p.precision;
  if (!p.level_rows.empty()) {
    out << ", " << p.level_rows.size() << " levels (rows";
    for (std::size_t rows : p.level_rows) out << " " << rows;
    out << ")";
  }
  for (const auto& [name, value] : p.figures)
    if (name == "degree" || name == "sweeps" || name == "operator_complexity" || name == "shift")
      out << ", " << name << " " << value;
  return out.str();
}

}  // namespace

std::string seconds_text(double seconds) {
  char buffer[32];
  if (seconds < 1e-3) std::snprintf(buffer, sizeof buffer, "%.1f us", seconds * 1e6);
  else if (seconds < 1) std::snprintf(buffer, sizeof buffer, "%.2f ms", seconds * 1e3);
  else std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  return buffer;
}

nlohmann::json to_json(const RunReport& report) {
  const CliOptions& options = *report.options;
  const auto& result = report.result;
  nlohmann::json json;
  json["clcg_version"] = std::string(clcg::version());
  json["matrix"] = {{"path", options.matrix.empty() ? options.generate : options.matrix},
                    {"rows", report.rows},
                    {"cols", report.cols},
                    {"nnz", report.nnz},
                    {"stored_entries", report.matrix_info.stored_entries},
                    {"field", field_name(report.matrix_info.field)},
                    {"symmetry", report.matrix_info.symmetry == clcg::solver::MmSymmetry::symmetric ? "symmetric"
                                                                                                   : "general"}};
  json["device"] = {{"platform", report.device.platform_name},
                    {"name", report.device.name},
                    {"type", report.device.type_name()},
                    {"driver", report.device.driver_version}};
  json["solver"] = {{"method", std::string(clcg::solver::method_name(report.method))},
                    {"plan", report.plan_reason},
                    {"variant", std::string(clcg::solver::cg_variant_name(report.variant))},
                    {"variant_requested", options.variant},
                    {"precond", std::string(clcg::solver::preconditioner_name(report.preconditioner))},
                    {"precond_requested", std::string(clcg::solver::preconditioner_name(options.preconditioner))},
                    {"precision", std::string(clcg::reduction::type_name(options.precision))},
                    {"tol", options.tolerance},
                    {"max_iter", report.max_iterations}};
  if (report.method == clcg::solver::Method::direct) json["solver"]["factor"] = report.factor_on_device ? "device" : "host";
  const double per_iteration = result.iterations ? result.seconds / static_cast<double>(result.iterations) : 0.0;
  json["result"] = {{"converged", result.converged()},
                    {"status", std::string(clcg::solver::status_name(result.status))},
                    {"message", result.message},
                    {"iterations", result.iterations},
                    {"relative_residual", result.true_residual},
                    {"recursive_residual", result.recursive_residual},
                    {"solve_seconds", result.seconds},
                    {"seconds_per_iteration", per_iteration},
                    {"upload_seconds", report.time.upload},
                    {"build_seconds", report.time.build}};
  if (!options.output.empty()) json["result"]["output_written"] = report.output_written;
  // Time to solution counts the preconditioner's set-up.
  json["result"]["setup_seconds"] = report.preconditioner_report.setup_seconds;
  json["result"]["time_to_solution_seconds"] = report.preconditioner_report.setup_seconds + result.seconds;
  json["preconditioner"] = preconditioner_json(report);
  if (report.time.measured()) {
    json["timing"] = wall_time_json(report.time);
    json["programs"] = {{"made", report.programs.made},
                        {"loaded_from_cache", report.programs.loaded},
                        {"cache", report.programs.cache}};
  }
  if (report.error_vs_ones) json["result"]["error_vs_ones"] = *report.error_vs_ones;
  if (report.reference) {
    const auto& ref = *report.reference;
    json["reference"] = {{"solver", "Eigen::ConjugateGradient"},
                         {"precond", std::string(clcg::solver::preconditioner_name(
                                         clcg::solver::reference_preconditioner(report.preconditioner)))},
                         {"converged", ref.converged},
                         {"iterations", ref.iterations},
                         {"relative_residual", ref.true_residual},
                         {"recursive_residual", ref.recursive_residual},
                         {"solve_seconds", ref.seconds},
                         {"threads", ref.threads},
                         {"speedup", result.seconds > 0 ? ref.seconds / result.seconds : 0.0},
                         {"difference", report.difference_vs_reference}};
  }
  return json;
}

std::string human_summary(const RunReport& report) {
  const auto& result = report.result;
  std::ostringstream out;
  out << "cg-solve: " << (report.options->matrix.empty() ? report.options->generate : report.options->matrix) << ": n = " << report.rows << ", nnz = " << report.nnz << "\n"
      << "  device     " << report.device.name << " (" << report.device.platform_name << ")\n"
      << "  solver     ";
  if (report.method == clcg::solver::Method::direct) out << (report.factor_on_device ? "direct (dense LL^T on the device)" : "direct (sparse LDL^T on the host)");
  else out << clcg::solver::cg_variant_name(report.variant) << (report.options->variant == "auto" ? " (auto)" : "")
           << " CG, precond " << preconditioner_text(report);
  out << ", " << clcg::reduction::type_name(report.options->precision) << ", tol " << report.options->tolerance << "\n";
  if (!report.plan_reason.empty()) out << "  plan       " << report.plan_reason << "\n";
  out
      << "  result     " << result.message << "\n"
      << "  iterations " << result.iterations << " of at most " << report.max_iterations << "\n"
      << "  residual   " << result.true_residual << " true (||b - A x|| / ||b||), " << result.recursive_residual
      << " recursive\n";
  if (report.error_vs_ones) out << "  error      " << *report.error_vs_ones << " (||x - 1|| / ||1||)\n";
  out << "  time       ";
  if (report.preconditioner_report.setup_seconds > 0)
    out << seconds_text(report.preconditioner_report.setup_seconds + result.seconds) << " to solution = "
        << seconds_text(report.preconditioner_report.setup_seconds) << (report.method == clcg::solver::Method::direct ? " analysis and factorisation + " : " preconditioner set-up + ");
  out << seconds_text(result.seconds) << " solve";
  if (result.iterations) out << " (" << seconds_text(result.seconds / static_cast<double>(result.iterations)) << " per iteration)";
  if (report.time.measured()) out << "\n  wall       " << wall_time_text(report.time) << "\n";
  else out << ", " << seconds_text(report.time.upload) << " upload, " << seconds_text(report.time.build) << " kernel build\n";
  if (!report.options->output.empty() && !report.output_written)
    out << "  output     " << report.options->output
        << " not written: the solve did not converge (--output-unconverged writes the last iterate)\n";
  if (report.reference) {
    const auto& ref = *report.reference;
    out << "  Eigen      " << (ref.converged ? "converged" : "did not converge") << " in " << ref.iterations
        << " iterations, " << seconds_text(ref.seconds) << " on " << ref.threads << " thread(s), residual "
        << ref.true_residual << "; speedup " << (result.seconds > 0 ? ref.seconds / result.seconds : 0.0)
        << "x, ||x - x_ref|| / ||x_ref|| = " << report.difference_vs_reference << "\n";
  }
  return out.str();
}

std::string failure_reason(const RunReport& report) {
  return report.result.converged() ? "" : "cg-solve: " + report.result.message + "\n";
}

std::string history_csv(const clcg::solver::SolveInfo& result,
                        const std::vector<std::pair<std::size_t, double>>& eigen_history) {
  std::ostringstream out;
  out.precision(17);
  out << "iteration,solver,residual,alpha,beta,seconds\n";
  for (const auto& step : result.history)
    out << step.iteration << ",clcg," << step.residual << "," << step.alpha << "," << step.beta << "," << step.seconds
        << "\n";
  for (const auto& [iteration, residual] : eigen_history) out << iteration << ",eigen," << residual << ",,,\n";
  return out.str();
}

}  // namespace cg_solve
