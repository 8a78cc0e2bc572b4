#pragma once
// The convergence regression gate (tests/baselines/convergence.json): per test matrix, CG
// variant, precision and preconditioner, the status, iteration count and final true residual
// recorded on PoCL, and the rule a new run is held to. Shared by the check
// (convergence_baseline_test.cpp), the rule's host test (convergence_rule_test.cpp) and the
// recorder (record_convergence.cpp, run by scripts/record_baselines).
//
// The rule (each entry carries its own copy, so a re-record can loosen one entry):
//   status        identical to the baseline's;
//   iterations    |it - it_base| <= max(iterations_abs, iterations_rel * it_base):
//                 max(2, 2%) for well-conditioned matrices, max(5, 10%) for ill-conditioned
//                 ones (the bus / bcsstk matrices, the anisotropic Poisson problem);
//   true residual <= max(residual_tol_factor * tol, residual_baseline_factor * baseline)
//                 = max(1.5 tol, 3 x baseline).
// Why these widths: the iterates of CG are the same on every device only up to rounding, and
// rounding moves with the summation order of the reductions (work-group size, number of
// groups, PoCL's vectoriser) and with the compiler (FMA contraction). On a well-conditioned
// matrix the residual falls by a steady factor per step, so a perturbation shifts the step at
// which it crosses tol by about one: 2 steps or 2 % is the noise. On an ill-conditioned matrix
// rounding loses A-orthogonality and the count wanders by several percent (bcsstk01 needs
// ~3 n steps), hence 5 steps or 10 %. A real regression is far outside both: a wrong kernel or a
// broken fused dot either stops convergence (status changes) or costs tens of percent more
// steps, and a lost residual replacement or a wrong true-residual computation moves the final
// residual by orders of magnitude, not by 3x.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/io/matrix_market.hpp"

namespace clcg::test::baseline {

struct Rule {
  double iterations_abs = 2;
  double iterations_rel = 0.02;
  double residual_tol_factor = 1.5;
  double residual_baseline_factor = 3;
};
inline constexpr Rule well_conditioned_rule{2, 0.02, 1.5, 3};
inline constexpr Rule ill_conditioned_rule{5, 0.10, 1.5, 3};

// One solve: b = A*1, x0 = 0, on `matrix` read from `source` ("data": the project's data/,
// "shared": ../shared/data/matrices).
struct Entry {
  std::string matrix;
  std::string source = "data";
  std::string conditioning = "well";  // "well" or "ill": which Rule was used
  std::string variant = "textbook";   // cg_variant_name
  std::string precision = "double";   // "double" or "float"
  std::string precond = "none";       // preconditioner_name
  double tolerance = 1e-8;
  std::int64_t max_iterations = 1000;
  Rule rule;
  // The recorded result.
  std::string status = "converged";
  std::int64_t iterations = 0;
  double true_residual = 0;  // NaN when the run produced none (stored as null)

  std::string key() const { return matrix + " " + variant + " " + precision + " " + precond; }
};

struct Observed {
  std::string status;
  std::int64_t iterations = 0;
  double true_residual = 0;
  double seconds = 0;
};

// The iteration band and the residual bound for `e`.
inline double allowed_iteration_change(const Entry& e) {
  return std::max(e.rule.iterations_abs, e.rule.iterations_rel * double(e.iterations));
}
inline double residual_bound(const Entry& e) {
  const double from_base = std::isfinite(e.true_residual) ? e.rule.residual_baseline_factor * e.true_residual : 0;
  return std::max(e.rule.residual_tol_factor * e.tolerance, from_base);
}

// Empty when `now` satisfies the entry's rule, else one reason per violated clause.
inline std::vector<std::string> violations(const Entry& e, const Observed& now) {
  std::vector<std::string> why;
  if (now.status != e.status) why.push_back("status " + now.status + " (baseline " + e.status + ")");
  const double change = std::abs(double(now.iterations) - double(e.iterations));
  if (change > allowed_iteration_change(e)) {
    std::ostringstream s;
    s << "iterations " << now.iterations << " vs " << e.iterations << " (|change| " << change << " > allowed "
      << allowed_iteration_change(e) << ")";
    why.push_back(s.str());
  }
  // A NaN residual now fails unless the baseline had none either (a non_finite baseline).
  const bool residual_ok = now.true_residual <= residual_bound(e) ||
                           (!std::isfinite(e.true_residual) && !std::isfinite(now.true_residual));
  if (!residual_ok) {
    std::ostringstream s;
    s.precision(3);
    s << "true residual " << now.true_residual << " > bound " << residual_bound(e);
    why.push_back(s.str());
  }
  return why;
}

// ---- JSON -------------------------------------------------------------------------------

inline double json_number_or_nan(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::nan("");
}

inline Entry entry_from_json(const nlohmann::json& j) {
  Entry e;
  e.matrix = j.at("matrix").get<std::string>();
  e.source = j.at("source").get<std::string>();
  e.conditioning = j.at("conditioning").get<std::string>();
  e.variant = j.at("variant").get<std::string>();
  e.precision = j.at("precision").get<std::string>();
  e.precond = j.at("precond").get<std::string>();
  e.tolerance = j.at("tolerance").get<double>();
  e.max_iterations = j.at("max_iterations").get<std::int64_t>();
  const auto& r = j.at("rule");
  e.rule = {r.at("iterations_abs").get<double>(), r.at("iterations_rel").get<double>(),
            r.at("residual_tol_factor").get<double>(), r.at("residual_baseline_factor").get<double>()};
  e.status = j.at("status").get<std::string>();
  e.iterations = j.at("iterations").get<std::int64_t>();
  e.true_residual = json_number_or_nan(j.at("true_residual"));
  if (e.source != "data" && e.source != "shared") throw std::runtime_error(e.key() + ": source must be data or shared");
  if (e.precision != "double" && e.precision != "float")
    throw std::runtime_error(e.key() + ": precision must be double or float");
  if (e.conditioning != "well" && e.conditioning != "ill")
    throw std::runtime_error(e.key() + ": conditioning must be well or ill");
  return e;
}

inline nlohmann::ordered_json entry_to_json(const Entry& e) {
  nlohmann::ordered_json j;
  j["matrix"] = e.matrix;
  j["source"] = e.source;
  j["conditioning"] = e.conditioning;
  j["variant"] = e.variant;
  j["precision"] = e.precision;
  j["precond"] = e.precond;
  j["tolerance"] = e.tolerance;
  j["max_iterations"] = e.max_iterations;
  j["status"] = e.status;
  j["iterations"] = e.iterations;
  if (std::isfinite(e.true_residual)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", e.true_residual);  // 4 significant digits: the rule allows 3x
    j["true_residual"] = std::strtod(text, nullptr);
  } else {
    j["true_residual"] = nullptr;
  }
  j["rule"] = {{"iterations_abs", e.rule.iterations_abs},
               {"iterations_rel", e.rule.iterations_rel},
               {"residual_tol_factor", e.rule.residual_tol_factor},
               {"residual_baseline_factor", e.rule.residual_baseline_factor}};
  return j;
}

struct BaselineFile {
  nlohmann::ordered_json header;  // everything but "entries"
  std::vector<Entry> entries;
};

// The file the check reads: $CLCG_BASELINE_FILE, else the one in the source tree.
inline std::string baseline_path() {
  if (const char* env = std::getenv("CLCG_BASELINE_FILE"); env && *env) return env;
  return CLCG_CONVERGENCE_BASELINES;
}

inline BaselineFile parse_baselines(const std::string& text, const std::string& name) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const std::exception& ex) {
    throw std::runtime_error(name + ": " + ex.what());
  }
  BaselineFile file;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "entries") file.header[it.key()] = it.value();
  for (const auto& item : j.at("entries")) {
    try {
      file.entries.push_back(entry_from_json(nlohmann::json::parse(item.dump())));
    } catch (const std::exception& ex) {
      throw std::runtime_error(name + ": entry " + item.dump() + ": " + ex.what());
    }
  }
  return file;
}

inline BaselineFile load_baselines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_baselines(text.str(), path);
}

// The header fields as indented JSON, then one entry per line (readable diffs on re-record).
inline std::string dump_baselines(const BaselineFile& file) {
  std::string out = "{\n";
  for (auto it = file.header.begin(); it != file.header.end(); ++it) {
    std::string value = it.value().dump(2);
    for (std::size_t pos = value.find('\n'); pos != std::string::npos; pos = value.find('\n', pos + 3))
      value.replace(pos, 1, "\n  ");
    out += "  " + nlohmann::json(it.key()).dump() + ": " + value + ",\n";
  }
  out += "  \"entries\": [\n";
  for (std::size_t i = 0; i < file.entries.size(); ++i)
    out += "    " + entry_to_json(file.entries[i]).dump() + (i + 1 < file.entries.size() ? ",\n" : "\n");
  out += "  ]\n}\n";
  return out;
}

// ---- Running an entry (device) ----------------------------------------------------------

inline std::string matrix_path(const Entry& e) {
  const std::filesystem::path dir = e.source == "shared" ? CLCG_SHARED_MATRICES : CLCG_PROJECT_DATA;
  return (dir / e.matrix).string();
}
inline bool matrix_available(const Entry& e) { return std::filesystem::exists(matrix_path(e)); }

// Matrices read once per process.
inline const solver::HostMatrix& cached_matrix(const std::string& path) {
  static std::map<std::string, solver::HostMatrix> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, solver::read_matrix_market(path)).first;
  return it->second;
}

inline Observed run_entry(const cl::Env& env, const Entry& e) {
  const solver::HostMatrix& a = cached_matrix(matrix_path(e));
  const Eigen::VectorXd b = a * Eigen::VectorXd::Ones(a.cols());
  solver::Settings settings;
  settings.tolerance = e.tolerance;
  settings.max_iterations = e.max_iterations;
  settings.variant = solver::parse_cg_variant(e.variant);
  settings.preconditioner = solver::parse_preconditioner(e.precond);
  settings.precision = e.precision == "float" ? solver::ElementType::f32 : solver::ElementType::f64;
  const auto result = solver::solve(env, a, b, settings);
  return {std::string(solver::status_name(result.info.status)), std::int64_t(result.info.iterations),
          result.info.true_residual, result.info.seconds};
}

// A solve that never returns (a livelock in a variant's loop) must fail with its name rather
// than hang until ctest's timeout: while an entry runs longer than `limit`, the watchdog prints
// the entry and what it was given and ends the process with exit code `exit_code`.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, int exit_code) : limit_(limit), exit_code_(exit_code), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void begin(std::string what) {
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
    deadline_ = std::chrono::steady_clock::now() + limit_;
    armed_ = true;
    cv_.notify_all();
  }
  void end() {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      if (armed_ && std::chrono::steady_clock::now() >= deadline_) {
        std::fprintf(stderr,
                     "\nconvergence gate: %s did not return within %lld s (a hang or livelock in the solver); "
                     "giving up\n",
                     what_.c_str(), static_cast<long long>(limit_.count()));
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(exit_code_);
      }
      if (armed_) cv_.wait_until(lock, deadline_);
      else cv_.wait(lock);
    }
  }

  std::chrono::seconds limit_;
  int exit_code_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false, stop_ = false;
  std::thread thread_;  // last: starts after the members it reads
};

// ---- Reporting --------------------------------------------------------------------------

inline std::string table_header() {
  char line[200];
  std::snprintf(line, sizeof line, "%-24s %-9s %-6s %-6s | %-14s %7s %9s | %-14s %7s %9s | %s\n", "matrix", "variant",
                "prec", "pc", "base status", "it", "true res", "now status", "it", "true res", "verdict");
  return line;
}

inline std::string table_row(const Entry& e, const Observed& now, const std::vector<std::string>& why) {
  char line[300];
  std::snprintf(line, sizeof line, "%-24s %-9s %-6s %-6s | %-14s %7lld %9.2e | %-14s %7lld %9.2e | ", e.matrix.c_str(),
                e.variant.c_str(), e.precision.c_str(), e.precond.c_str(), e.status.c_str(),
                static_cast<long long>(e.iterations), e.true_residual, now.status.c_str(),
                static_cast<long long>(now.iterations), now.true_residual);
  std::string row = line;
  if (why.empty()) return row + "ok\n";
  for (std::size_t i = 0; i < why.size(); ++i) row += (i ? "; " : "FAIL: ") + why[i];
  return row + "\n";
}

}  // namespace clcg::test::baseline
