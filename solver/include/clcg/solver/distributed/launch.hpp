#pragma once
// How an MPI program finds its place: whether an MPI launcher started it, and which device a
// rank takes (the i-th GPU of its node for the node's i-th rank, unless the user named one).
#include <mpi.h>

#include "clcg/cl/device.hpp"

namespace clcg::distributed {

// Whether an MPI launcher started this process (Open MPI's, or a PMI/PMIx one), even with -np 1.
bool launched_by_mpi();

// `requested` when `user_chose` (--device / --platform / CLCG_DEVICE); else the GPU numbered
// (rank among the ranks of this node, MPI_Comm_split_type) modulo the node's GPUs; else
// `requested` (no GPU: the usual automatic choice). Collective over `comm`.
cl::DeviceSelector rank_device(MPI_Comm comm, const cl::DeviceSelector& requested, bool user_chose);

}  // namespace clcg::distributed
