// RankSetup's Lanczos estimate of rho(D^-1 A) over the ranks (rank_setup.hpp).
#include "rank_setup_members.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/fixed_order_sum.hpp"
#include "clcg/solver/precond/spectrum.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

namespace {
constexpr std::size_t dot_lanes = 256;        // kernels/distributed_setup.cl's DOT_LANES: a chunk's work-group
constexpr std::size_t max_dot_groups = 4096;  // (a dot has at most that many chunks: partition.hpp's dot_chunk)
}  // namespace

::cl::Buffer RankSetup::diagonal(const Rows& a) {
  return shared([&] {
    const std::size_t n = std::size_t(a.matrix.rows());
    ::cl::Buffer d = doubles(env_, n, "allocating a level's diagonal");
    if (n > 0)
      kernels_->run(row_diagonal_, "row_diagonal", n, a.matrix.row_ptr(), a.matrix.col_idx(), a.matrix.values(), cl_int(0), d);
    return d;
  });
}

double RankSetup::radius(const Rows& a, const ::cl::Buffer& diagonal,
                            const std::vector<std::int64_t>& chunk_begin, unsigned steps) {
  const std::size_t n = std::size_t(a.matrix.rows()), chunks = chunk_begin.size() - 1;
  if (chunk_begin.empty() || chunk_begin.front() != 0 || chunk_begin.back() != std::int64_t(n))
    throw std::logic_error("RankSetup::radius: the chunks must cover the rank's rows (lanczos_step makes u over them)");
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  std::vector<int> chunk_counts(static_cast<std::size_t>(ranks));
  const int mine = int(chunks);
  MPI_Allgather(&mine, 1, MPI_INT, chunk_counts.data(), 1, MPI_INT, comm_);
  std::vector<double> partial(chunks), all(std::size_t(offsets_of(chunk_counts).back() + chunk_counts.back()));
  struct Vectors {
    ::cl::Buffer v, v_prev, u, av, d, begin, partial;
  };
  // The vectors, D, the chunks and the start (kernels/distributed_setup.cl's lanczos_start) on the device.
  Vectors b = shared([&] {
    Vectors m;
    m.v = doubles(env_, n + std::size_t(a.halo.ghosts), "allocating the Lanczos vectors");
    m.v_prev = doubles(env_, n + std::size_t(a.halo.ghosts), "allocating the Lanczos vectors");  // (swapped with v)
    m.u = doubles(env_, n + std::size_t(a.halo.ghosts), "allocating the Lanczos vectors");  // (u's ghosts: v's, below)
    m.av = doubles(env_, n, "allocating the Lanczos vectors");
    m.d = diagonal;
    m.partial = doubles(env_, chunks, "allocating the Lanczos vectors");
    m.begin = env_.buffer(CL_MEM_READ_ONLY, chunk_begin.size() * sizeof(std::int64_t), "allocating the dot chunks");
    write_bytes(env_, m.begin, 0, chunk_begin.size() * sizeof(std::int64_t), chunk_begin.data());
    if (n > 0) kernels_->run(lanczos_start_, "lanczos_start", n, cl_uint(std::uint64_t(a.row_begin)), m.v);
    cl::checked("clearing the Lanczos vectors",
                [&] { env_.queue().enqueueFillBuffer(m.v_prev, 0.0, 0, std::max<std::size_t>(1, n) * sizeof(double)); });
    return m;
  });
  DeviceHalo halo = shared([&] { return DeviceHalo(comm_, env_, a.halo, std::int64_t(n), solver::ElementType::f64); });
  // A v: vector CSR, a work-item for about eight entries of a row (solver::spmv_vector_size: 2 for
  // level 0's 7 of 3D Poisson, 8 for level 1's 34). A work-item a row read a level of long rows
  // at about a quarter of the bandwidth, and level 0's double rows 15% slower than 2 lanes (5.2
  // against 4.4 ms at 512^3 on an H200). The size comes from the global mean, so a row sums in one
  // order on any number of ranks.
  std::int64_t totals[2] = {std::int64_t(n), a.matrix.nnz()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, comm_);
  const double mean = totals[0] > 0 ? double(totals[1]) / double(totals[0]) : 0.0;
  std::optional<solver::Spmv> times = shared([&] {
    return n > 0 ? std::optional<solver::Spmv>(std::in_place, env_, a.matrix, solver::SpmvKernel::vector,
                                               solver::spmv_vector_size(mean))
                 : std::nullopt;
  });
  const auto run = [&](::cl::Kernel& kernel, const char* name, std::size_t count, const auto&... args) {
    if (count > 0) kernels_->run(kernel, name, count, args...);
  };
  // A sum over the level's chunks: a kernel's partials (each chunk in row order on the device),
  // then (sum()) the chunks' sums of every rank in one fixed order on the host; `read` runs
  // once this rank's partials are in.
  const auto partials = [&](::cl::Kernel& kernel, const char* name, const auto&... args) {
    if (chunks > 0)
      kernels_->run_groups(kernel, name, std::min<std::size_t>(chunks, max_dot_groups), dot_lanes, chunks, b.begin,
                           args..., b.partial);
  };
  const auto sum = [&](const std::function<void()>& read = {}) {
    if (chunks > 0)
      cl::checked("reading the Lanczos dots", [&] {
        env_.queue().enqueueReadBuffer(b.partial, CL_TRUE, 0, chunks * sizeof(double), partial.data());
      });
    if (read) read();
    MPI_Allgatherv(partial.data(), mine, MPI_DOUBLE, all.data(), chunk_counts.data(), offsets_of(chunk_counts).data(),
                   MPI_DOUBLE, comm_);
    return fixed_order_sum(all);
  };
  const auto root = [](double sum) { return std::sqrt(std::max(0.0, sum)); };
  // Lanczos on the pencil (A, D): v D-orthonormal, alpha = v.Av, the next u = D^-1 A v - alpha v
  // - beta v_prev, made with its D-norm's partials in one pass (lanczos_step).
  partials(chunk_norms_, "chunk_norms", b.d, b.v);
  double beta = root(sum());
  if (!(beta > 0) || !std::isfinite(beta)) return 0.0;
  run(divided_, "divided", n, b.v, solver::Real{beta}, b.v);
  halo.exchange(b.v);
  std::vector<double> alphas, betas;
  beta = 0;
  for (unsigned step = 0; step < steps; ++step) {
    if (times) times->enqueue(b.v, b.av);
    partials(chunk_dots_, "chunk_dots", b.v, b.av);
    const double alpha = sum();
    alphas.push_back(alpha);
    partials(lanczos_step_, "lanczos_step", b.av, b.d, b.v, b.v_prev, solver::Real{alpha}, solver::Real{beta}, b.u);
    // The values of u other ranks read go with its D-norm: packed before the norm's read (one
    // device wait for both), sent before the ranks gather it. Each rank then divides its ghosts
    // by the norm as their owners divide them: v's ghosts, bit for bit, without a wait of their own.
    const bool last = step + 1 == steps;
    if (!last) halo.start(b.u);
    const double next = root(sum([&] { halo.post(); }));
    if (!last) halo.finish(b.u);
    if (last || !(next > 1e-12 * std::abs(alpha))) break;
    betas.push_back(next);
    beta = next;
    std::swap(b.v_prev, b.v);
    run(divided_, "divided", n + std::size_t(a.halo.ghosts), b.u, solver::Real{next}, b.v);
  }
  return solver::largest_tridiagonal_eigenvalue(alphas, betas);
}
}  // namespace clcg::distributed
