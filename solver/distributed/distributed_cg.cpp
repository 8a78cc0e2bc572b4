#include "clcg/solver/distributed/distributed_cg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/launch.hpp"

namespace clcg::distributed {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr std::size_t upload_piece = std::size_t(1) << 30;  // bytes per write: large arrays go in pieces

// A device buffer holding `values` (64-bit ints, 32-bit ints or reals as `type`), written in pieces.
template <class T>
void write_pieces(const cl::Env& env, const ::cl::Buffer& buffer, const T* data, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  for (std::size_t at = 0; at < bytes; at += upload_piece)
    env.queue().enqueueWriteBuffer(buffer, CL_TRUE, at, std::min(upload_piece, bytes - at),
                                   reinterpret_cast<const unsigned char*>(data) + at);
}

template <class T>
::cl::Buffer device_array(const cl::Env& env, const std::vector<T>& values, const char* what) {
  return cl::checked(std::string("uploading ") + what, [&] {
    ::cl::Buffer buffer(env.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(1, values.size() * sizeof(T)));
    write_pieces(env, buffer, values.data(), values.size());
    return buffer;
  });
}

::cl::Buffer device_reals(const cl::Env& env, const std::vector<double>& values, ElementType type, const char* what) {
  if (type == ElementType::f64) return device_array(env, values, what);
  const std::vector<float> narrow(values.begin(), values.end());
  return device_array(env, narrow, what);
}

MPI_Datatype mpi_type(ElementType type) { return type == ElementType::f64 ? MPI_DOUBLE : MPI_FLOAT; }

}  // namespace

DistributedCg::DistributedCg(MPI_Comm comm, const cl::Env& env, const Partition& partition, LocalRows rows,
                             ElementType type, const solver::Settings& settings)
    : comm_(comm), env_(env), type_(type), settings_(settings) {
  const auto start = Clock::now();
  std::vector<double> diagonal;
  std::vector<std::int32_t> local_col;
  throw_if_any_rank_failed(comm_, capture([&] {
    using solver::CgVariant;
    using solver::Preconditioner;
    if (settings_.variant != CgVariant::fused && settings_.variant != CgVariant::single)
      throw std::invalid_argument("the distributed solver runs the fused and single variants");
    if (settings_.preconditioner != Preconditioner::none && settings_.preconditioner != Preconditioner::jacobi)
      throw std::invalid_argument("the distributed solver applies no preconditioner or Jacobi");
    solver::require_precision(env_.info(), type_);
    rows_ = rows.rows();
    global_rows_ = partition.rows();
    nnz_ = rows.nnz();
    chunk_ = partition.chunk;
    element_ = reduction::element_size(type_);
    diagonal = rows.diagonal();  // before build_halo frees the global columns
  }));
  halo_ = build_halo(comm_, partition, rows, local_col);
  neighbours_ = halo_.neighbours();
  // Device work, local to this rank; all ranks leave together if one fails.
  throw_if_any_rank_failed(comm_, capture([&] { upload(rows, diagonal, local_col); }));
  setup_seconds_ = since(start);
}

void DistributedCg::upload(LocalRows& rows, const std::vector<double>& diagonal, std::vector<std::int32_t>& local_col) {
  using solver::Preconditioner;
  ops_.emplace(env_, type_);
  const std::uint64_t n = std::uint64_t(rows_), extended = n + std::uint64_t(halo_.ghosts), nnz = std::uint64_t(nnz_);
  const std::uint64_t groups = (n + std::uint64_t(chunk_) - 1) / std::uint64_t(chunk_);
  device_bytes_ = 8 * (n + 1) + nnz * (4 + element_) + 4 * n + 8 * std::uint64_t(halo_.send_count()) +
                  element_ * (4 * extended + 4 * n + 3 * groups + std::uint64_t(halo_.send_count()));
  solver::check_device_memory(env_.info(), device_bytes_, std::max({8 * (n + 1), nnz * 4, nnz * element_}),
                              "distributed CG (this rank's rows)");

  const std::string options = solver::real_build_options(type_);
  dot_wg_ = std::size_t(std::min<std::int64_t>(256, chunk_));
  const std::string dot_options = options + " -D CHUNK=" + std::to_string(chunk_) + " -D DOT_WG=" + std::to_string(dot_wg_);
  spmv_kernel_ = env_.kernel("distributed.cl", "spmv_row_list", dot_options);
  pack_kernel_ = env_.kernel("distributed.cl", "pack", dot_options);
  dots_kernel_ = env_.kernel("distributed.cl", "chunk_dots", dot_options);

  row_ptr_ = device_array(env_, rows.row_ptr, "the row offsets");
  std::vector<std::int64_t>().swap(rows.row_ptr);
  col_ = device_array(env_, local_col, "the column indices");
  std::vector<std::int32_t>().swap(local_col);
  values_ = device_reals(env_, rows.values, type_, "the matrix values");
  std::vector<double>().swap(rows.values);
  interior_ = device_array(env_, halo_.interior_rows, "the interior rows");
  boundary_ = device_array(env_, halo_.boundary_rows, "the boundary rows");
  send_index_ = device_array(env_, halo_.send_rows, "the halo's send list");
  if (settings_.preconditioner == Preconditioner::jacobi) {
    std::vector<double> inverse(diagonal.size());
    for (std::size_t i = 0; i < inverse.size(); ++i) inverse[i] = 1.0 / diagonal[i];  // 0 -> Inf: breakdown shows
    inv_diag_ = device_reals(env_, inverse, type_, "the inverse diagonal");
  }
  const auto vector = [&](std::uint64_t count) { return solver::make_vector(env_, type_, std::size_t(count)); };
  x_ = vector(extended);
  r_ = vector(extended);
  p_ = vector(extended);
  z_ = settings_.preconditioner == Preconditioner::jacobi ? vector(extended) : r_;  // none: z is r
  q_ = vector(n);
  s_ = vector(n);
  b_ = vector(n);
  partials_ = vector(3 * std::max<std::uint64_t>(groups, 1));
  send_buffer_ = vector(std::uint64_t(halo_.send_count()));
  send_host_ = cl::PinnedBuffer(env_, std::max<std::size_t>(1, std::size_t(halo_.send_count()) * element_));
  recv_host_ = cl::PinnedBuffer(env_, std::max<std::size_t>(1, std::size_t(halo_.ghosts) * element_));
  partials_host_ = cl::PinnedBuffer(env_, std::size_t(3 * std::max<std::uint64_t>(groups, 1)) * element_);
  cl::checked("finishing the upload", [&] { env_.queue().finish(); });
}

std::uint64_t DistributedCg::bytes_per_step() const noexcept {
  // SpMV: row offsets (8 B) and the row lists (4 B) per row, column and value per nonzero, x
  // read once and y written. Vector passes (e = element bytes), counted kernel by kernel:
  // fused: p.q 2, x/r/z update 8, r.z and r.r 2, p = z + beta p 3: 15 n e; single: three dots
  // 3, p and s updates 6, x and r updates 6, z = D r 3: 18 n e.
  const std::uint64_t n = std::uint64_t(rows_), nnz = std::uint64_t(nnz_), e = element_;
  const std::uint64_t passes = settings_.variant == solver::CgVariant::single ? 18 : 15;
  return 12 * n + nnz * (4 + e) + 2 * n * e + passes * n * e;
}

void DistributedCg::launch_rows(const std::vector<std::uint32_t>& list, const ::cl::Buffer& rows, const ::cl::Buffer& x,
                                ::cl::Buffer& y) {
  if (list.empty()) return;
  spmv_kernel_.setArg(0, cl_uint(list.size()));
  spmv_kernel_.setArg(1, rows);
  spmv_kernel_.setArg(2, row_ptr_);
  spmv_kernel_.setArg(3, col_);
  spmv_kernel_.setArg(4, values_);
  spmv_kernel_.setArg(5, x);
  spmv_kernel_.setArg(6, y);
  solver::enqueue_grid_stride(env_, spmv_kernel_, "spmv_row_list", list.size(), solver::spmv_group);
}

void DistributedCg::spmv(const ::cl::Buffer& x, ::cl::Buffer& y) {
  const bool exchange = !neighbours_.empty();
  ::cl::Event sent;
  if (exchange && halo_.send_count() > 0) {
    pack_kernel_.setArg(0, cl_uint(halo_.send_count()));
    pack_kernel_.setArg(1, send_index_);
    pack_kernel_.setArg(2, x);
    pack_kernel_.setArg(3, send_buffer_);
    solver::enqueue_grid_stride(env_, pack_kernel_, "pack", std::size_t(halo_.send_count()), solver::vector_ops_group);
    env_.queue().enqueueReadBuffer(send_buffer_, CL_FALSE, 0, std::size_t(halo_.send_count()) * element_,
                                   send_host_.data(), nullptr, &sent);
  }
  launch_rows(halo_.interior_rows, interior_, x, y);  // runs while the ghosts travel
  env_.queue().flush();
  if (!exchange) return;
  const auto start = Clock::now();
  if (halo_.send_count() > 0) sent.wait();
  std::vector<MPI_Request> requests;
  const MPI_Datatype datatype = mpi_type(type_);
  for (int rank : neighbours_) {
    const std::size_t r = std::size_t(rank);
    if (halo_.recv_counts[r] > 0) {
      requests.emplace_back();
      MPI_Irecv(recv_host_.data() + std::size_t(halo_.recv_offsets[r]) * element_, halo_.recv_counts[r], datatype, rank,
                0, comm_, &requests.back());
    }
    if (halo_.send_counts[r] > 0) {
      requests.emplace_back();
      MPI_Isend(send_host_.data() + std::size_t(halo_.send_offsets[r]) * element_, halo_.send_counts[r], datatype, rank,
                0, comm_, &requests.back());
    }
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (halo_.ghosts > 0)
    env_.queue().enqueueWriteBuffer(x, CL_FALSE, std::size_t(rows_) * element_, std::size_t(halo_.ghosts) * element_,
                                    recv_host_.data());
  launch_rows(halo_.boundary_rows, boundary_, x, y);
  times_.halo += since(start);
  times_.exchanges += 1;
  times_.halo_bytes += std::uint64_t(halo_.send_count() + halo_.ghosts) * element_;
}

std::vector<double> DistributedCg::dots(const std::vector<std::pair<const ::cl::Buffer*, const ::cl::Buffer*>>& pairs,
                                        bool* stop) {
  const std::size_t count = pairs.size();
  const std::size_t groups = std::size_t((rows_ + chunk_ - 1) / chunk_);
  const auto waited = Clock::now();
  if (groups > 0) {
    dots_kernel_.setArg(0, cl_ulong(rows_));
    dots_kernel_.setArg(1, cl_uint(count));
    for (std::size_t d = 0; d < 3; ++d) {
      const auto& pair = pairs[std::min(d, count - 1)];
      dots_kernel_.setArg(cl_uint(2 + 2 * d), *pair.first);
      dots_kernel_.setArg(cl_uint(3 + 2 * d), *pair.second);
    }
    dots_kernel_.setArg(8, partials_);
    solver::enqueue_groups(env_, dots_kernel_, "chunk_dots", groups, dot_wg_);
    env_.queue().enqueueReadBuffer(partials_, CL_TRUE, 0, count * groups * element_, partials_host_.data());
  }
  times_.partials += since(waited);
  std::vector<std::int64_t> slots(count * ExactSum::slots + 1, 0);
  for (std::size_t d = 0; d < count; ++d) {
    ExactSum sum;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t at = d * groups + g;
      sum.add(type_ == ElementType::f64 ? reinterpret_cast<const double*>(partials_host_.data())[at]
                                        : double(reinterpret_cast<const float*>(partials_host_.data())[at]));
    }
    std::copy(sum.raw().begin(), sum.raw().end(), slots.begin() + std::ptrdiff_t(d * ExactSum::slots));
  }
  slots.back() = stop && settings_.should_stop && settings_.should_stop() ? 1 : 0;
  const auto reduced = Clock::now();
  MPI_Allreduce(MPI_IN_PLACE, slots.data(), int(slots.size()), MPI_INT64_T, MPI_SUM, comm_);
  times_.allreduce += since(reduced);
  times_.allreduces += 1;
  if (stop) *stop = slots.back() > 0;
  std::vector<double> out(count);
  for (std::size_t d = 0; d < count; ++d) {
    ExactSum sum;
    std::copy(slots.begin() + std::ptrdiff_t(d * ExactSum::slots), slots.begin() + std::ptrdiff_t((d + 1) * ExactSum::slots),
              sum.raw().begin());
    out[d] = sum.value();
  }
  return out;
}

void DistributedCg::precondition(const ::cl::Buffer& r, ::cl::Buffer& z) {
  if (settings_.preconditioner == solver::Preconditioner::jacobi) ops_->diag_mul(std::size_t(rows_), inv_diag_, r, z);
}

solver::SolveInfo DistributedCg::solve(const std::vector<double>& b, std::vector<double>& x, bool use_guess) {
  using solver::Status;
  if (b.size() != std::size_t(rows_) || (use_guess && x.size() != std::size_t(rows_)))
    throw std::invalid_argument("b and x must hold this rank's " + std::to_string(rows_) + " rows");
  const auto start = Clock::now();
  times_ = {};
  const std::size_t n = std::size_t(rows_);
  const bool jacobi = settings_.preconditioner == solver::Preconditioner::jacobi;
  const std::size_t limit = settings_.iteration_limit(std::size_t(global_rows_));  // the same on every rank
  solver::SolveInfo info;
  const auto finish = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
  };
  cl::checked("the distributed solve", [&] {
    if (n) {
      solver::upload_vector(env_, b, type_, b_);
      if (use_guess) solver::upload_vector(env_, x, type_, x_);
      else ops_->fill(n, 0.0, x_);
    }
    // r = b - A x
    if (use_guess) {
      spmv(x_, q_);
      ops_->axpby_to(n, 1.0, b_, -1.0, q_, r_);
    } else {
      ops_->copy(n, b_, r_);
    }
    const double norm_b = std::sqrt(dots({{&b_, &b_}})[0]);
    if (!std::isfinite(norm_b)) return finish(Status::non_finite, "b holds NaN or Inf");
    if (norm_b == 0) {
      ops_->fill(n, 0.0, x_);
      return finish(Status::converged, "b = 0: x = 0");
    }
    precondition(r_, z_);
    const bool single = settings_.variant == solver::CgVariant::single;
    double rz = 0, rr = 0, alpha = 0, beta = 0, previous_alpha = 0, previous_rz = 0;
    if (single) spmv(z_, q_);  // w = A z
    else {
      const auto first = dots({{&r_, &z_}, {&r_, &r_}});
      rz = first[0];
      rr = first[1];
      if (rz < 0) return finish(Status::breakdown, "breakdown at iteration 0: r^T z < 0, M is not positive definite");
      ops_->copy(n, z_, p_);
    }
    for (std::size_t k = 0;; ++k) {
      bool stop = false;
      double pq = 0;
      if (single) {
        const auto d = dots({{&r_, &z_}, {&q_, &z_}, {&r_, &r_}}, &stop);
        rz = d[0];
        pq = d[1];  // w.z
        rr = d[2];
      }
      info.iterations = k;
      info.recursive_residual = std::sqrt(rr) / norm_b;
      if (settings_.record_history && k > 0)
        info.history.push_back({k, info.recursive_residual, alpha, beta, since(start)});
      if (settings_.on_iteration && k > 0) settings_.on_iteration(k, info.recursive_residual);
      if (!std::isfinite(info.recursive_residual) || !std::isfinite(rz))
        return finish(Status::non_finite, "NaN or Inf in the residual at iteration " + std::to_string(k));
      if (info.recursive_residual <= settings_.tolerance)
        return finish(Status::converged, "converged in " + std::to_string(k) + " iterations");
      if (k >= limit) return finish(Status::max_iterations, "not converged in " + std::to_string(k) + " iterations");
      if (stop) return finish(Status::interrupted, "interrupted at iteration " + std::to_string(k));
      if (single) {
        beta = k == 0 ? 0.0 : rz / previous_rz;
        const double denominator = k == 0 ? pq : pq - beta * rz / previous_alpha;
        alpha = rz / denominator;
        if (!(rz > 0) || !(denominator > 0))
          return finish(Status::breakdown, "breakdown at iteration " + std::to_string(k) +
                                               ": A (or M) is not positive definite");
        if (k == 0) {
          ops_->copy(n, z_, p_);
          ops_->copy(n, q_, s_);
        } else {
          ops_->xpay(n, beta, z_, p_);  // p = z + beta p
          ops_->xpay(n, beta, q_, s_);  // s = w + beta s
        }
        ops_->axpy(n, alpha, p_, x_);
        ops_->axpy(n, -alpha, s_, r_);
        precondition(r_, z_);
        spmv(z_, q_);
        previous_rz = rz;
        previous_alpha = alpha;
      } else {
        spmv(p_, q_);
        pq = dots({{&p_, &q_}}, &stop)[0];
        if (stop) return finish(Status::interrupted, "interrupted at iteration " + std::to_string(k));
        if (!(pq > 0))
          return finish(std::isfinite(pq) ? Status::breakdown : Status::non_finite,
                        "breakdown at iteration " + std::to_string(k) + ": p^T A p = " + std::to_string(pq) +
                            ", A is not positive definite");
        alpha = rz / pq;
        if (jacobi) ops_->cg_update_xrz(n, alpha, p_, q_, inv_diag_, x_, r_, z_);
        else ops_->cg_update_xr(n, alpha, p_, q_, x_, r_);
        const auto d = dots({{&r_, &z_}, {&r_, &r_}});
        if (d[0] < 0)
          return finish(Status::breakdown, "breakdown at iteration " + std::to_string(k + 1) +
                                               ": r^T z < 0, the preconditioner is not positive definite");
        beta = d[0] / rz;
        rz = d[0];
        rr = d[1];
        ops_->xpay(n, beta, z_, p_);
      }
    }
  });
  cl::checked("the true residual", [&] {
    spmv(x_, q_);
    ops_->axpby_to(n, 1.0, b_, -1.0, q_, q_);  // q = b - A x
    const auto d = dots({{&q_, &q_}, {&b_, &b_}});
    info.true_residual = d[1] > 0 ? std::sqrt(d[0] / d[1]) : 0.0;
    x = n ? solver::download_vector(env_, x_, type_, n) : std::vector<double>{};
  });
  info.seconds = since(start);
  return info;
}

}  // namespace clcg::distributed
