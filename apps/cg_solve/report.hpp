#pragma once
// What cg-solve reports: the JSON object (DESIGN.md's contract), the human summary on
// stderr and the --history CSV.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli_options.hpp"
#include "clcg/cl/device.hpp"
#include "clcg/solver/eigen/reference_solve.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/krylov/solve_info.hpp"
#include "clcg/solver/precond/device_preconditioner.hpp"
#include "wall_time.hpp"

namespace cg_solve {

struct RunReport {
  const CliOptions* options = nullptr;
  clcg::solver::MatrixMarketInfo matrix_info{};
  long long rows = 0, cols = 0, nnz = 0;  // nnz of the expanded matrix
  clcg::cl::DeviceInfo device;
  clcg::solver::SolveInfo result;
  std::size_t max_iterations = 0;
  clcg::solver::Method method = clcg::solver::Method::cg;           // direct or CG (the planner's)
  bool factor_on_device = false;                                   // direct: the dense factor on the device
  std::string plan_reason;                                          // why (krylov/plan.hpp)
  clcg::solver::CgVariant variant = clcg::solver::CgVariant::fused;  // the one that ran
  clcg::solver::Preconditioner preconditioner = clcg::solver::Preconditioner::none;  // the one that ran
  clcg::solver::PreconditionerReport preconditioner_report;
  WallTime time;  // the parts of the wall time (upload and build also for the MPI run)
  struct {
    std::size_t made = 0, loaded = 0;  // programs compiled or loaded; loaded from the disk cache
    std::string cache;                 // the disk cache's directory, "" when off
  } programs;
  bool output_written = false;
  std::optional<double> error_vs_ones;  // when b = A 1
  std::optional<clcg::solver::EigenReferenceResult> reference;
  double difference_vs_reference = 0;  // ||x - x_ref|| / ||x_ref||
};

nlohmann::json to_json(const RunReport& report);
std::string human_summary(const RunReport& report);
// What --quiet still prints: "cg-solve: <why it did not converge>\n", or "" when it did.
std::string failure_reason(const RunReport& report);
// "12.5 us", "3.40 ms", "1.250 s"
std::string seconds_text(double seconds);
// iteration,solver,residual,alpha,beta,seconds rows: clcg's every iteration, then Eigen's
// sampled history (alpha, beta, seconds empty) when given.
std::string history_csv(const clcg::solver::SolveInfo& result,
                        const std::vector<std::pair<std::size_t, double>>& eigen_history);

}  // namespace cg_solve
