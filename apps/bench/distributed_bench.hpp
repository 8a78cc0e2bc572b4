#pragma once
// cg-bench under mpirun (distributed_bench.cpp): strong and weak scaling rows of the distributed CG.

// MPI_Init, the benchmark, MPI_Finalize; the exit status.
int run_distributed_bench(int argc, char** argv);
