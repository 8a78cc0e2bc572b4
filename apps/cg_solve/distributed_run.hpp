#pragma once
// cg-solve under mpirun: the same command line and contract (DESIGN.md), one device per rank,
// the rows split over the ranks (clcg::distributed). Rank 0 reads and sends each rank its rows,
// writes every output and prints; every rank ends with the same exit code.
#include "wall_time.hpp"

namespace cg_solve {

// MPI_Init, the run, MPI_Finalize; returns this rank's exit code (the same on every rank).
// `process_start`: main's first line, where the report's wall time starts.
int run_distributed(int argc, char** argv, WallClock::time_point process_start);

}  // namespace cg_solve
