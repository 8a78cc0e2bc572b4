#pragma once
// What `auto` means, decided here and nowhere else: from cheap facts about the matrix and the
// device, how a solve runs (a sparse direct solve on the host, or CG on the device), with
// which preconditioner, CG variant and apply precision, and why. Each threshold below comes
// from a measurement in docs/PERFORMANCE.md ("What auto picks"); tests/krylov/plan_test.cpp
// holds the decisions as a table.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "clcg/cl/device.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

enum class Method {
  cg,      // CG on the device (Settings' preconditioner and variant)
  direct,  // A = L D L^T on the host or L L^T on the device, x by triangular solves, the true residual checked
};
std::string_view method_name(Method m) noexcept;  // "cg", "direct"

struct Plan {
  Method method = Method::cg;
  Settings settings;   // `automatic` resolved (the preconditioner is `cholesky` for direct)
  std::string reason;  // one line for the summary and the JSON, e.g. "factor 41K nonzeros, 0.3 Mflop: direct"
  // The symbolic factorisation the plan was based on, when it ran one (direct reuses it).
  std::shared_ptr<SparseCholesky> analysis;
  bool factor_on_device = false;  // direct: the dense factor on the device (else the sparse one on the host)
  // CG: watch its steps and go direct where they predict a factor faster (krylov/direct_watch.hpp).
  bool watch_for_direct = false;
};

// The whole choice for `requested` (its automatic preconditioner and variant) on `device`.
// With `host` (A in full storage) a matrix small enough is analysed symbolically (AMD
// ordering, elimination tree, column counts: about what a pass over A costs for these sizes)
// and solved directly when its factor is cheap; without it (a matrix only on the device) the
// plan is always CG. Direct is only chosen when both the preconditioner and the variant are
// automatic: a user who names either asked for CG.
Plan plan_solve(const cl::DeviceInfo& device, const Settings& requested, std::size_t rows, std::size_t nnz,
                const CsrView* host = nullptr);

// The same for CG alone (never direct): `settings` with `automatic` resolved. What the buffer
// API and make_cg_solver use (no host matrix: the facts from rows and nonzeros alone).
Settings resolve_automatic(const cl::DeviceInfo& device, Settings settings, std::size_t rows, std::size_t nnz,
                           const CsrView* host = nullptr);

// --- The rules behind a plan, each measured (docs/PERFORMANCE.md) ---------------------------

// Direct or CG, the same rule on a GPU and on a CPU device (PoCL). The analysis (AMD: 0.1-0.5 ms
// at these sizes on the H100 machine's host for 2D meshes and stiffness matrices, 1.8 ms at 15-19K
// nonzeros of a 3D grid, 6 ms at 21K of a random graph) runs for matrices of at most
// `analyse_up_to_nnz` nonzeros, and up to `analyse_stiff_up_to_nnz` where fewer than half the
// sampled rows are diagonally dominant (stiffness matrices, whose Jacobi CG takes hundreds of
// steps: 2D elasticity of 960 rows, 212); a dominant matrix of that size (a 3D grid, a random
// graph Laplacian) converges with CG in less than the analysis would cost (3D Poisson 13^3:
// 1.1 ms). After it, direct where the factorisation's predicted flops are at most
// `direct_up_to_flops`: a host LDL^T below that costs about a millisecond, what a device CG solve
// costs to start (launches and round trips: 0.9-1.7 ms on the H100 for the smallest matrices),
// and on ill-conditioned matrices (the bus and stiffness matrices: 200-1400 Jacobi steps) it is
// 4-40x faster.
inline constexpr std::size_t analyse_up_to_nnz = 10'000;
inline constexpr std::size_t analyse_stiff_up_to_nnz = 25'000;
inline constexpr std::size_t dominance_sample_rows = 128;
inline constexpr double direct_up_to_flops = 4e6;
double dominant_fraction(const CsrView& a);  // of sampled rows with |a_ii| >= sum_j!=i |a_ij|
bool worth_analysing(std::size_t rows, std::size_t nnz, const CsrView* host = nullptr);
bool direct_pays(const FactorEstimate& factor);
// Where the sparse factor is not cheap (or was not analysed), no rule from A's size tells CG's
// steps: a 3D grid of 2,744 rows converges in 36 Jacobi steps (1.1 ms on the H100), bcsstk13's
// 2,003 rows take 1,370 (36 ms). So a matrix of at most watch_up_to_rows rows goes to CG
// watched (krylov/direct_watch.hpp): at steps watch_first_check, twice that, ... the residual's
// rate since the last check predicts the steps left, and where they would take longer than a
// direct solve from CG's x, CG stops and the factor takes over: the dense one on the device
// (direct/dense_device_cholesky.hpp; a GPU with fp64, at most dense_factor_up_to_rows rows) or
// the sparse one on the host where the dense one is not allowed (its analysis run then, for at
// most analyse_when_watched_up_to_nnz nonzeros). CG goes on unless its prediction is watch_margin
// times the factor's: CG's early rate misleads both ways (bcsstk13's slows down, a 2D
// Laplacian's speeds up: lap2D_5pt_n100 predicted 475 more steps after 40, and took 143). Every
// time is a model of the device's, never a clock, so the same residuals make the same choice:
// the same bits every run.
inline constexpr std::size_t watch_up_to_rows = 20'000;
inline constexpr std::size_t watch_first_check = 20;
inline constexpr std::size_t dense_factor_up_to_rows = 4'096;
inline constexpr std::size_t analyse_when_watched_up_to_nnz = 200'000;
inline constexpr double watch_margin = 2.0;
// Whether the dense factor on the device may be used: PreconditionerOptions::factor chooses
// (host: never; device: wherever a factor is used; auto: a GPU with fp64, up to the bound).
bool dense_factor_allowed(const cl::DeviceInfo& device, std::size_t rows, FactorPlace place);
// What a direct solve costs (s), fitted to the H100 machine's (docs/PERFORMANCE.md, "Direct or
// CG"): the dense factor and its solve on the device, a latency a 64-column block (its diagonal
// factor's serial steps and two launches) and the trailing updates' flops (3D grids of 1,000 to
// 4,096 rows: 2.2 to 9.6 ms); the sparse factor and its solve on the host from the analysis'
// flops (lap2D_5pt_n100: 12 Mflop in about 11 ms), the analysis from A's nonzeros (5-6 ms there).
inline constexpr double dense_seconds_fixed = 2.5e-4, dense_seconds_per_block = 1.2e-4, dense_flops_per_second = 1.3e13;
inline constexpr double sparse_flops_per_second = 1.1e9;
inline constexpr double analyse_seconds_per_nonzero = 1e-7;
double dense_direct_seconds(std::size_t rows);
// A small matrix's CG step: on a GPU a latency-bound 25 us (Jacobi, pipelined: 26 us for bcsstk13
// and lap2D_5pt_n100, H100) plus its bytes at 2.5 TB/s; on a CPU device (PoCL, 2 cores) 20 us
// plus 1 ns a nonzero (bcsstk13: 99 us).
double cg_step_seconds(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz);
double sparse_direct_seconds(const FactorEstimate& factor);
// The direct plan that the watch's prediction calls for: CG's remaining `cg_seconds_left`
// against the factors allowed, or none. The sparse factor's analysis runs where CG's time left
// would pay for it, once: `analysis` keeps it between calls.
std::optional<Plan> direct_instead(const cl::DeviceInfo& device, const Plan& cg_plan, const CsrView& host,
                                   double cg_seconds_left, const std::string& why,
                                   std::shared_ptr<SparseCholesky>& analysis);

// The rows a node where A is a block system: finite-element codes number a node's unknowns
// together (its displacements, say) and couple each with each of its neighbours', so the rows of
// a node share one set of nodes among their columns. The largest b from max_detected_block down
// to 2 that divides the rows and for which at least 90% of block_sample_nodes nodes (spread
// over A) agree so, among at least two nodes; else 1. A scalar stencil fails it (the rows of a
// "node" reach different neighbours). auto then gives AMG one constant vector a component:
// elasticity without its rigid body modes, PoCL 200K rows, 230 -> 47 steps (3D), 427 -> 28 (2D).
inline constexpr unsigned max_detected_block = 6;
inline constexpr std::size_t block_sample_nodes = 512;
unsigned detect_block_size(const CsrView& a);

// The preconditioner for CG (docs/PERFORMANCE.md, "Preconditioners"): on a GPU, Chebyshev from
// chebyshev_from_rows rows (4-16% ahead of Jacobi on every Poisson problem measured, set-up
// 2-23 ms), else Jacobi (on small matrices no other set-up and per-step cost paid off on more
// than a few); on a CPU, Jacobi (PoCL runs Chebyshev's extra SpMVs slower than it saves steps).
inline constexpr std::size_t chebyshev_from_rows = 100'000;
// AMG (set up on the device) from amg_from_rows rows on a surface-like mesh (2D: Chebyshev's steps
// grow as the square root of the rows), and from amg_any_from_rows rows of any mesh (3D: steps as
// the cube root). H100, float64, tol 1e-8, cg-bench time to solution with set-up
// (docs/PERFORMANCE.md, "What auto picks"): 2D Poisson 256^2 (65K rows) AMG 8.3 ms, Chebyshev
// 8.3; 362^2 (131K) 7.9 against 11.8; 2D FEM meshes of 500K rows (9 nonzeros a row) 13-46
// against 37-132; 3D Poisson 96^3 (885K) AMG 16.7 against 14.2, 112^3 (1.4M) 21.3 against 24.2;
// 3D FEM at 500K rows 26-35 against 20-37, at 2M rows 46-105 against 100-208.
inline constexpr std::size_t amg_from_rows = 120'000;
inline constexpr std::size_t amg_any_from_rows = 1'100'000;
// 3D finite-element matrices (more than amg_fe_row_length nonzeros a row: trilinear hexahedra 27,
// tetrahedra 15-23) are harder for Chebyshev than a 7-point grid of the same rows (96-136 steps
// against 63-83): AMG from amg_fe_from_rows (500K rows: AMG 20-32 ms, Chebyshev 19-36).
inline constexpr double amg_fe_row_length = 8.0;
inline constexpr std::size_t amg_fe_from_rows = 500'000;
// Surface-like: with the host matrix, two_step_growth below surface_growth_below (the rows two
// steps from a row over those one step: 2D meshes 2.6-2.8, 3D meshes 3.6 and more); without it,
// at most amg_up_to_row_length nonzeros a row (a 5-point stencil's 5, a 7-point one's 7).
inline constexpr double surface_growth_below = 3.2;
inline constexpr double amg_up_to_row_length = 6.0;
inline constexpr std::size_t growth_sample_rows = 128;
double two_step_growth(const CsrView& a);
bool grows_like_a_surface(std::size_t rows, std::size_t nnz, const CsrView* host);
Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz,
                                     const PreconditionerOptions& options = {}, const CsrView* host = nullptr);

// The precision an unset PreconditionerOptions::precision stands for: float for Chebyshev,
// IC(0) and AMG in a double solve on a GPU from float_apply_from_rows rows, where their applies
// are bandwidth bound and float halves them (CG's steps the same on every mesh problem
// measured); else the solve's own. Below it an apply is latency bound, float saves nothing, and
// on ill-conditioned matrices it costs steps (IC(0) on 1138_bus: 232 instead of 149).
inline constexpr std::size_t float_apply_from_rows = 100'000;
// AMG with more than one near-null-space vector keeps the solve's precision: a hierarchy of block
// systems in float took twice the steps on a thin beam (2D elasticity, nu 0.45, 2M rows, H100:
// 54 against 27; 3D elasticity 15 both ways, double 11% slower to solution).
ElementType choose_preconditioner_precision(const cl::DeviceInfo& device, Preconditioner p, ElementType solve,
                                            std::size_t rows, const PreconditionerOptions& options = {});

// The CG variant (docs/PERFORMANCE.md, "Which variant"). On a GPU, from gpu_fused_from_rows
// rows `fused` (at the bandwidth floor, where the second host sync is hidden); below it one
// host sync a step wins: `pipelined` (its read overlaps the SpMV) in double with Jacobi, where
// it takes textbook's steps (+1% on the test matrices), else `single` (without a
// preconditioner pipelined needs up to 30% more steps on ill-conditioned matrices, and in float
// its recurrences stagnate). On a CPU (PoCL) `single` below cpu_fused_from_work rows +
// nonzeros (launches dominate), else `fused`.
inline constexpr std::size_t gpu_fused_from_rows = 1'250'000;
inline constexpr std::size_t cpu_fused_from_work = 100'000;
CgVariant choose_cg_variant(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz, ElementType precision,
                            Preconditioner preconditioner);

}  // namespace clcg::solver
