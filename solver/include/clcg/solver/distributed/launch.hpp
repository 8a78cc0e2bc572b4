#pragma once
// How an MPI program finds its place: whether an MPI launcher started it, and which device a
// rank takes (the node's i-th device of the kind asked for, for the node's i-th rank, unless an
// index names one).
#include <mpi.h>

#include "clcg/cl/device.hpp"

namespace clcg::distributed {

// Whether an MPI launcher started this process (Open MPI's, or a PMI/PMIx one), even with -np 1.
bool launched_by_mpi();

// This process's rank in `comm`.
int comm_rank(MPI_Comm comm);

// This rank's number among the ranks of its node (MPI_Comm_split_type). Collective over `comm`.
int node_rank(MPI_Comm comm);

// `requested` where it names a device by index (every rank on it); else the device numbered
// `node_rank` (node_rank()) modulo the node's devices of the kind `requested` picks from
// (select_device's turn): `auto` and `gpu` spread the ranks over the GPUs (a user writing
// --device gpu under mpirun gets a GPU a rank, not one shared), `cpu` over the CPU devices.
// No MPI call: it may run on another thread while the rank's own goes on.
cl::DeviceSelector rank_device(int node_rank, const cl::DeviceSelector& requested);

// Where CLCG_THREADS is not set, sets it to this node's hardware threads shared among its ranks
// (at least 1), so the ranks' host passes (reading, generation, the halo) do not oversubscribe
// the cores. Collective over `comm`; call before any host pass.
void share_host_threads(MPI_Comm comm);

}  // namespace clcg::distributed
