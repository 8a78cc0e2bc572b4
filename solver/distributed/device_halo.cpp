#include "clcg/solver/distributed/device_halo.hpp"

#include <algorithm>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/wall_clock.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::distributed {

DeviceHalo::DeviceHalo(MPI_Comm comm, const cl::Env& env, const Halo& halo, std::int64_t owned,
                       solver::ElementType type)
    : comm_(comm),
      env_(env),
      type_(type),
      element_(reduction::element_size(type)),
      owned_(owned),
      ghosts_(halo.ghosts),
      send_counts_total_(halo.send_rows.size()),
      neighbours_(halo.neighbours()),
      send_counts_(halo.send_counts),
      send_offsets_(halo.send_offsets),
      recv_counts_(halo.recv_counts),
      recv_offsets_(halo.recv_offsets) {
  cl::checked("setting up a halo exchange", [&] {
    pack_ = env_.kernel("halo.cl", "pack", solver::real_build_options(type_));
    send_index_ = ::cl::Buffer(env_.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(1, halo.send_rows.size() * 4));
    if (!halo.send_rows.empty())
      env_.queue().enqueueWriteBuffer(send_index_, CL_TRUE, 0, halo.send_rows.size() * 4, halo.send_rows.data());
    send_buffer_ = solver::make_vector(env_, type_, std::max<std::size_t>(1, send_counts_total_));
  });
  // (none where nothing travels: one rank's halos, a level's on a rank with no neighbours)
  if (send_counts_total_ > 0) send_host_ = cl::PinnedBuffer(env_, send_counts_total_ * element_);
  if (ghosts_ > 0) recv_host_ = cl::PinnedBuffer(env_, std::size_t(ghosts_) * element_);
}

void DeviceHalo::start(const ::cl::Buffer& x) {
  if (!any()) return;
  if (send_counts_total_ > 0) {
    pack_.setArg(0, cl_uint(send_counts_total_));
    pack_.setArg(1, send_index_);
    pack_.setArg(2, x);
    pack_.setArg(3, send_buffer_);
    solver::enqueue_grid_stride(env_, pack_, "pack", send_counts_total_, solver::vector_ops_group);
    env_.queue().enqueueReadBuffer(send_buffer_, CL_FALSE, 0, send_counts_total_ * element_, send_host_.data(),
                                   nullptr, &sent_);
  }
  started_ = true;
}

void DeviceHalo::post() {
  if (!started_) return;
  started_ = false;
  const auto start = Clock::now();
  env_.queue().flush();
  if (send_counts_total_ > 0) sent_.wait();
  if (written_()) written_.wait();  // the last ghosts are on the device before MPI writes the next
  const MPI_Datatype datatype = type_ == solver::ElementType::f64 ? MPI_DOUBLE : MPI_FLOAT;
  for (int rank : neighbours_) {
    const std::size_t r = std::size_t(rank);
    if (recv_counts_[r] > 0) {
      requests_.emplace_back();
      MPI_Irecv(recv_host_.data() + std::size_t(recv_offsets_[r]) * element_, recv_counts_[r], datatype, rank, 0,
                comm_, &requests_.back());
    }
    if (send_counts_[r] > 0) {
      requests_.emplace_back();
      MPI_Isend(send_host_.data() + std::size_t(send_offsets_[r]) * element_, send_counts_[r], datatype, rank, 0,
                comm_, &requests_.back());
    }
  }
  times_.seconds += since(start);
}

void DeviceHalo::finish(::cl::Buffer& x) {
  post();
  if (requests_.empty()) return;
  const auto start = Clock::now();
  MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  if (ghosts_ > 0)
    env_.queue().enqueueWriteBuffer(x, CL_FALSE, std::size_t(owned_) * element_, std::size_t(ghosts_) * element_,
                                    recv_host_.data(), nullptr, &written_);
  times_.seconds += since(start);
  times_.exchanges += 1;
  times_.bytes += std::uint64_t(send_counts_total_ + std::size_t(ghosts_)) * element_;
}

solver::RowRange rows_reading_no_ghost(const cl::Env& env, const solver::DeviceCsrMatrix& m, std::int64_t owned) {
  const std::size_t rows = std::size_t(m.rows()), chunks = (rows + interior_chunk_rows - 1) / interior_chunk_rows;
  if (chunks == 0) return {};
  std::vector<std::uint8_t> flags(chunks);
  cl::checked("finding the rows that read no ghost", [&] {
    ::cl::Buffer device_flags(env.context(), CL_MEM_READ_WRITE, chunks);
    env.queue().enqueueFillBuffer(device_flags, cl_uchar(0), 0, chunks);
    ::cl::Kernel kernel = env.kernel("halo.cl", "ghost_chunks", solver::real_build_options(m.type()));
    kernel.setArg(0, cl_uint(rows));
    kernel.setArg(1, cl_int(owned));
    kernel.setArg(2, cl_uint(interior_chunk_rows));
    kernel.setArg(3, m.row_ptr());
    kernel.setArg(4, m.col_idx());
    kernel.setArg(5, device_flags);
    solver::enqueue_grid_stride(env, kernel, "ghost_chunks", rows, solver::vector_ops_group);
    env.queue().enqueueReadBuffer(device_flags, CL_TRUE, 0, chunks, flags.data());
  });
  std::size_t best = 0, best_length = 0;
  for (std::size_t c = 0; c < chunks;) {
    std::size_t end = c;
    while (end < chunks && flags[end] == 0) ++end;
    if (end - c > best_length) best = c, best_length = end - c;
    c = end + 1;
  }
  return {std::min(rows, best * interior_chunk_rows), std::min(rows, (best + best_length) * interior_chunk_rows)};
}

}  // namespace clcg::distributed
