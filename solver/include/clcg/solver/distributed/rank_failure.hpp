#pragma once
// Collective set-up steps must not leave a rank waiting in MPI for one that failed: after
// each local part of a set-up, every rank calls throw_if_any_rank_failed with what (if
// anything) it caught. The failed ranks rethrow their own error; the others throw
// AnotherRankFailed, so every rank leaves the set-up together.
#include <mpi.h>

#include <exception>
#include <stdexcept>

namespace clcg::distributed {

struct AnotherRankFailed : std::runtime_error {
  AnotherRankFailed() : std::runtime_error("another rank failed") {}
};

void throw_if_any_rank_failed(MPI_Comm comm, std::exception_ptr local);

// Runs `step` and returns what it threw (null if nothing).
template <class F>
std::exception_ptr capture(F&& step) {
  try {
    step();
    return nullptr;
  } catch (...) {
    return std::current_exception();
  }
}

}  // namespace clcg::distributed
