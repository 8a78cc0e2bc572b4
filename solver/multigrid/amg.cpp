#include "clcg/solver/multigrid/amg.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "clcg/solver/multigrid/coarsening.hpp"
#include "clcg/solver/multigrid/device_coarsening.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"
#include "clcg/solver/multigrid/phase_clock.hpp"
#include "clcg/solver/precond/cholesky.hpp"
#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/precond/spectrum.hpp"
#include "clcg/solver/sparse/device_memory.hpp"

namespace clcg::solver {
namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned lanczos_steps = 10;  // for rho(D^-1 A): the prolongator's weight, the smoothers' bounds

// rho(D^-1 A) as device Lanczos estimates it: the prolongator smoother's weight is 4/3 over it
// (as pyamg; a Gershgorin bound overshoots rho by 1.7x on coarse levels and leaves P under-
// smoothed: 24 steps against 17 on 2D Poisson 1000^2), and the level's smoother takes it too.
double radius(SpectrumEstimator& spectrum, Spmv& a, const ::cl::Buffer& inv_diag) {
  return a.matrix().rows() > 0 ? spectrum.lambda_max(a, inv_diag, lanczos_steps) : 0.0;
}


// Whether the last of `operators` (the first is A, of a_rows rows) is coarsened again.
bool coarsens(std::int32_t rows, std::size_t operators, std::int32_t a_rows, const AmgOptions& options) {
  const std::size_t largest = amg_largest_coarsest(std::size_t(std::max(a_rows, 0)), operators > 1, options);
  return std::size_t(std::max(rows, 0)) > largest && operators < options.max_levels;
}

// The finest level's near-null space on the device (rows x k, row-major): the options' vectors,
// or one constant a component. std::invalid_argument where the options do not fit A.
::cl::Buffer finest_candidates(const cl::Env& env, DeviceCoarsening& coarsening, const DeviceCsrMatrix& a,
                               const AmgOptions& options, unsigned& k) {
  check_block_options(options, std::size_t(a.rows()));
  k = unsigned(near_nullspace_vectors(options));
  if (!options.near_nullspace) return coarsening.component_constants(std::size_t(a.rows()), k);
  ::cl::Buffer b = make_vector(env, a.type(), options.near_nullspace->values.size());
  upload_vector(env, options.near_nullspace->values, a.type(), b);
  return b;
}

// The same on the host, for the host reference.
std::vector<double> finest_candidates(const HostCsr& a, const AmgOptions& options, unsigned& k) {
  check_block_options(options, std::size_t(a.rows));
  k = unsigned(near_nullspace_vectors(options));
  if (options.near_nullspace) return options.near_nullspace->values;
  std::vector<double> b(std::size_t(a.rows) * k, 0.0);
  for (std::size_t i = 0; i < std::size_t(a.rows); ++i) b[i * k + i % k] = 1;
  return b;
}

}  // namespace

// A coarse operator is a quarter full at a few hundred rows, so the host's dense factor costs
// n^3/3: 438 rows took 4 ms at 144^3 and 575 rows 7 ms at 160^3, against 20-30 ms of device
// set-up, where one more level of ~20 rows costs about 1 ms (H100, docs/PERFORMANCE.md). Below
// 1M rows the larger exact coarse solve stays: the set-up is short anyway, and 1138_bus in float
// converges only with it.
double prolongator_weight(double radius) { return radius > 0 ? (4.0 / 3.0) / radius : 0.0; }

std::pair<double, double> amg_smoother_interval(double estimate, bool coarsest, const AmgOptions& options) {
  const double upper = 1.1 * (estimate > 0 ? estimate : 1.0);
  return {upper / (coarsest ? 1000.0 : options.smoother_lower_ratio), upper};
}

// A near-null-space vector that is a combination of the others on some aggregate leaves a zero
// column of P there, so a zero row and column of A_c: 1 on its diagonal keeps the factor positive
// definite and solves that unknown to 0 (b_c is 0 there too), as a pseudo-inverse would.
void unit_diagonal_on_empty_rows(HostCsr& a) {
  for (std::int32_t i = 0; i < a.rows; ++i) {
    bool empty = true;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1] && empty; ++k) empty = a.values[std::size_t(k)] == 0;
    if (!empty) continue;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[std::size_t(k)] == i) a.values[std::size_t(k)] = 1;
  }
}

std::size_t amg_largest_coarsest(std::size_t a_rows, bool coarse_level, const AmgOptions& options) {
  constexpr std::size_t halved_from = 1'000'000;
  return coarse_level && a_rows >= halved_from ? options.coarse_rows / 2 : options.coarse_rows;
}

struct AmgPreconditioner::Level {
  DeviceCsrMatrix a;                // this level's operator
  std::optional<Spmv> spmv;         // its SpMV (and ELL copy)
  std::optional<RowLayout> layout;  // for the residual kernel
  ::cl::Buffer inv_diag, x, b, residual;
  std::optional<ChebyshevSmoother> smoother;
  cl::CachedKernel residual_kernel;
  // To the next (coarser) level: P (this level's rows) and R = P^T; empty on the coarsest.
  DeviceCsrMatrix p, r;
  std::optional<Spmv> spmv_p, spmv_r;
  std::optional<RowLayout> layout_p;
  cl::CachedKernel prolong_kernel;
  std::size_t n = 0;
};

AmgPreconditioner::~AmgPreconditioner() = default;
std::size_t AmgPreconditioner::levels() const noexcept { return levels_.size(); }

struct AmgPreconditioner::Hierarchy {
  std::vector<DeviceCsrMatrix> operators, prolongators, restrictions;
  // What new values of A keep, per level but the coarsest (device set-up only): P_tent (so the
  // aggregates) and, below the finest level, A P's pattern.
  std::vector<DeviceCsrMatrix> tentative;
  std::vector<unsigned> groups;  // the coarse unknowns a node (near-null-space vectors) of each P: its columns' groups
  // New values of A P on a kept pattern skip its counting and its columns' hashing. The finest
  // level's (~4 entries a fine row on meshes) is counted again instead: keeping it would take
  // the hierarchy past 2x A's bytes, where a coarser level's takes ~0.1x (512^3).
  struct ProductPattern {
    ::cl::Buffer row_offsets, col_idx;  // none on the finest level
    std::int64_t nnz = 0;
    std::int32_t longest = 0;
    RowOffsets offsets = RowOffsets::narrow;
  };
  std::vector<ProductPattern> ap_patterns;
  std::int64_t largest_product = 0;  // A P's nonzeros on the level where they are most
  std::vector<double> radius;  // rho(D^-1 A) of each level but the coarsest
  // The Lanczos's SpMV of each level but the coarsest: the level's own, its layout (an ELL copy
  // on meshes: 1.4 ms at 256^3's finest level) made once.
  std::vector<std::optional<Spmv>> spmv;
  std::optional<HostCsr> coarsest;  // the coarsest operator on the host, where the set-up has it
  std::vector<std::pair<std::string, double>> phases;
};

AmgPreconditioner::AmgPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const AmgOptions& options) try
    : env_(env),
      options_(options),
      spectrum_(env, a.type()),
      coarsening_(std::make_unique<DeviceCoarsening>(env, a.type(), options.wide_offsets_from)),
      hierarchy_(std::make_unique<Hierarchy>()) {
  const cl::BufferPool::Scope pooled(env);  // the set-up drops and makes ~200 buffers: reused, not freed
  PhaseClock phase(env);
  SparseProducts& products = coarsening_->products();
  Hierarchy& h = *hierarchy_;
  h.operators.push_back(a);
  double strength_s = 0, prolongator_s = 0, galerkin_s = 0;
  const double theta = options.strength;  // the same on every level: anisotropy persists on coarse levels
  unsigned block = options.block_size, k = 0;
  ::cl::Buffer candidates = finest_candidates(env, *coarsening_, a, options, k);
  while (coarsens(h.operators.back().rows(), h.operators.size(), a.rows(), options)) {
    const DeviceCsrMatrix fine = h.operators.back();
    phase.start();
    // Aggregates of the strength graph, of rows or of nodes.
    const DeviceCsrMatrix graph = coarsening_->filter(block == 1 ? fine : coarsening_->node_matrix(fine, block), theta);
    const DeviceAggregates aggregates = coarsening_->aggregate(graph);
    strength_s += phase.seconds();
    // Stop where aggregation no longer coarsens (fewer than 20% fewer rows).
    if (aggregates.count == 0 || double(aggregates.count) * k > 0.8 * double(fine.rows())) break;
    phase.start();
    ::cl::Buffer coarse_candidates;
    DeviceCsrMatrix tentative =
        coarsening_->tentative_prolongator(aggregates, block, candidates, k, coarse_candidates);
    candidates = coarse_candidates;
    block = k;
    Spmv spmv(env, fine);
    const ::cl::Buffer inv_diag = coarsening_->inverse_diagonal(fine);
    h.radius.push_back(radius(spectrum_, spmv, inv_diag));
    DeviceCsrMatrix p = coarsening_->smoothed_prolongator(fine, inv_diag, tentative, prolongator_weight(h.radius.back()));
    h.spmv.push_back(std::move(spmv));
    prolongator_s += phase.seconds();
    phase.start();
    DeviceCsrMatrix r = products.transpose(p);
    const DeviceCsrMatrix ap = products.multiply_grouped(fine, p, k, false, "A P", RowOffsets::wide);
    DeviceCsrMatrix coarse = products.multiply_grouped(r, ap, k, true, "R (A P)");
    galerkin_s += phase.seconds();
    h.groups.push_back(k);
    h.largest_product = std::max(h.largest_product, ap.nnz());
    if (h.operators.size() > 1)
      h.ap_patterns.push_back({ap.row_offsets(), ap.col_idx(), ap.nnz(), ap.max_row_length(), ap.offsets()});
    else
      h.ap_patterns.emplace_back();
    h.tentative.push_back(std::move(tentative));
    h.prolongators.push_back(std::move(p));
    h.restrictions.push_back(std::move(r));
    h.operators.push_back(std::move(coarse));
  }
  h.phases = {{"strength and aggregation (device)", strength_s},
              {"smoothed prolongators (device)", prolongator_s},
              {"Galerkin products (device)", galerkin_s}};
  build_levels(h);
  report_.kernels = coarsening_->take_kernel_times();
} catch (const cl::Error& e) {
  // The set-up's memory grows level by level: where it does not fit, say so (3D Poisson peaks at
  // about 5 times A's CSR bytes: docs/PERFORMANCE.md).
  rethrow_allocation_failure(e, env.info(), "the AMG set-up of " + std::to_string(a.rows()) + " rows",
                             "AMG's hierarchy and set-up scratch need about 5 times A's bytes; --precond chebyshev "
                             "or jacobi need none of it, and the distributed set-up (cg-solve under mpirun, even "
                             "-np 1) about 3.4 times on 3D Poisson");
}

bool AmgPreconditioner::update_values(const DeviceCsrMatrix& a) {
  if (!coarsening_) return false;
  Hierarchy& h = *hierarchy_;
  const DeviceCsrMatrix& before = h.operators.front();
  if (a.rows() != before.rows() || a.nnz() != before.nnz() || a.type() != before.type())
    throw std::invalid_argument("AMG update_values: the matrix has " + std::to_string(a.rows()) + " rows and " +
                                std::to_string(a.nnz()) + " nonzeros, the hierarchy's " +
                                std::to_string(before.rows()) + " and " + std::to_string(before.nnz()) +
                                " (of the same type): new values need the same pattern");
  const cl::BufferPool::Scope pooled(env_);
  PhaseClock phase(env_);
  SparseProducts& products = coarsening_->products();
  h.operators.front() = a;
  double prolongator_s = 0, galerkin_s = 0;
  for (std::size_t l = 0; l < h.prolongators.size(); ++l) {
    phase.start();
    // The level's own SpMV takes the new values (its ELL copy refilled in place); the Lanczos runs on it.
    levels_[l]->spmv->update_values(h.operators[l]);
    const ::cl::Buffer inv_diag = coarsening_->inverse_diagonal(h.operators[l]);
    h.radius[l] = radius(spectrum_, *levels_[l]->spmv, inv_diag);
    coarsening_->smoothed_prolongator_values(h.operators[l], inv_diag, h.tentative[l], prolongator_weight(h.radius[l]),
                                             h.prolongators[l]);
    prolongator_s += phase.seconds();
    phase.start();
    products.transpose_values(h.prolongators[l], h.restrictions[l]);
    const Hierarchy::ProductPattern& kept = h.ap_patterns[l];
    DeviceCsrMatrix ap;
    if (kept.row_offsets()) {
      const ElementType type = h.operators[l].type();
      ap = DeviceCsrMatrix(kept.row_offsets, kept.col_idx, make_vector(env_, type, std::size_t(kept.nnz)),
                           h.operators[l].rows(), h.prolongators[l].cols(), kept.nnz, type, kept.longest, kept.offsets);
      products.multiply_values(h.operators[l], h.prolongators[l], ap, "A P");
    } else {
      ap = products.multiply_grouped(h.operators[l], h.prolongators[l], h.groups[l], false, "A P", RowOffsets::wide);
    }
    products.multiply_values(h.restrictions[l], ap, h.operators[l + 1], "R (A P)");
    galerkin_s += phase.seconds();
  }
  h.phases = {{"smoothed prolongators' values (device)", prolongator_s},
              {"Galerkin products' values (device)", galerkin_s}};
  update_levels(h);
  report_.kernels = coarsening_->take_kernel_times();
  return true;
}

// The levels of the same hierarchy on new values: their buffers, SpMV layouts and kernels kept
// (making them again cost new values 8 ms of 41 at 256^3, 5 of 10 at 128^3: releases, allocations,
// layouts); the diagonals, smoother bounds, ELL copies and the coarse factor made again, as
// build_levels makes them, so the bits are a fresh set-up's.
void AmgPreconditioner::update_levels(Hierarchy& h) {
  PhaseClock phase(env_);
  phase.start();
  std::optional<HostCsr> coarse = coarsest_on_host(h);
  const std::size_t last = levels_.size() - 1;
  for (std::size_t l = 0; l <= last; ++l) {
    Level& level = *levels_[l];
    if (level.spmv) {
      level.a = h.operators[l];
      if (l >= h.prolongators.size()) level.spmv->update_values(level.a);  // (the update's loop did the others)
      level.layout.emplace(env_, *level.spmv);
      jacobi_inverse_diagonal(env_, level.a, level.inv_diag);
    }
    if (l < last) {
      level.p = h.prolongators[l];
      level.r = h.restrictions[l];
      level.spmv_p->update_values(level.p);
      level.spmv_r->update_values(level.r);
      level.layout_p.emplace(env_, *level.spmv_p);
    }
  }
  const double kernels_s = phase.seconds();
  phase.start();
  double factor_s = 0;
  if (!make_smoothers(h, std::move(coarse), true, factor_s)) {  // the coarsest level changed hands: anew
    levels_.clear();
    report_ = PreconditionerReport{};
    build_levels(h);
    return;
  }
  const double smoother_s = phase.seconds() - factor_s;
  spectrum_.release_vectors();
  report_.phases = h.phases;
  add_level_phases(kernels_s, smoother_s, factor_s);
}

void AmgPreconditioner::make_device_operator(Hierarchy& h, std::size_t l) {
  Level& level = *levels_[l];
  level.a = h.operators[l];
  if (l < h.spmv.size() && h.spmv[l]) {
    level.spmv.emplace(std::move(*h.spmv[l]));
    h.spmv[l].reset();
  } else {
    level.spmv.emplace(env_, level.a);
  }
  level.layout.emplace(env_, *level.spmv);
  level.inv_diag = make_vector(env_, level.a.type(), level.n);
  jacobi_inverse_diagonal(env_, level.a, level.inv_diag);
}

bool AmgPreconditioner::make_smoothers(Hierarchy& h, std::optional<HostCsr> coarse, bool update, double& factor_s) {
  const std::size_t last = levels_.size() - 1;
  const auto known = [&](std::size_t l) { return l < h.radius.size() ? h.radius[l] : 0.0; };
  const auto enqueue = [&](std::size_t l) {
    Level& level = *levels_[l];
    if (level.n > 0 && level.spmv && !(known(l) > 0)) spectrum_.enqueue(*level.spmv, level.inv_diag, lanczos_steps);
  };
  for (std::size_t l = 0; l <= last; ++l) enqueue(l);
  const auto start = Clock::now();
  std::unique_ptr<DevicePreconditioner> solve = factor_coarsest(std::move(coarse), h.operators.back().type());
  factor_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (update && bool(solve) == bool(levels_[last]->spmv)) {  // factored <-> Chebyshev
    spectrum_.estimates();
    coarse_solve_.reset();
    return false;
  }
  if (!update && !solve) {  // no factor: the coarsest operator on the device, with a Chebyshev solve
    make_device_operator(h, last);
    enqueue(last);
  }
  coarse_solve_ = std::move(solve);
  const std::vector<double> estimates = spectrum_.estimates();
  std::size_t next = 0;
  for (std::size_t l = 0; l <= last; ++l) {
    Level& level = *levels_[l];
    if (level.n == 0 || !level.spmv) continue;
    const double estimate = known(l) > 0 ? known(l) : estimates.at(next++);
    const auto [lower, upper] = amg_smoother_interval(estimate, l == last, options_);
    if (update)
      level.smoother->update_values(*level.spmv, lower, upper);
    else
      level.smoother.emplace(env_, *level.spmv, level.inv_diag, lower, upper,
                             l == last ? amg_coarse_chebyshev_degree : options_.smoother_degree);
  }
  return true;
}

std::optional<HostCsr> AmgPreconditioner::coarsest_on_host(Hierarchy& h) {
  const DeviceCsrMatrix& a = h.operators.back();
  if (a.rows() <= 0 || std::size_t(a.rows()) > amg_coarse_factor_limit) return std::nullopt;
  std::optional<HostCsr> host = h.coarsest ? std::move(h.coarsest) : download(env_, a);
  h.coarsest.reset();
  unit_diagonal_on_empty_rows(*host);
  return host;
}

std::unique_ptr<DevicePreconditioner> AmgPreconditioner::factor_coarsest(std::optional<HostCsr> host, ElementType type) {
  if (!host) return nullptr;
  // New values keep A_c's pattern, so its ordering and symbolic analysis too.
  if (!coarse_analysis_) coarse_analysis_ = std::make_shared<SparseCholesky>(*host);
  try {  // the exact coarse solve (A_c small: sparse LDL^T, or dense, in a ms or two)
    return std::make_unique<CholeskyPreconditioner>(env_, *host, type, coarse_analysis_);
  } catch (const PreconditionerBreakdown&) {
    return nullptr;  // not positive definite: a Chebyshev solve; CG reports A's breakdown itself
  }
}

void AmgPreconditioner::add_level_phases(double kernels_s, double smoother_s, double factor_s) {
  report_.phases.emplace_back("levels' SpMV layouts and kernels", kernels_s);
  report_.phases.emplace_back("smoother bounds (device Lanczos)", smoother_s);
  report_.phases.emplace_back("coarse Cholesky factor (host, beside the smoother bounds)", factor_s);
}

AmgPreconditioner::AmgPreconditioner(const cl::Env& env, const DeviceCsrMatrix& a, const HostCsr& host,
                                     const AmgOptions& options)
    : env_(env), options_(options), spectrum_(env, a.type()) {
  const ElementType type = a.type();
  double strength_s = 0, prolongator_s = 0, galerkin_s = 0, upload_s = 0;
  PhaseClock phase(env);
  std::vector<HostCsr> operators{host};
  Hierarchy h;
  h.operators.push_back(a);
  const double theta = options.strength;  // the same on every level: anisotropy persists on coarse levels
  unsigned block = options.block_size, k = 0;
  std::vector<double> candidates = finest_candidates(host, options, k);
  while (coarsens(operators.back().rows, operators.size(), host.rows, options)) {
    const HostCsr& fine = operators.back();
    phase.start();
    const HostCsr nodes = block == 1 ? HostCsr() : node_matrix(fine, int(block));
    const HostCsr& graph = block == 1 ? fine : nodes;
    const std::vector<char> strong = strong_connections(graph, theta);
    const Aggregates aggregates = aggregate(graph, strong);
    strength_s += phase.seconds();
    if (aggregates.count == 0 || double(aggregates.count) * k > 0.8 * double(fine.rows)) break;
    phase.start();
    std::vector<double> coarse_candidates;
    const DeviceCsrMatrix device_fine(env, fine, type);
    ::cl::Buffer inv_diag = make_vector(env, type, std::size_t(fine.rows));  // as the device set-up's
    upload_vector(env, clcg::solver::inverse_diagonal(fine), type, inv_diag);
    Spmv spmv(env, device_fine);
    h.radius.push_back(radius(spectrum_, spmv, inv_diag));
    const HostCsr tentative = tentative_prolongator(aggregates, int(block), candidates, int(k), coarse_candidates);
    HostCsr p = smoothed_prolongator(fine, tentative, prolongator_weight(h.radius.back()));
    candidates = std::move(coarse_candidates);
    block = k;
    prolongator_s += phase.seconds();
    phase.start();
    HostCsr r = transpose(p);
    const HostCsr ap = multiply(fine, p);
    HostCsr coarse = multiply(r, ap);
    h.largest_product = std::max(h.largest_product, std::int64_t(ap.nnz()));
    galerkin_s += phase.seconds();
    phase.start();
    h.prolongators.emplace_back(env, p, type);
    h.restrictions.emplace_back(env, r, type);
    h.operators.emplace_back(env, coarse, type);
    upload_s += phase.seconds();
    operators.push_back(std::move(coarse));
  }
  h.coarsest = std::move(operators.back());
  h.phases = {{"strength and aggregation (host)", strength_s},
              {"smoothed prolongators (host)", prolongator_s},
              {"Galerkin products (host)", galerkin_s},
              {"upload", upload_s}};
  build_levels(h);
}

void AmgPreconditioner::build_levels(Hierarchy& h) {
  const cl::Env& env = env_;
  const AmgOptions& options = options_;
  const ElementType type = h.operators.front().type();
  PhaseClock phase(env);
  phase.start();
  std::optional<HostCsr> coarse = coarsest_on_host(h);  // read back before the estimates are enqueued
  const std::size_t coarsest = h.operators.size() - 1;
  for (std::size_t l = 0; l <= coarsest; ++l) {
    levels_.push_back(std::make_unique<Level>());
    Level& level = *levels_.back();
    level.n = std::size_t(h.operators[l].rows());
    if (l > 0) level.x = make_vector(env, type, level.n), level.b = make_vector(env, type, level.n);
    if (l < coarsest) {  // the coarsest level's operator goes on the device only where it is not factored
      make_device_operator(h, l);
      level.residual = make_vector(env, type, level.n);
      level.residual_kernel = cl::CachedKernel(
          env.kernel("multigrid.cl", level.layout->kernel_name("residual").c_str(), level.layout->build_options()));
      level.p = h.prolongators[l];
      level.r = h.restrictions[l];
      level.spmv_p.emplace(env, level.p);
      level.spmv_r.emplace(env, level.r);
      level.layout_p.emplace(env, *level.spmv_p);
      level.prolong_kernel = cl::CachedKernel(env.kernel(
          "multigrid.cl", level.layout_p->kernel_name("prolong_add").c_str(), level.layout_p->build_options()));
    }
    report_.level_rows.push_back(level.n);
    report_.level_nnz.push_back(std::size_t(h.operators[l].nnz()));
  }
  const double kernels_s = phase.seconds();
  phase.start();
  double factor_s = 0;
  make_smoothers(h, std::move(coarse), false, factor_s);
  const double smoother_s = phase.seconds() - factor_s;
  const Level& last = *levels_.back();
  spectrum_.release_vectors();  // not kept through the solve
  report_.name = "amg";
  double nnz_total = 0;
  for (std::size_t nnz : report_.level_nnz) nnz_total += double(nnz);
  // What the hierarchy keeps besides A: the coarse operators, P and R, and for new values the
  // strong connections, P_tent and A P's pattern (CSR bytes; ELL copies for the SpMV not
  // counted).
  double hierarchy_bytes = 0;
  for (std::size_t l = 1; l < h.operators.size(); ++l) hierarchy_bytes += double(h.operators[l].bytes());
  for (std::size_t l = 0; l < h.prolongators.size(); ++l)
    hierarchy_bytes += double(h.prolongators[l].bytes() + h.restrictions[l].bytes());
  for (std::size_t l = 0; l < h.tentative.size(); ++l)
    hierarchy_bytes += double(h.tentative[l].bytes()) +
                       (h.ap_patterns[l].row_offsets() ? double(h.operators[l].rows() + 1 + h.ap_patterns[l].nnz) *
                                                         sizeof(std::int32_t)
                                                   : 0.0);  // A P's pattern
  const double a_bytes = double(h.operators.front().bytes());
  report_.figures = {{"levels", double(levels_.size())},
                     {"operator_complexity", report_.level_nnz.front() ? nnz_total / double(report_.level_nnz.front()) : 1.0},
                     {"smoother_degree", double(options.smoother_degree)},
                     {"coarse_rows", double(last.n)},
                     {"block_size", double(options.block_size)},
                     {"near_nullspace_vectors", double(near_nullspace_vectors(options))},
                     {"hierarchy_bytes_over_a", a_bytes > 0 ? hierarchy_bytes / a_bytes : 0.0},
                     {"largest_product_nnz", double(h.largest_product)}};
  report_.phases = h.phases;
  add_level_phases(kernels_s, smoother_s, factor_s);
}

void AmgPreconditioner::cycle(std::size_t l, const ::cl::Buffer& b, ::cl::Buffer& x) {
  Level& level = *levels_[l];
  if (level.n == 0) return;
  if (l + 1 == levels_.size()) {  // the coarsest level
    if (level.smoother) {
      level.smoother->apply(b, x, true);
      return;
    }
    coarse_solve_->apply(b, x);  // x = A_c^-1 b: read back, solved on the host, written
    return;
  }
  Level& next = *levels_[l + 1];
  level.smoother->apply(b, x, true);  // pre-smoothing from x = 0
  cl_uint arg = 0;
  std::size_t groups = level.layout->set_args(level.residual_kernel, arg, 64 * env_.info().compute_units);
  level.residual_kernel.set(arg++, b);
  level.residual_kernel.set(arg++, x);
  level.residual_kernel.set(arg++, level.residual);
  level.layout->launch(level.residual_kernel, "residual", groups);     // r = b - A x
  level.spmv_r->enqueue(level.residual, next.b);                      // b_c = R r
  cycle(l + 1, next.b, next.x);                                        // x_c ~ A_c^-1 b_c
  arg = 0;
  groups = level.layout_p->set_args(level.prolong_kernel, arg, 64 * env_.info().compute_units);
  level.prolong_kernel.set(arg++, next.x);
  level.prolong_kernel.set(arg++, x);
  level.layout_p->launch(level.prolong_kernel, "prolong_add", groups);  // x += P x_c
  level.smoother->apply(b, x, false);                                   // post-smoothing
}

void AmgPreconditioner::apply(const ::cl::Buffer& r, ::cl::Buffer& z) { cycle(0, r, z); }

const Spmv* AmgPreconditioner::matrix_spmv() const noexcept {
  return levels_.empty() || !levels_.front()->spmv ? nullptr : &*levels_.front()->spmv;
}

}  // namespace clcg::solver
