#pragma once
// A halo exchange of a vector on the device (Halo says what goes where): the owned values the
// neighbours need are packed on the device and read into pinned host memory, sent and received
// with MPI point-to-point, and the ghosts written back after the vector's owned values. In
// three steps, so that device work can run between them:
//
//   halo.start(x);   // pack and start reading (the device queue runs on)
//   ...              // kernels that need no ghost (the interior rows)
//   halo.finish(x);  // post the transfers (after the read), wait, write the ghosts into x
//
// post() alone sends early (behind a blocking read of something else). Every rank of the
// halo's communicator must exchange the same vectors in the same order.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/sparse/row_layout.hpp"

namespace clcg::distributed {

struct HaloTimes {
  double seconds = 0;            // pack, device -> host, MPI, host -> device (host wall time)
  std::size_t exchanges = 0;
  std::uint64_t bytes = 0;       // sent + received
};

class DeviceHalo {
 public:
  // `owned`: the vector's owned values, after which the ghosts go.
  DeviceHalo(MPI_Comm comm, const cl::Env& env, const Halo& halo, std::int64_t owned, solver::ElementType type);

  void start(const ::cl::Buffer& x);
  void post();
  void finish(::cl::Buffer& x);
  void exchange(::cl::Buffer& x) {
    start(x);
    finish(x);
  }
  // A pass over `rows` rows that reads x's ghosts, beside this exchange of x (solver::rows_around):
  // the rows of `interior`, which read none, while the values travel; the rest once they are in.
  void around(::cl::Buffer& x, std::size_t rows, solver::RowRange interior,
              const std::function<void(solver::RowRange)>& pass) {
    solver::rows_around(rows, interior, [&] { start(x); }, [&] { finish(x); }, pass);
  }
  bool any() const noexcept { return !neighbours_.empty(); }  // whether this rank sends or receives at all
  std::int64_t ghosts() const noexcept { return ghosts_; }
  std::int64_t sends() const noexcept { return std::int64_t(send_counts_total_); }
  // The local rows it sends (Halo::send_rows, sends() of them) on the device, as uints.
  const ::cl::Buffer& send_rows() const noexcept { return send_index_; }
  const HaloTimes& times() const noexcept { return times_; }
  void reset_times() noexcept { times_ = {}; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  cl::Env env_;
  solver::ElementType type_ = solver::ElementType::f64;
  std::size_t element_ = 8;
  std::int64_t owned_ = 0, ghosts_ = 0;
  std::size_t send_counts_total_ = 0;
  std::vector<int> neighbours_, send_counts_, send_offsets_, recv_counts_, recv_offsets_;
  ::cl::Buffer send_index_, send_buffer_;
  cl::PinnedBuffer send_host_, recv_host_;
  ::cl::Kernel pack_;
  ::cl::Event sent_;                   // the read of the packed values
  ::cl::Event written_;                // the write of the last ghosts (recv_host_ is free after it)
  bool started_ = false;               // packed, not posted
  std::vector<MPI_Request> requests_;  // posted, not waited for
  HaloTimes times_;
};

// The longest run of whole chunks of rows of `m` (CSR arrays on the device) in which no row
// reads a ghost (a column from `owned` on): the rows a pass computes while the halo's exchange
// runs (solver::rows_around). Empty where every chunk reads one.
inline constexpr std::size_t interior_chunk_rows = 256;
solver::RowRange rows_reading_no_ghost(const cl::Env& env, const solver::DeviceCsrMatrix& m, std::int64_t owned);

}  // namespace clcg::distributed
