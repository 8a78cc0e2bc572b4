#include "clcg/solver/distributed/launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace clcg::distributed {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

namespace {
// This rank's place on its node: its number among the node's ranks and their count. Collective.
struct NodePlace {
  int rank = 0, ranks = 1;
};
NodePlace node_place(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  NodePlace place;
  MPI_Comm_rank(node, &place.rank);
  MPI_Comm_size(node, &place.ranks);
  MPI_Comm_free(&node);
  return place;
}
}  // namespace

int node_rank(MPI_Comm comm) { return node_place(comm).rank; }

cl::DeviceSelector rank_device(int node_rank, const cl::DeviceSelector& requested) {
  if (requested.kind == cl::DeviceSelector::Kind::index) return requested;  // an index pins every rank
  cl::DeviceSelector selector;
  selector.kind = cl::DeviceSelector::Kind::index;
  selector.index = cl::select_device(cl::list_devices(), requested, std::size_t(node_rank)).index;
  return selector;
}

void share_host_threads(MPI_Comm comm) {
  const int local_ranks = node_place(comm).ranks;
  if (const char* set = std::getenv("CLCG_THREADS"); set && *set) return;  // the user's choice stands
  const unsigned share = std::max(1U, std::thread::hardware_concurrency() / unsigned(std::max(1, local_ranks)));
  setenv("CLCG_THREADS", std::to_string(share).c_str(), 1);
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace clcg::distributed
