#include "clcg/solver/distributed/distributed_amg.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "clcg/cl/cached_kernel.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/amg_hierarchy.hpp"
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/halo.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"
#include "clcg/solver/distributed/wall_clock.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/multigrid/amg.hpp"
#include "clcg/solver/precond/chebyshev.hpp"
#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"

namespace clcg::distributed {

// Outside the anonymous namespace: a field of DistributedAmg::Layouts, whose linkage is external.
struct GlobalSpmvLayout {
  solver::SpmvKernel kernel = solver::SpmvKernel::scalar;
  unsigned vector_size = 0;
};

namespace {

// The row layout every rank reads a level's matrix in (collective): the one-device choice
// (choose_spmv_kernel) on the rows of every rank together, so that it does not depend on the
// partition: ELL or CSR one work-item a row (a row summed in stored order), or CSR with a
// vector of work-items a row, its size from the global mean (lanes, then a tree of that size).
// Every rank sums a row the same way. `longest`: this rank's longest row.
GlobalSpmvLayout row_layout(MPI_Comm comm, const cl::Env& env, std::int64_t longest, std::int64_t nnz, std::int64_t n) {
  std::int64_t global_longest = 0, sums[2] = {nnz, n};
  MPI_Allreduce(&longest, &global_longest, 1, MPI_INT64_T, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, comm);
  const double mean = sums[1] ? double(sums[0]) / double(sums[1]) : 0.0;
  GlobalSpmvLayout layout;
  layout.kernel = solver::choose_spmv_kernel(global_longest, mean, env.info());
  if (layout.kernel == solver::SpmvKernel::vector) layout.vector_size = solver::spmv_vector_size(mean);
  return layout;
}

// A pass of a row kernel (multigrid.cl) over `rows` in `layout`: its matrix arguments, then `buffers`.
void row_pass(const solver::RowLayout& layout, cl::CachedKernel& kernel, const char* name, solver::RowRange rows,
              std::initializer_list<const ::cl::Buffer*> buffers, std::size_t groups_cap) {
  cl_uint arg = 0;
  const std::size_t groups = layout.set_args(kernel, arg, groups_cap, rows);
  for (const ::cl::Buffer* buffer : buffers) kernel.set(arg++, *buffer);
  layout.launch(kernel, name, groups);
}

// The bytes of an SpMV's ELL copy (0 where it reads CSR); e: bytes an element.
std::uint64_t ell_bytes(const solver::Spmv& spmv, std::uint64_t e) {
  return spmv.kernel() == solver::SpmvKernel::ell ? std::uint64_t(spmv.matrix().rows()) * spmv.ell_width() * (4 + e) : 0;
}

}  // namespace

struct DistributedAmg::Layouts {
  GlobalSpmvLayout a, p, r;
};

struct DistributedAmg::Level {
  std::size_t n = 0;
  std::uint64_t shared_bytes = 0;  // the ELL columns the caller holds too (FinestEll)
  solver::DeviceCsrMatrix a, p, r;
  std::optional<solver::Spmv> spmv, spmv_p, spmv_r;
  std::optional<solver::RowLayout> layout, layout_p, layout_r;
  std::optional<DeviceHalo> halo_a, halo_p, halo_r;  // x's ghosts for A, the next level's x's for P, the residual's for R
  solver::RowRange interior_a, interior_p, interior_r;  // each matrix's rows that read no ghost (rows_around)
  std::optional<solver::ChebyshevSmoother> smoother;
  ::cl::Buffer inv_diag, x, b, residual;
  cl::CachedKernel residual_kernel, prolong_kernel, restriction_kernel;
};

struct DistributedAmg::Gathered {
  std::unique_ptr<solver::AmgPreconditioner> amg;  // on the whole level, the same on every rank
  std::vector<int> counts, offsets;              // each rank's rows of the level
  std::vector<double> b;                         // the whole level's right-hand side on the host
  ::cl::Buffer whole_b, whole_x;
  std::uint64_t device_bytes = 0;                // its matrix and hierarchy
};

DistributedAmg::~DistributedAmg() = default;

DistributedAmg::DistributedAmg(MPI_Comm comm, const cl::Env& env, const Partition& partition, const LocalRows& a,
                               solver::ElementType solve, solver::ElementType type, const solver::AmgOptions& options,
                               const FinestRows& finest)
    : comm_(comm), env_(env), solve_(solve), type_(type), partition_(partition), options_(options) {
  build(a, {}, finest);
}

void DistributedAmg::update_values(const LocalRows& a, const FinestRows& finest) {
  // The old levels go first, their device memory with them (the new hierarchy is built on the
  // devices before set_up replaces them).
  levels_.clear();
  build(a, std::move(aggregates_), finest);
}

void DistributedAmg::build(const LocalRows& a, std::vector<RankSetup::Aggregates> kept, const FinestRows& finest) {
  const auto start = Clock::now();
  const double built_before = env_.programs().build_seconds();
  set_up(build_hierarchy(comm_, env_, partition_, a, options_, std::move(kept), type_), finest);
  // (A's first upload is not set-up, DistributedHierarchy::upload_seconds, nor the CG's rows made from it)
  const double wall = since(start) - (env_.programs().build_seconds() - built_before) - upload_seconds_;
  phases_.emplace_back("the rest (the set-up's pinned staging made and freed, its buffers freed)",
                       std::max(0.0, wall - setup_seconds()));
}

void DistributedAmg::set_up(DistributedHierarchy h, const FinestRows& finest) {
  const MPI_Comm comm = comm_;
  const cl::Env& env = env_;
  // (An update's state from before goes; the gathered level's one-device AMG stays for its own
  // update: upload_levels.)
  levels_.clear();
  level_rows_.clear();
  level_nnz_.clear();
  narrow_.reset();
  widen_.reset();
  aggregates_ = std::move(h.aggregates);
  phases_ = {{"strength, aggregates, prolongators (devices)", h.coarsening_seconds},
             {"Lanczos estimates (devices; A again where it left them)", h.lanczos_seconds},
             {"R = P^T and Galerkin products (devices; rows moved by the hosts)", h.galerkin_seconds},
             {"the last level gathered onto every rank (hosts)", h.gather_seconds}};
  const auto start = Clock::now();
  const double built_before = env.programs().build_seconds();
  const std::size_t last = h.levels.size() - 1;
  // Collective: every level's layouts (its A, P and R are on the device already).
  std::vector<Layouts> layouts(last + 1);
  const auto layout_of = [&](const solver::DeviceCsrMatrix& m) {
    return row_layout(comm, env, m.max_row_length(), m.nnz(), m.rows());
  };
  for (std::size_t l = 0; l <= last; ++l) {
    DistributedLevel& source = h.levels[l];
    level_rows_.push_back(source.partition.rows());
    std::int64_t nnz = source.a_here ? source.a_here->matrix.nnz() : source.rows().nnz(), total = 0;
    MPI_Allreduce(&nnz, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    level_nnz_.push_back(total);
    if (!(l == last && h.gathered)) layouts[l].a = layout_of(source.a_here->matrix);
    if (l < last) layouts[l].p = layout_of(source.p_here->matrix), layouts[l].r = layout_of(source.r_here->matrix);
  }
  // On this rank's device alone; where it fails (memory), every rank leaves together.
  double cg_rows_seconds = 0;
  throw_if_any_rank_failed(comm, capture([&] {
    try {
      cg_rows_seconds = upload_levels(h, layouts, finest);
    } catch (const cl::Error& e) {
      solver::rethrow_allocation_failure(e, env.info(), "the AMG levels of this rank",
                                         "more ranks hold less each; --precond chebyshev or jacobi need no hierarchy");
    }
  }));
  const double levels_built = env.programs().build_seconds() - built_before;  // OpenCL programs compiled: not set-up
  build_seconds_ = h.build_seconds + levels_built;
  phases_.emplace_back("levels on the device",
                       std::max(0.0, since(start) - levels_built - cg_rows_seconds));
  upload_seconds_ = h.upload_seconds + cg_rows_seconds;
}

::cl::Buffer DistributedAmg::ell_values(const FinestEll& ell, std::size_t rows) const {
  const std::size_t slots = rows * ell.width;
  ::cl::Buffer values = solver::make_vector(env_, type_, std::max<std::size_t>(1, slots));
  if (slots == 0) return values;
  if (ell.type == type_)
    cl::checked("copying the finest level's ELL values",
                [&] { env_.queue().enqueueCopyBuffer(ell.values, values, 0, 0, slots * reduction::element_size(type_)); });
  else
    solver::Conversion(env_, ell.type, type_).enqueue(slots, ell.values, values);
  return values;
}

double DistributedAmg::upload_levels(DistributedHierarchy& h, const std::vector<Layouts>& layouts,
                                     const FinestRows& finest) {
  const solver::AmgOptions& options = options_;
  const cl::Env& env = env_;
  const solver::ElementType type = type_;
  const int rank = comm_rank(comm_);
  const std::size_t last = h.levels.size() - 1;
  double cg_rows_seconds = 0;  // (returned: upload, not set-up)
  // An ELL level's products read its copy alone: the CSR arrays go (a sixth of a rank's device
  // memory at 1024^3 on four GPUs; layouts made after this hold no handle of them).
  const auto read_alone = [](solver::Spmv& spmv, solver::DeviceCsrMatrix& m) {
    if (spmv.kernel() != solver::SpmvKernel::ell) return;
    spmv.release_csr();
    m = m.shape_only();
  };
  // The rows of m that a pass computes while its halo's exchange runs (all where it has none).
  const auto interior = [&](const DeviceHalo& halo, const solver::DeviceCsrMatrix& m, std::int64_t owned) {
    return halo.any() ? rows_reading_no_ghost(env, m, owned) : solver::RowRange{0, std::size_t(m.rows())};
  };
  for (std::size_t l = 0; l <= last; ++l) {
    levels_.push_back(std::make_unique<Level>());
    Level& level = *levels_.back();
    level.n = std::size_t(h.levels[l].partition.size(rank));
    std::int64_t x_ghosts = 0;
    // The set-up's double matrices on the device, in the hierarchy's precision.
    const auto in_type = [&](std::optional<RankSetup::Rows>& rows) {
      solver::DeviceCsrMatrix m = type == solver::ElementType::f64 ? rows->matrix
                                                                    : solver::with_value_type(env, rows->matrix, type);
      rows->matrix = {};  // (its double values freed where converted)
      return m;
    };
    std::optional<RankSetup::Rows>& a = h.levels[l].a_here;
    std::optional<FinestEll> caller_ell;
    if (l == 0 && finest) {  // (the CG's own rows: upload, not set-up, as its copy of A on one device)
      const auto taking = Clock::now();
      const double built_before = env.programs().build_seconds();
      caller_ell = finest(*a);
      cl::checked("making the CG's rows from the set-up's", [&] { env.queue().finish(); });
      cg_rows_seconds = since(taking) - (env.programs().build_seconds() - built_before);
    }
    if (a && !(l == last && h.gathered)) {
      level.halo_a.emplace(comm_, env, a->halo, std::int64_t(level.n), type);
      x_ghosts = a->halo.ghosts;
      level.inv_diag = solver::make_vector(env, type, std::max<std::size_t>(1, level.n));
      level.interior_a = interior(*level.halo_a, a->matrix, std::int64_t(level.n));
      if (caller_ell) {
        // A in the caller's layout (the same rule as layouts' on a GPU, or its --spmv ell): its
        // columns, its values in this precision; the double rows go first.
        level.a = a->matrix.shape_only(type);
        a->matrix = {};
        level.spmv.emplace(env, level.a, caller_ell->columns, ell_values(*caller_ell, std::size_t(level.a.rows())),
                           caller_ell->width);
        level.shared_bytes = std::uint64_t(level.a.rows()) * caller_ell->width * sizeof(cl_int);
        if (level.n) solver::jacobi_inverse_diagonal(env, *level.spmv, level.inv_diag);
      } else {
        level.a = in_type(a);
        level.spmv.emplace(env, level.a, layouts[l].a.kernel, layouts[l].a.vector_size);
        if (level.n) solver::jacobi_inverse_diagonal(env, level.a, level.inv_diag);
        read_alone(*level.spmv, level.a);
      }
      level.layout.emplace(env, *level.spmv);
      const auto [lower, upper] = solver::amg_smoother_interval(h.levels[l].radius, l == last, options);
      level.smoother.emplace(env, *level.spmv, level.inv_diag, lower, upper,
                             l == last ? solver::amg_coarse_chebyshev_degree : options.smoother_degree);
      DeviceHalo* halo = &*level.halo_a;
      level.smoother->set_exchange({[halo](::cl::Buffer& v) { halo->start(v); },
                                    [halo](::cl::Buffer& v) { halo->finish(v); }, level.interior_a});
    }
    if (l < last) {
      std::optional<RankSetup::Rows>& p = h.levels[l].p_here;
      std::optional<RankSetup::Rows>& r = h.levels[l].r_here;
      level.p = in_type(p);
      level.r = in_type(r);
      level.halo_p.emplace(comm_, env, p->halo, h.levels[l + 1].partition.size(rank), type);
      level.halo_r.emplace(comm_, env, r->halo, std::int64_t(level.n), type);
      level.interior_p = interior(*level.halo_p, level.p, h.levels[l + 1].partition.size(rank));
      level.interior_r = interior(*level.halo_r, level.r, std::int64_t(level.n));
      level.spmv_p.emplace(env, level.p, layouts[l].p.kernel, layouts[l].p.vector_size);
      level.spmv_r.emplace(env, level.r, layouts[l].r.kernel, layouts[l].r.vector_size);
      read_alone(*level.spmv_p, level.p);
      read_alone(*level.spmv_r, level.r);
      level.layout_p.emplace(env, *level.spmv_p);
      level.layout_r.emplace(env, *level.spmv_r);
      level.residual = solver::make_vector(env, type, std::max<std::size_t>(1, level.n + std::size_t(r->halo.ghosts)));
      level.residual_kernel = cl::CachedKernel(
          env.kernel("multigrid.cl", level.layout->kernel_name("residual").c_str(), level.layout->build_options()));
      level.prolong_kernel = cl::CachedKernel(env.kernel(
          "multigrid.cl", level.layout_p->kernel_name("prolong_add").c_str(), level.layout_p->build_options()));
      level.restriction_kernel = cl::CachedKernel(env.kernel(
          "multigrid.cl", level.layout_r->kernel_name("restriction").c_str(), level.layout_r->build_options()));
    }
    // x: A's ghosts, and on a coarse level P's (the level above reads it through P).
    const std::int64_t p_ghosts = l > 0 && levels_[l - 1]->halo_p ? levels_[l - 1]->halo_p->ghosts() : 0;
    if (l > 0) {
      level.x = solver::make_vector(env, type, std::max<std::size_t>(1, level.n + std::size_t(std::max(x_ghosts, p_ghosts))));
      level.b = solver::make_vector(env, type, std::max<std::size_t>(1, level.n));
    }
  }
  if (h.gathered) {
    std::unique_ptr<Gathered> before = std::move(gathered_);  // (an update's: its AMG takes the new values)
    gathered_ = std::make_unique<Gathered>();
    Gathered& g = *gathered_;
    const Partition& p = h.levels[last].partition;
    for (int r = 0; r < p.ranks(); ++r) g.counts.push_back(int(p.size(r)));
    g.offsets = offsets_of(g.counts);
    g.b.resize(std::size_t(p.rows()));
    const std::size_t n = std::max<std::size_t>(1, std::size_t(p.rows()));
    g.whole_b = solver::make_vector(env, type, n);
    g.whole_x = solver::make_vector(env, type, n);
    if (p.rows() > 0) {
      const solver::DeviceCsrMatrix whole(env, h.whole, type);
      // The rest of the hierarchy as one device builds it from this level: its nodes, and below
      // the finest level its candidates (the R factors of the level above).
      solver::AmgOptions rest = options;
      rest.block_size = h.block;
      rest.near_nullspace.reset();
      if (!h.whole_candidates.empty())
        rest.near_nullspace = std::make_shared<const solver::NearNullspace>(
            solver::NearNullspace{std::size_t(h.whole.rows), h.vectors, std::move(h.whole_candidates)});
      if (before && before->amg && before->amg->update_values(whole)) g.amg = std::move(before->amg);
      else g.amg = std::make_unique<solver::AmgPreconditioner>(env, whole, rest);
      double over_a = 0;  // the one-device AMG's hierarchy besides its matrix, in the matrix's bytes
      for (const auto& [name, value] : g.amg->report().figures)
        if (name == "hierarchy_bytes_over_a") over_a = value;
      g.device_bytes = std::uint64_t(double(whole.bytes()) * (1 + over_a));
      for (std::size_t rows : g.amg->report().level_rows) level_rows_.push_back(std::int64_t(rows));
      for (std::size_t nnz : g.amg->report().level_nnz) level_nnz_.push_back(std::int64_t(nnz));
      level_rows_.erase(level_rows_.end() - std::ptrdiff_t(g.amg->report().level_rows.size()));  // the gathered level
      level_nnz_.erase(level_nnz_.end() - std::ptrdiff_t(g.amg->report().level_nnz.size()));    // counted once
    }
  }
  if (solve_ != type_) {
    const std::size_t n = levels_.front()->n;
    narrow_.emplace(env, solve_, type_);
    widen_.emplace(env, type_, solve_);
    r_inner_ = solver::make_vector(env, type, std::max<std::size_t>(1, n));
    const std::int64_t ghosts = levels_.front()->halo_a ? levels_.front()->halo_a->ghosts() : 0;
    z_inner_ = solver::make_vector(env, type, std::max<std::size_t>(1, n + std::size_t(ghosts)));
  }
  cl::checked("the distributed AMG's upload", [&] { env_.queue().finish(); });
  return cg_rows_seconds;
}

void DistributedAmg::apply(const ::cl::Buffer& r, ::cl::Buffer& z) {
  if (!narrow_) return cycle(0, r, z);
  const std::size_t n = levels_.front()->n;
  if (n) narrow_->enqueue(n, r, r_inner_);
  cycle(0, r_inner_, z_inner_);
  if (n) widen_->enqueue(n, z_inner_, z);
}

void DistributedAmg::gathered_cycle(Level& level, const ::cl::Buffer& b, ::cl::Buffer& x) {
  Gathered& g = *gathered_;
  const std::vector<double> mine = level.n ? solver::download_vector(env_, b, type_, level.n) : std::vector<double>{};
  const auto start = Clock::now();  // (the finer levels' work is done: b came back)
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_DOUBLE, g.b.data(), g.counts.data(), g.offsets.data(),
                 MPI_DOUBLE, comm_);
  if (!g.b.empty()) {
    solver::upload_vector(env_, g.b, type_, g.whole_b);
    g.amg->apply(g.whole_b, g.whole_x);
    const std::size_t element = reduction::element_size(type_);
    if (level.n)
      env_.queue().enqueueCopyBuffer(g.whole_x, x, std::size_t(g.offsets[std::size_t(comm_rank(comm_))]) * element, 0,
                                     level.n * element);
  }
  coarse_seconds_ += since(start);
}

void DistributedAmg::cycle(std::size_t l, const ::cl::Buffer& b, ::cl::Buffer& x) {
  Level& level = *levels_[l];
  if (l + 1 == levels_.size()) {  // the coarsest level
    if (gathered_) gathered_cycle(level, b, x);
    else level.smoother->apply(b, x, true);
    return;
  }
  Level& next = *levels_[l + 1];
  level.smoother->apply(b, x, true);  // pre-smoothing from x = 0
  // Each product beside its vector's halo exchange: the rows that read no ghost while it runs.
  const std::size_t cap = 64 * env_.info().compute_units;
  level.halo_a->around(x, level.n, level.interior_a, [&](solver::RowRange rows) {  // r = b - A x
    row_pass(*level.layout, level.residual_kernel, "residual", rows, {&b, &x, &level.residual}, cap);
  });
  level.halo_r->around(level.residual, next.n, level.interior_r, [&](solver::RowRange rows) {  // b_c = R r
    row_pass(*level.layout_r, level.restriction_kernel, "restriction", rows, {&level.residual, &next.b}, cap);
  });
  cycle(l + 1, next.b, next.x);
  level.halo_p->around(next.x, level.n, level.interior_p, [&](solver::RowRange rows) {  // x += P x_c
    row_pass(*level.layout_p, level.prolong_kernel, "prolong_add", rows, {&next.x, &x}, cap);
  });
  level.smoother->apply(b, x, false);  // post-smoothing
}

std::uint64_t DistributedAmg::bytes_per_apply() const noexcept {
  // A product reads its matrix (CSR or ELL) once; the vectors as listed.
  const std::uint64_t e = reduction::element_size(type_);
  const auto matrix = [&](const std::optional<solver::Spmv>& spmv) -> std::uint64_t {  // what a product reads
    if (!spmv) return 0;
    const std::uint64_t ell = ell_bytes(*spmv, e);
    return ell ? ell : spmv->matrix().bytes();
  };
  // r narrowed and z widened where the hierarchy has another precision than the solve.
  const std::uint64_t n0 = levels_.empty() ? 0 : levels_.front()->n;
  std::uint64_t bytes = narrow_ ? 2 * n0 * (e + reduction::element_size(solve_)) : 0;
  for (const auto& level : levels_) {
    if (!level->smoother) continue;
    const std::uint64_t n = level->n, d = level->smoother->degree();
    const bool coarsest = !level->spmv_p;
    // Smoothing from zero (start: D, b read, d, x written), d - 1 steps (the matrix; D, b, src,
    // d read, d, dst written); again after the correction with d steps; on the coarsest once.
    const std::uint64_t smoothing = 4 * n * e + (d - 1) * (matrix(level->spmv) + 6 * n * e);
    bytes += coarsest ? smoothing : 2 * smoothing + matrix(level->spmv) + 6 * n * e;
    if (coarsest) continue;
    const std::uint64_t coarse = std::uint64_t(level->r.rows());
    bytes += matrix(level->spmv) + 3 * n * e;                  // r = b - A x
    bytes += matrix(level->spmv_r) + (n + coarse) * e;         // b_c = R r
    bytes += matrix(level->spmv_p) + (coarse + 2 * n) * e;     // x += P x_c
  }
  return bytes;
}

std::uint64_t DistributedAmg::device_bytes() const noexcept {
  const std::uint64_t e = reduction::element_size(type_);
  const auto held = [&](const solver::DeviceCsrMatrix& m, const std::optional<solver::Spmv>& spmv) -> std::uint64_t {
    return spmv ? m.bytes() + ell_bytes(*spmv, e) : 0;  // the CSR arrays and any ELL copy
  };
  std::uint64_t bytes = 0;
  for (const auto& level : levels_) {
    const std::uint64_t n = level->n;
    const std::uint64_t ghosts = level->halo_a ? std::uint64_t(level->halo_a->ghosts()) : 0;
    bytes += held(level->a, level->spmv) + held(level->p, level->spmv_p) + held(level->r, level->spmv_r) -
             level->shared_bytes;
    // x, b, the residual, 1/diag, the smoother's direction and scratch (the sends' buffers left out)
    bytes += e * (5 * n + 2 * ghosts + (level->halo_r ? std::uint64_t(level->halo_r->ghosts()) : 0));
  }
  if (gathered_) bytes += 2 * e * std::uint64_t(gathered_->b.size()) + gathered_->device_bytes;
  return bytes;
}

double DistributedAmg::setup_seconds() const noexcept {
  double s = 0;
  for (const auto& [name, seconds] : phases_) s += seconds;
  return s;
}

double DistributedAmg::halo_seconds() const noexcept {
  double s = 0;
  for (const auto& level : levels_)
    for (const auto* halo : {&level->halo_a, &level->halo_p, &level->halo_r})
      if (*halo) s += (*halo)->times().seconds;
  return s;
}

void DistributedAmg::reset_times() noexcept {
  coarse_seconds_ = 0;
  for (auto& level : levels_)
    for (auto* halo : {&level->halo_a, &level->halo_p, &level->halo_r})
      if (*halo) (*halo)->reset_times();
}

}  // namespace clcg::distributed
