#pragma once
// cg-solve under mpirun: the same command line and contract (DESIGN.md), one device per rank,
// the rows split over the ranks (clcg::distributed). Rank 0 reads and sends each rank its rows,
// writes every output and prints; every rank ends with the same exit code.
namespace cg_solve {

// MPI_Init, the run, MPI_Finalize; returns this rank's exit code (the same on every rank).
int run_distributed(int argc, char** argv);

}  // namespace cg_solve
