#include "clcg/solver/distributed/rank_failure.hpp"

namespace clcg::distributed {

void throw_if_any_rank_failed(MPI_Comm comm, std::exception_ptr local) {
  int failed = local ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  if (local) std::rethrow_exception(local);
  if (failed) throw AnotherRankFailed();
}

}  // namespace clcg::distributed
