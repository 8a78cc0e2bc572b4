#pragma once
// The distributed AMG set-up's sparse products on the rank's device: C = A B for this rank's
// rows of A, where B's rows are those this rank owns followed by those fetched from their owners
// (remote_rows.hpp). The host renumbers A's columns to B's local rows (owned, then fetched in
// id order) and passes B's global columns as 32-bit indices; clcg::solver::SparseProducts
// (kernels/sparse_product.cl) forms C, which comes back with global columns, each row sorted.
//
// Every entry of C is summed in the order of A's row, products not fused into the sums: the
// bits of the host reference's multiply() on the whole matrices, whatever the partition.
//
//   RankProducts products(comm, env);
//   const std::vector<std::int64_t> ghosts = foreign_columns(a, rows_of_p, rank);
//   const RankProducts::Rows a_here = products.upload(a, rows_of_p, rank, ghosts);
//   LocalRows ap = products.multiply(a_here, p, fetch_rows(comm, rows_of_p, p, ghosts), coarse_rows);
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/multigrid/sparse_product.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::distributed {

class RankProducts {
 public:
  // Values in double: the device needs fp64 (std::runtime_error naming the device otherwise).
  // Every call is collective in its failures: where one rank's device fails (its memory), that
  // rank throws its error and every other AnotherRankFailed, so none waits in MPI alone.
  RankProducts(MPI_Comm comm, const cl::Env& env);

  // A's rows on the device with local columns, for products with any B whose rows `b_rows`
  // spreads over the ranks: this rank's rows of B first, then `fetched` (sorted; A's columns
  // outside this rank's rows of B, as foreign_columns gives them).
  struct Rows {
    solver::DeviceCsrMatrix matrix;
    std::int64_t global_rows = 0, row_begin = 0;
    std::int64_t owned = 0;           // this rank's rows of B
    std::vector<std::int64_t> fetched;  // the rows of B after them
  };
  Rows upload(const LocalRows& a, const Partition& b_rows, int rank, std::vector<std::int64_t> fetched) const;

  // C = A B: `owned` this rank's rows of B, `remote` the rows `a` was uploaded for (checked),
  // `columns` B's (global) column count.
  LocalRows multiply(const Rows& a, const LocalRows& owned, const RemoteRows& remote, std::int64_t columns,
                     const std::string& label);

 private:
  // `count` elements of From from the device into `to`, converted to To, through the pinned
  // halves in turn: the host's threads copy one out while the next arrives. (A read straight
  // into new host pages faulted them in on one thread: 2.4 GB/s on the H100s' host.)
  template <class From, class To>
  void read(const ::cl::Buffer& from, std::size_t count, To* to);
  static constexpr std::size_t read_chunk_bytes = std::size_t(64) << 20;
  // The steps above on this rank alone.
  Rows upload_here(const LocalRows& a, const Partition& b_rows, int rank, std::vector<std::int64_t> fetched) const;
  LocalRows multiply_here(const Rows& a, const LocalRows& owned, const RemoteRows& remote, std::int64_t columns,
                          const std::string& label);
  // step() on this rank's device, its failure shared with every rank (see above).
  template <class F>
  auto shared(F&& step) const;

  MPI_Comm comm_;
  const cl::Env& env_;
  std::optional<solver::SparseProducts> products_;
  cl::PinnedBuffer pinned_;  // two halves of read_chunk_bytes
};

}  // namespace clcg::distributed
