#pragma once
// What `auto` means, decided here and nowhere else: from cheap facts about the matrix and the
// device, how a solve runs (a sparse direct solve on the host, or CG on the device), with
// which preconditioner, CG variant and apply precision, and why. Each threshold below comes
// from a measurement in docs/PERFORMANCE.md ("What auto picks"); tests/krylov/plan_test.cpp
// holds the decisions as a table.
#include <cstddef>
#include <memory>
#include <string>

#include "clcg/cl/device.hpp"
#include "clcg/solver/direct/sparse_cholesky.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"

namespace clcg::solver {

enum class Method {
  cg,      // CG on the device (Settings' preconditioner and variant)
  direct,  // A = L D L^T on the host, x by triangular solves, the true residual checked
};
std::string_view method_name(Method m) noexcept;  // "cg", "direct"

struct Plan {
  Method method = Method::cg;
  Settings settings;   // `automatic` resolved (the preconditioner is `cholesky` for direct)
  std::string reason;  // one line for the summary and the JSON, e.g. "factor 41K nonzeros, 0.3 Mflop: direct"
  // The symbolic factorisation the plan was based on, when it ran one (direct reuses it).
  std::shared_ptr<SparseCholesky> analysis;
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
// API and make_cg_solver use.
Settings resolve_automatic(const cl::DeviceInfo& device, Settings settings, std::size_t rows, std::size_t nnz);

// --- The rules behind a plan, each measured (docs/PERFORMANCE.md) ---------------------------

// Direct or CG, the same rule on a GPU and on a CPU device (PoCL). The symbolic analysis (its
// AMD ordering: 0.1-0.7 ms at these sizes on the H100 machine's host, 2 ms at 11K nonzeros
// of a 3D grid) runs only for matrices of at most `analyse_up_to_nnz` nonzeros: above it a
// well-conditioned mesh converges with CG in about what the analysis alone costs (3D Poisson
// 12^3: 1.1 ms CG, 1.9 ms analysis), so the analysis would often be paid for nothing. After it,
// direct where the factorisation's predicted flops are at most `direct_up_to_flops`: a host
// LDL^T below that costs about a millisecond, what a device CG solve costs to start (launches
// and round trips: 0.9-1.7 ms on the H100 for the smallest matrices), and on ill-conditioned
// matrices (the bus and stiffness matrices: 400-1400 Jacobi steps) it is 10-40x faster.
inline constexpr std::size_t analyse_up_to_nnz = 10'000;
inline constexpr double direct_up_to_flops = 4e6;
bool worth_analysing(std::size_t rows, std::size_t nnz);
bool direct_pays(const FactorEstimate& factor);

// The preconditioner for CG (docs/PERFORMANCE.md, "Preconditioners"): on a GPU, Chebyshev from
// chebyshev_from_rows rows (4-16% ahead of Jacobi on every Poisson problem measured, set-up
// 2-23 ms), else Jacobi (on small matrices no other set-up and per-step cost paid off on more
// than a few); on a CPU, Jacobi (PoCL runs Chebyshev's extra SpMVs slower than it saves steps).
inline constexpr std::size_t chebyshev_from_rows = 100'000;
// AMG (set up on the device) from amg_from_rows rows where rows are short (at most
// amg_up_to_row_length nonzeros on average: 2D meshes), where Chebyshev's steps grow fastest
// with the grid (as the square root of the rows), and from amg_any_from_rows rows whatever their
// length (3D: steps as the cube root). H100, float64, tol 1e-8, cg-bench time to solution with
// set-up, two runs on each of two machine instances (docs/PERFORMANCE.md, "AMG set up on the
// device", seventh session): 2D Poisson 256^2 (65K rows) Chebyshev 8.1-14.2 ms against AMG's
// 9.9-14.9, 362^2 (131K) AMG 9.2-17.5 against 12.7-21.2; 3D Poisson 112^3 (1.4M) Chebyshev
// 25.9-27.7 against 23.8-32.2, 128^3 (2.1M) AMG 32.4-34.0 against 38.8-39.6 (with the dense
// coarse factor; 43.8-45.6 against 42.1-42.9 before it, on the slower instance), 144^3 AMG
// 43.0-56.9 against 57.6-60.7.
inline constexpr std::size_t amg_from_rows = 120'000;
inline constexpr double amg_up_to_row_length = 6.0;
inline constexpr std::size_t amg_any_from_rows = 1'500'000;
// A near-null space or a block size given (AmgOptions) means a block system such as elasticity,
// where AMG with them takes 15-54 steps and Chebyshev 368-7604 (H100, 2M rows, docs/PERFORMANCE.md):
// AMG from chebyshev_from_rows.
Preconditioner choose_preconditioner(const cl::DeviceInfo& device, std::size_t rows, std::size_t nnz,
                                     const PreconditionerOptions& options = {});

// The precision an unset PreconditionerOptions::precision stands for: float for Chebyshev,
// IC(0) and AMG in a double solve on a GPU from float_apply_from_rows rows, where their applies
// are bandwidth bound and float halves them (CG's steps the same on every mesh problem
// measured); else the solve's own. Below it an apply is latency bound, float saves nothing, and
// on ill-conditioned matrices it costs steps (IC(0) on 1138_bus: 232 instead of 149).
inline constexpr std::size_t float_apply_from_rows = 100'000;
ElementType choose_preconditioner_precision(const cl::DeviceInfo& device, Preconditioner p, ElementType solve,
                                            std::size_t rows);

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
