#pragma once
// Where cg-solve's wall time goes (DESIGN.md "Time to solution"): each part is timed where it
// happens; what no part covers is reported as "other", so the parts add up to the wall time
// from main's first line to the report.
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <utility>

namespace cg_solve {

using WallClock = std::chrono::steady_clock;

struct WallTime {
  WallClock::time_point process_start{};  // main's first line; unset: nothing is reported
  bool generated = false;  // --generate: the read part is the generator's
  bool distributed = false;  // under mpirun: mpi_init is a part
  double mpi_init = 0;       // MPI_Init and the ranks' share of the host's threads
  double read = 0;         // A (read or generated), b and x0
  double device_open = 0;  // platforms listed, device chosen, context and queue created
  double upload = 0;       // A and b to the device, solver objects, x back, residual on the host
  double build = 0;        // OpenCL programs compiled (or loaded from the disk cache)
  double setup = 0;        // the preconditioner's set-up, its builds left out
  double solve = 0;        // the CG iterations
  double reference = 0;    // --reference: Eigen's solve (and its history) on the host
  double write = 0;        // --output and --history
  double wall = 0;         // process_start to the report (set by finish())

  void finish() { wall = seconds_since(process_start); }
  double other() const {
    return wall - (mpi_init + read + device_open + upload + build + setup + solve + reference + write);
  }
  bool measured() const { return process_start != WallClock::time_point{}; }

  static double seconds_since(WallClock::time_point start) {
    return std::chrono::duration<double>(WallClock::now() - start).count();
  }
};

// Runs f() and adds its wall time to `seconds`.
template <class F>
decltype(auto) timed(double& seconds, F&& f) {
  struct Adder {
    double& seconds;
    WallClock::time_point start = WallClock::now();
    ~Adder() { seconds += WallTime::seconds_since(start); }
  } adder{seconds};
  return std::forward<F>(f)();
}

// {"read_seconds" (or "generate_seconds"), "device_open_seconds", ..., "other_seconds", "wall_seconds"}
nlohmann::json wall_time_json(const WallTime& time);
// "1.234 s wall = 12.0 ms read + ... + 0.5 ms other"
std::string wall_time_text(const WallTime& time);

}  // namespace cg_solve
