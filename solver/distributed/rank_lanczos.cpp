// RankSetup's Lanczos estimate of rho(D^-1 A) over the ranks (rank_setup.hpp).
#include "rank_setup_members.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/fixed_order_sum.hpp"
#include "clcg/solver/precond/spectrum.hpp"
#include "clcg/solver/sparse/conversion.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

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

RankSetup::LanczosKernels::LanczosKernels(const cl::Env& env, solver::ElementType type) : run(env, type) {
  const std::string options = solver::real_build_options(type);
  const auto kernel = [&](const char* name) { return env.kernel("distributed_setup.cl", name, options); };
  chunk_dots = kernel("chunk_dots");
  chunk_norms = kernel("chunk_norms");
  start = kernel("lanczos_start");
  step = kernel("lanczos_step");
  divided = kernel("divided");
}

RankSetup::LanczosKernels& RankSetup::lanczos_kernels(solver::ElementType type) {
  std::optional<LanczosKernels>& kernels = type == solver::ElementType::f64 ? lanczos_f64_ : lanczos_f32_;
  if (!kernels) kernels.emplace(env_, type);
  return *kernels;
}

double RankSetup::radius(const Rows& a, const ::cl::Buffer& diagonal,
                            const std::vector<std::int64_t>& chunk_begin, unsigned steps, solver::ElementType type) {
  const std::size_t n = std::size_t(a.matrix.rows()), chunks = chunk_begin.size() - 1;
  if (chunk_begin.empty() || chunk_begin.front() != 0 || chunk_begin.back() != std::int64_t(n))
    throw std::logic_error("RankSetup::radius: the chunks must cover the rank's rows (lanczos_step makes u over them)");
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  std::vector<int> chunk_counts(static_cast<std::size_t>(ranks));
  const int mine = int(chunks);
  MPI_Allgather(&mine, 1, MPI_INT, chunk_counts.data(), 1, MPI_INT, comm_);
  std::vector<double> partial(chunks), all(std::size_t(offsets_of(chunk_counts).back() + chunk_counts.back()));
  std::vector<float> partial_f32(type == solver::ElementType::f32 ? chunks : 0);
  const std::size_t element = reduction::element_size(type);
  LanczosKernels& k = *shared([&] { return &lanczos_kernels(type); });  // (compiled the first time)
  struct Vectors {
    solver::DeviceCsrMatrix a;
    ::cl::Buffer v, v_prev, u, av, d, begin, partial;
  };
  // A and D in `type`, the vectors, the chunks and the start (kernels/distributed_setup.cl's
  // lanczos_start) on the device.
  Vectors b = shared([&] {
    Vectors m;
    const auto vector = [&](std::size_t count) { return solver::make_vector(env_, type, std::max<std::size_t>(1, count)); };
    m.a = solver::with_value_type(env_, a.matrix, type);
    m.d = diagonal;
    if (type != solver::ElementType::f64) {
      m.d = vector(n);
      if (n > 0) solver::Conversion(env_, solver::ElementType::f64, type).enqueue(n, diagonal, m.d);
    }
    m.v = vector(n + std::size_t(a.halo.ghosts));
    m.v_prev = vector(n + std::size_t(a.halo.ghosts));  // (swapped with v)
    m.u = vector(n + std::size_t(a.halo.ghosts));  // (u's ghosts: v's, below)
    m.av = vector(n);
    m.partial = vector(chunks);
    m.begin = env_.buffer(CL_MEM_READ_ONLY, chunk_begin.size() * sizeof(std::int64_t), "allocating the dot chunks");
    write_bytes(env_, m.begin, 0, chunk_begin.size() * sizeof(std::int64_t), chunk_begin.data());
    if (n > 0) k.run.run(k.start, "lanczos_start", n, cl_uint(std::uint64_t(a.row_begin)), m.v);
    k.run.clear_bytes(m.v_prev, std::max<std::size_t>(1, n) * element);
    return m;
  });
  DeviceHalo halo = shared([&] { return DeviceHalo(comm_, env_, a.halo, std::int64_t(n), type); });
  // A v: vector CSR, a work-item for about eight entries of a row (solver::spmv_vector_size: 2 for
  // level 0's 7 of 3D Poisson, 8 for level 1's 34). A work-item a row read a level of long rows
  // at about a quarter of the bandwidth, and level 0's double rows 15% slower than 2 lanes (5.2
  // against 4.4 ms at 512^3 on an H200). The size comes from the global mean, so a row sums in one
  // order on any number of ranks.
  std::int64_t totals[2] = {std::int64_t(n), a.matrix.nnz()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, comm_);
  const double mean = totals[0] > 0 ? double(totals[1]) / double(totals[0]) : 0.0;
  std::optional<solver::Spmv> times = shared([&] {
    return n > 0 ? std::optional<solver::Spmv>(std::in_place, env_, b.a, solver::SpmvKernel::vector,
                                               solver::spmv_vector_size(mean))
                 : std::nullopt;
  });
  const auto run = [&](::cl::Kernel& kernel, const char* name, std::size_t count, const auto&... args) {
    if (count > 0) k.run.run(kernel, name, count, args...);
  };
  // A sum over the level's chunks: a kernel's partials (each chunk in row order on the device),
  // then (sum()) the chunks' sums of every rank in one fixed order on the host, in double; `read`
  // runs once this rank's partials are in.
  const auto partials = [&](::cl::Kernel& kernel, const char* name, const auto&... args) {
    if (chunks > 0)
      k.run.run_groups(kernel, name, std::min<std::size_t>(chunks, max_dot_groups), dot_lanes, chunks, b.begin,
                       args..., b.partial);
  };
  const auto sum = [&](const std::function<void()>& read = {}) {
    if (chunks > 0)
      cl::checked("reading the Lanczos dots", [&] {
        void* to = partial_f32.empty() ? static_cast<void*>(partial.data()) : static_cast<void*>(partial_f32.data());
        env_.queue().enqueueReadBuffer(b.partial, CL_TRUE, 0, chunks * element, to);
      });
    std::copy(partial_f32.begin(), partial_f32.end(), partial.begin());
    if (read) read();
    MPI_Allgatherv(partial.data(), mine, MPI_DOUBLE, all.data(), chunk_counts.data(), offsets_of(chunk_counts).data(),
                   MPI_DOUBLE, comm_);
    return fixed_order_sum(all);
  };
  const auto root = [](double sum) { return std::sqrt(std::max(0.0, sum)); };
  // Lanczos on the pencil (A, D): v D-orthonormal, alpha = v.Av, the next u = D^-1 A v - alpha v
  // - beta v_prev, made with its D-norm's partials in one pass (lanczos_step).
  partials(k.chunk_norms, "chunk_norms", b.d, b.v);
  double beta = root(sum());
  if (!(beta > 0) || !std::isfinite(beta)) return 0.0;
  run(k.divided, "divided", n, b.v, solver::Real{beta}, b.v);
  halo.exchange(b.v);
  std::vector<double> alphas, betas;
  beta = 0;
  for (unsigned step = 0; step < steps; ++step) {
    if (times) times->enqueue(b.v, b.av);
    partials(k.chunk_dots, "chunk_dots", b.v, b.av);
    const double alpha = sum();
    alphas.push_back(alpha);
    partials(k.step, "lanczos_step", b.av, b.d, b.v, b.v_prev, solver::Real{alpha}, solver::Real{beta}, b.u);
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
    run(k.divided, "divided", n + std::size_t(a.halo.ghosts), b.u, solver::Real{next}, b.v);
  }
  return solver::largest_tridiagonal_eigenvalue(alphas, betas);
}
}  // namespace clcg::distributed
