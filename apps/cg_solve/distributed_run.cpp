#include "distributed_run.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/device.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/solver/distributed/distributed_amg.hpp"
#include "clcg/solver/distributed/distributed_cg.hpp"
#include "clcg/solver/distributed/fixed_order_sum.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/local_rows.hpp"
#include "clcg/solver/distributed/partition.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/io/bulk_vector.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/version.hpp"
#include "cli_options.hpp"
#include "failures.hpp"
#include "inputs.hpp"
#include "report.hpp"

namespace cg_solve {
namespace {

namespace dist = clcg::distributed;
namespace solver = clcg::solver;

struct World {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
};

// A rank's failure in a phase; `echo`: it only follows another rank's (AnotherRankFailed).
struct RankFailure : Failure {
  bool echo = false;
};

// Runs `step` on this rank and catches what it throws, as main() would.
template <class F>
RankFailure attempt(const CliOptions& cli, F&& step) {
  RankFailure failure;
  try {
    step();
  } catch (const dist::AnotherRankFailed&) {
    failure.code = exit_device;
    failure.echo = true;
  } catch (...) {
    static_cast<Failure&>(failure) = describe_failure(std::current_exception(), cli);
  }
  return failure;
}

// Collective, after each phase: the failure of the lowest rank that failed on its own, on every
// rank (code 0: none). Rank 0 prints its one message, naming the rank when it is another.
Failure agree(const World& world, const RankFailure& mine) {
  int first = !mine.code ? 2 * world.size : mine.echo ? world.size + world.rank : world.rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, world.comm);
  if (first == 2 * world.size) return {};
  first %= world.size;
  Failure out = mine;
  MPI_Bcast(&out.code, 1, MPI_INT, first, world.comm);
  int length = int(out.message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, world.comm);
  out.message.resize(std::size_t(length));
  MPI_Bcast(out.message.data(), length, MPI_CHAR, first, world.comm);
  if (world.rank == 0)
    std::cerr << "cg-solve: " << (first > 0 ? "rank " + std::to_string(first) + ": " : "") << out.message << "\n";
  return out;
}

// What runs under MPI: fused or single, with Jacobi, Chebyshev, AMG or nothing (auto: fused, Jacobi). The
// choice never depends on the rank count, so every count runs the same arithmetic.
solver::Settings distributed_settings(const CliOptions& cli, std::int64_t rows) {
  solver::Settings settings;
  settings.tolerance = cli.tolerance;
  settings.max_iterations = std::int64_t(cli.max_iterations.value_or(default_max_iterations(std::size_t(rows))));
  settings.precision = cli.precision;
  settings.record_history = !cli.history.empty();
  settings.should_stop = [] { return interrupted != 0; };
  using solver::Preconditioner;
  switch (cli.preconditioner) {
    case Preconditioner::automatic:
    case Preconditioner::jacobi: settings.preconditioner = Preconditioner::jacobi; break;
    case Preconditioner::none: settings.preconditioner = Preconditioner::none; break;
    case Preconditioner::chebyshev: settings.preconditioner = Preconditioner::chebyshev; break;
    case Preconditioner::amg: settings.preconditioner = Preconditioner::amg; break;
    default:
      throw UsageError("--precond " + std::string(solver::preconditioner_name(cli.preconditioner)) +
                       ": under mpirun cg-solve applies jacobi, chebyshev, amg or none");
  }
  if (cli.precond_options.precision && *cli.precond_options.precision != cli.precision &&
      settings.preconditioner != Preconditioner::amg)
    throw UsageError("--precond-precision: under mpirun only AMG is applied in another precision than the solve's");
  if (cli.near_nullspace.given() && settings.preconditioner != Preconditioner::amg)
    throw UsageError("--block-size sets up AMG: under mpirun give --precond amg (auto is Jacobi there)");
  if (cli.variant == "auto" || cli.variant == "fused") settings.variant = solver::CgVariant::fused;
  else if (cli.variant == "single") settings.variant = solver::CgVariant::single;
  else throw UsageError("--variant " + cli.variant + ": under mpirun cg-solve runs fused or single");
  if (cli.spmv == solver::SpmvKernel::vector) throw UsageError("--spmv vector: under mpirun the rows are read as scalar or ell");
  settings.spmv = cli.spmv;
  if (cli.reference) throw UsageError("--reference runs Eigen on one CPU: not under mpirun");
  if (cli.precond_options.factor != solver::FactorPlace::automatic)
    throw UsageError("--factor places a Cholesky factor: under mpirun there is none (CG on every rank)");
  return settings;
}

// The device of this rank, opened: the node's devices of the kind --device / --platform (or
// CLCG_DEVICE) ask for in turn, an index pinning (clcg::distributed::rank_device). No MPI call:
// it runs on a thread of its own beside the rows' reading (run_ranks).
clcg::cl::Env rank_env(const clcg::cl::DeviceSelector& requested, int node_rank) {
  const clcg::cl::DeviceSelector selector = reading_environment([&] { return dist::rank_device(node_rank, requested); });
  return reading_environment([&] { return clcg::cl::Env::create(selector); });
}

// Rank 0's problem between reading and sending: the whole matrix and the vectors' files.
struct FileProblem {
  solver::MatrixMarketInfo info{};
  solver::HostCsr csr;
  Eigen::VectorXd rhs, x0;  // empty when not given
};

// Sends rank r its rows of `csr` (rank 0 keeps its own), or receives them.
dist::LocalRows distribute_rows(const World& world, const dist::Partition& partition, const solver::HostCsr* csr) {
  dist::LocalRows mine;
  mine.global_rows = partition.rows();
  mine.row_begin = partition.begin(world.rank);
  const auto slice = [&](int r) {
    dist::LocalRows rows;
    const std::int64_t begin = partition.begin(r), end = begin + partition.size(r);
    const std::int64_t first = csr->row_ptr[std::size_t(begin)], last = csr->row_ptr[std::size_t(end)];
    rows.row_ptr.resize(std::size_t(end - begin) + 1);
    for (std::int64_t i = begin; i <= end; ++i) rows.row_ptr[std::size_t(i - begin)] = csr->row_ptr[std::size_t(i)] - first;
    rows.col.assign(csr->col_idx.begin() + first, csr->col_idx.begin() + last);
    rows.values.assign(csr->values.begin() + first, csr->values.begin() + last);
    return rows;
  };
  if (world.rank == 0) {
    for (int r = 1; r < world.size; ++r) {
      const dist::LocalRows rows = slice(r);
      const int count = int(rows.values.size());
      MPI_Send(&count, 1, MPI_INT, r, 1, world.comm);
      MPI_Send(rows.row_ptr.data(), int(rows.row_ptr.size()), MPI_INT64_T, r, 2, world.comm);
      MPI_Send(rows.col.data(), count, MPI_INT64_T, r, 3, world.comm);
      MPI_Send(rows.values.data(), count, MPI_DOUBLE, r, 4, world.comm);
    }
    dist::LocalRows own = slice(0);
    mine.row_ptr = std::move(own.row_ptr);
    mine.col = std::move(own.col);
    mine.values = std::move(own.values);
  } else {
    int count = 0;
    MPI_Recv(&count, 1, MPI_INT, 0, 1, world.comm, MPI_STATUS_IGNORE);
    mine.row_ptr.resize(std::size_t(partition.size(world.rank)) + 1);
    mine.col.resize(std::size_t(count));
    mine.values.resize(std::size_t(count));
    MPI_Recv(mine.row_ptr.data(), int(mine.row_ptr.size()), MPI_INT64_T, 0, 2, world.comm, MPI_STATUS_IGNORE);
    MPI_Recv(mine.col.data(), count, MPI_INT64_T, 0, 3, world.comm, MPI_STATUS_IGNORE);
    MPI_Recv(mine.values.data(), count, MPI_DOUBLE, 0, 4, world.comm, MPI_STATUS_IGNORE);
  }
  return mine;
}

// Rank 0's vector `all` split by the partition: this rank's part (empty `all`: empty parts).
std::vector<double> scatter(const World& world, const dist::Partition& partition, const Eigen::VectorXd& all,
                            bool present) {
  if (!present) return {};
  std::vector<double> mine(std::size_t(partition.size(world.rank)));
  if (world.rank == 0) {
    for (int r = 1; r < world.size; ++r)
      MPI_Send(all.data() + partition.begin(r), int(partition.size(r)), MPI_DOUBLE, r, 5, world.comm);
    std::copy(all.data(), all.data() + mine.size(), mine.begin());
  } else {
    MPI_Recv(mine.data(), int(mine.size()), MPI_DOUBLE, 0, 5, world.comm, MPI_STATUS_IGNORE);
  }
  return mine;
}

// This rank's rows of rank 0's near-null space (k vectors, row-major), column by column
// (collective): what the distributed AMG takes as AmgOptions::near_nullspace.
std::shared_ptr<const solver::NearNullspace> scatter_near_nullspace(const World& world, const dist::Partition& partition,
                                                                    const solver::AmgOptions& amg, std::int64_t k) {
  const std::size_t n = std::size_t(partition.size(world.rank)), columns = std::size_t(k);
  std::vector<double> mine(n * columns);
  for (std::size_t j = 0; j < columns; ++j) {
    Eigen::VectorXd column;
    if (world.rank == 0) {
      column.resize(Eigen::Index(partition.rows()));
      for (Eigen::Index i = 0; i < column.size(); ++i) column[i] = amg.near_nullspace->values[std::size_t(i) * columns + j];
    }
    const std::vector<double> part = scatter(world, partition, column, true);
    for (std::size_t i = 0; i < n; ++i) mine[i * columns + j] = part[i];
  }
  return std::make_shared<const solver::NearNullspace>(solver::NearNullspace{n, columns, std::move(mine)});
}

// Every rank's x on rank 0 (empty elsewhere).
Eigen::VectorXd gather(const World& world, const dist::Partition& partition, std::span<const double> mine) {
  Eigen::VectorXd all;
  if (world.rank == 0) {
    all.resize(Eigen::Index(partition.rows()));
    std::copy(mine.begin(), mine.end(), all.data());
    for (int r = 1; r < world.size; ++r)
      MPI_Recv(all.data() + partition.begin(r), int(partition.size(r)), MPI_DOUBLE, r, 6, world.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(mine.data(), int(mine.size()), MPI_DOUBLE, 0, 6, world.comm);
  }
  return all;
}

// The sum over ranks of term(i) for each rank's rows i < n, the same bits on any rank count:
// each dot chunk's terms added in order (ranks start on chunk boundaries; the chunks on the
// host's threads), the chunks' sums gathered and added in one fixed order, as the distributed
// CG's dots.
template <class Term>
double global_sum(const World& world, std::int64_t chunk, std::size_t n, Term&& term) {
  const std::size_t size = std::size_t(chunk);
  std::vector<double> sums((n + size - 1) / size);
  solver::parallel_for(sums.size(), 1, [&](std::size_t c) {
    double sum = 0;
    for (std::size_t i = c * size; i < std::min(n, (c + 1) * size); ++i) sum += term(i);
    sums[c] = sum;
  });
  const int mine = int(sums.size());
  std::vector<int> counts(std::size_t(world.size)), offsets(std::size_t(world.size), 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, world.comm);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<double> all(std::size_t(offsets.back() + counts.back()));
  MPI_Allgatherv(sums.data(), mine, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, world.comm);
  return dist::fixed_order_sum(all);
}

// One rank's figures for the JSON, gathered on rank 0 (plain data: sent as bytes).
struct RankFigures {
  std::int64_t rows = 0, nnz = 0, first_row = 0, ghosts = 0, neighbours = 0, device_bytes = 0, bytes_per_step = 0;
  double setup_seconds = 0, halo_seconds = 0, allreduce_seconds = 0, partials_seconds = 0, halo_bytes_per_exchange = 0;
  double coarse_seconds = 0;          // AMG: the gathered level's cycles (DistributedAmg::coarse_seconds)
  double transfer_seconds = 0;        // b (and x0) to the device, x back: outside the solve's seconds
  double preconditioner_seconds = 0;  // AMG's set-up (the hierarchy over the ranks, its levels on the device)
  WallTime time;                      // this rank's parts of its wall time, to its report
  std::array<char, 128> device{};
};

// What the report says of the distributed AMG, as of the one-device one: its levels (the
// gathered level's one-device hierarchy included), precision, set-up phases (rank 0's) and the
// slowest rank's set-up.
solver::PreconditionerReport amg_report(const dist::DistributedAmg& amg, double slowest_setup) {
  solver::PreconditionerReport p;
  p.name = "amg";
  p.precision = std::string(clcg::reduction::type_name(amg.precision()));
  p.setup_seconds = slowest_setup;
  p.phases = amg.phases();
  double nnz = 0;
  for (std::size_t l = 0; l < amg.levels(); ++l) {
    p.level_rows.push_back(std::size_t(amg.level_rows()[l]));
    p.level_nnz.push_back(std::size_t(amg.level_nnz()[l]));
    nnz += double(amg.level_nnz()[l]);
  }
  const double finest = amg.level_nnz().empty() ? 0.0 : double(amg.level_nnz().front());
  p.build_seconds = amg.build_seconds();
  p.figures = {{"distributed_levels", double(amg.distributed_levels())},
               {"operator_complexity", finest > 0 ? nnz / finest : 1.0}};
  return p;
}

nlohmann::json rank_json(int rank, const RankFigures& f) {
  return {{"rank", rank},
          {"rows", f.rows},
          {"nnz", f.nnz},
          {"first_row", f.first_row},
          {"ghosts", f.ghosts},
          {"neighbours", f.neighbours},
          {"device", std::string(f.device.data())},
          {"setup_seconds", f.setup_seconds},
          {"halo_seconds", f.halo_seconds},
          {"allreduce_seconds", f.allreduce_seconds},
          {"partials_seconds", f.partials_seconds},
          {"coarse_seconds", f.coarse_seconds},
          {"transfer_seconds", f.transfer_seconds},
          {"halo_bytes_per_exchange", std::int64_t(f.halo_bytes_per_exchange)},
          {"device_bytes", f.device_bytes},
          {"timing", wall_time_json(f.time)},
          {"bytes_per_step", f.bytes_per_step}};
}

int run_ranks(World& world, int argc, char** argv, WallTime& time) {
  CliOptions cli;
  // Phase 1, every rank: the command line (the same everywhere), rank 0's files.
  std::optional<FileProblem> file;
  std::int64_t rows = 0;
  clcg::cl::DeviceSelector requested;
  RankFailure failure = attempt(cli, [&] {
    cli = parse_command_line(argc, argv);
    if (cli.help || cli.version || cli.list_devices) return;
    (void)distributed_settings(cli, 1);  // reject what MPI cannot run before reading anything
    requested = device_selector(cli);
    if (world.rank != 0) return;
    if (cli.generate.empty()) {
      timed(time.read, [&] {
        file.emplace();
        const solver::HostMatrix a = read_problem(cli, file->info);
        file->csr = solver::to_host_csr(a);
        file->rhs = read_vector_option(cli.rhs, a.rows(), "right-hand side");
        file->x0 = read_vector_option(cli.x0, a.rows(), "initial guess");
        rows = a.rows();
      });
    } else {
      rows = cli.problem.rows();
    }
    check_outputs(cli);
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  if (cli.help) return 0;
  if (cli.version) {
    if (world.rank == 0) std::cout << "cg-solve " << clcg::version() << "\n";
    return 0;
  }
  if (cli.list_devices) {
    if (world.rank == 0) std::cerr << "cg-solve: --list-devices: run it without mpirun\n";
    return exit_input;
  }
  // The device opens beside the rows' reading and sending (phase 2): NVIDIA's driver takes 0.2 s
  // a rank to list its devices and make a context, 0.5-1 s where four ranks of a node open at once.
  std::future<clcg::cl::Env> opening =
      std::async(std::launch::async, [requested, place = dist::node_rank(world.comm)] { return rank_env(requested, place); });
  MPI_Bcast(&rows, 1, MPI_INT64_T, 0, world.comm);

  // AMG's nodes and near-null space: rank 0 reads the files for the whole rows, as one device
  // does; every rank learns the block size (no cut may split a node) and the vectors' count, and
  // gets its rows of them with its rows of A.
  solver::PreconditionerOptions precond = cli.precond_options;
  failure = attempt(cli, [&] {
    if (world.rank == 0 && cli.near_nullspace.given())
      clcg::apps::read_near_nullspace(cli.near_nullspace, std::size_t(rows), precond.amg);
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  std::int64_t shape[2] = {precond.amg.block_size,
                           precond.amg.near_nullspace ? std::int64_t(precond.amg.near_nullspace->columns) : 0};
  MPI_Bcast(shape, 2, MPI_INT64_T, 0, world.comm);
  precond.amg.block_size = unsigned(shape[0]);
  const std::int64_t node = shape[0];

  // Phase 2: the partition and each rank's rows (rank 0 sends them, or each rank builds its own).
  dist::Partition partition;
  dist::LocalRows local;
  solver::BulkVector<double> b;  // (b = A 1 of generated rows: set by the generator's threads)
  solver::BulkVector<double> x;  // (left unset until the solve's read back writes it)
  failure = attempt(cli, [&] {
    if (!cli.partition.empty()) {
      try {
        partition = dist::explicit_partition(rows, world.size, dist::parse_cuts(cli.partition), node);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    } else if (!cli.generate.empty()) {
      partition = dist::uniform_partition(rows, world.size, node);
    } else if (world.rank == 0) {  // balanced by nonzeros: rank 0 has the matrix, and broadcasts
      std::vector<std::int64_t> row_ptr(file->csr.row_ptr.begin(), file->csr.row_ptr.end());
      partition = dist::balanced_partition(row_ptr, world.size, node);
    } else {
      partition.offsets.assign(std::size_t(world.size) + 1, 0);
      partition.chunk = dist::dot_chunk(rows);
    }
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  MPI_Bcast(partition.offsets.data(), world.size + 1, MPI_INT64_T, 0, world.comm);
  const bool has_rhs = !cli.rhs.empty(), has_x0 = !cli.x0.empty();
  time.generated = !cli.generate.empty();
  failure = attempt(cli, [&] {
    const WallClock::time_point start = WallClock::now();
    if (cli.generate.empty()) {
      local = distribute_rows(world, partition, world.rank == 0 ? &file->csr : nullptr);
      const std::vector<double> mine = scatter(world, partition, world.rank == 0 ? file->rhs : Eigen::VectorXd(), has_rhs);
      b.assign(mine.begin(), mine.end());
      const std::vector<double> x0 = scatter(world, partition, world.rank == 0 ? file->x0 : Eigen::VectorXd(), has_x0);
      x.assign(x0.begin(), x0.end());
      if (world.rank == 0) file->csr = {};  // rank 0 keeps its share only
    } else {
      const GeneratedProblem& p = cli.problem;
      const std::int64_t begin = partition.begin(world.rank);
      // b = A 1 made with the offsets; the entries left to the set-up, which makes them where it
      // needs them (for AMG: straight into the device upload's pinned memory)
      local = dist::poisson_rows(p.dimensions, p.nx, p.ny, p.nz, begin, begin + partition.size(world.rank),
                                 has_rhs ? nullptr : &b, true);
    }
    if (!has_rhs && cli.generate.empty()) {  // b = A 1
      const std::vector<double> sums = local.row_sums();
      b.assign(sums.begin(), sums.end());
    }
    if (shape[1] > 0) precond.amg.near_nullspace = scatter_near_nullspace(world, partition, precond.amg, shape[1]);
    time.read += WallTime::seconds_since(start);
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  std::int64_t nnz = local.nnz(), first_row = local.row_begin, local_rows = local.rows();
  MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_INT64_T, MPI_SUM, world.comm);

  // Phase 3: this rank's device, the halo, the upload.
  std::optional<clcg::cl::Env> env;
  std::optional<dist::DistributedCg> cg;
  solver::Settings settings = distributed_settings(cli, rows);
  failure = attempt(cli, [&] { timed(time.device_open, [&] { env.emplace(opening.get()); }); });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  // collective inside: all ranks leave it together, the failed ones with their own error
  const double built_before = env->programs().build_seconds();
  double constructed = 0;
  failure = attempt(cli, [&] {
    timed(constructed, [&] {
      cg.emplace(world.comm, *env, partition, std::move(local), cli.precision, settings, precond);
    });
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  // The construction: OpenCL programs (from the disk cache after a first run), AMG's set-up
  // (A's rows to the device among it), the rest (the CG's own copy of A, its halo) is upload.
  time.build = env->programs().build_seconds() - built_before;
  time.setup = cg->amg() ? cg->amg()->setup_seconds() : 0.0;
  time.upload = constructed - time.build - time.setup;

  // Phase 4: the solve (collective inside; a device error mid-solve ends every rank: MPI_Abort).
  solver::SolveInfo info;
  x.resize(std::size_t(local_rows));
  failure = attempt(cli, [&] { info = cg->solve(b, x, has_x0); });
  if (failure.code) {
    std::cerr << "cg-solve: rank " << world.rank << ": " << failure.message << "\n";
    MPI_Abort(world.comm, failure.code);
  }
  if (info.status == solver::Status::interrupted) {
    if (world.rank == 0) std::cerr << "cg-solve: " << info.message << "; no output written\n";
    return exit_interrupted;
  }
  std::optional<double> error_vs_ones;
  if (!has_rhs && rows > 0) {
    const auto square = [&](std::size_t i) { return (x[i] - 1.0) * (x[i] - 1.0); };
    error_vs_ones = std::sqrt(global_sum(world, partition.chunk, x.size(), square) / double(rows));
  }
  const bool write_x = !cli.output.empty() && (info.converged() || cli.output_unconverged);
  const Eigen::VectorXd x_all = write_x ? gather(world, partition, x) : Eigen::VectorXd();

  RankFigures mine;
  const dist::StepTimes& t = cg->times();
  const double per_exchange = t.exchanges ? double(t.halo_bytes) / double(t.exchanges) : 0.0;
  mine.rows = local_rows;
  mine.nnz = cg->nnz();
  mine.first_row = first_row;
  mine.ghosts = cg->halo().ghosts;
  mine.neighbours = std::int64_t(cg->halo().neighbours().size());
  mine.device_bytes = std::int64_t(cg->device_bytes());
  mine.bytes_per_step = std::int64_t(cg->bytes_per_step());
  mine.setup_seconds = cg->setup_seconds();
  mine.preconditioner_seconds = cg->amg() ? cg->amg()->setup_seconds() : 0.0;
  mine.halo_seconds = t.halo;
  mine.allreduce_seconds = t.allreduce;
  mine.partials_seconds = t.partials;
  mine.coarse_seconds = t.coarse;
  mine.transfer_seconds = t.transfer;
  time.solve = info.seconds;
  time.upload += t.transfer;  // b to the device, x back (outside the solve's seconds)
  time.finish();              // (each rank's parts to here; rank 0's go on to the report)
  mine.time = time;
  mine.halo_bytes_per_exchange = per_exchange;
  std::snprintf(mine.device.data(), mine.device.size(), "%s", env->info().name.c_str());
  std::vector<RankFigures> all(world.rank == 0 ? std::size_t(world.size) : 0);
  MPI_Gather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine), MPI_BYTE, 0, world.comm);

  // Phase 5, rank 0: the outputs, the JSON and the summary.
  failure = attempt(cli, [&] {
    if (world.rank != 0) return;
    RunReport report;
    report.options = &cli;
    if (file) report.matrix_info = file->info;
    else report.matrix_info.symmetry = solver::MmSymmetry::symmetric;
    report.rows = report.cols = rows;
    report.nnz = nnz;
    report.device = env->info();
    report.result = info;
    report.max_iterations = settings.iteration_limit(std::size_t(rows));
    report.variant = settings.variant;
    report.preconditioner = settings.preconditioner;
    double amg_setup = 0;
    for (const auto& f : all) amg_setup = std::max(amg_setup, f.preconditioner_seconds);
    if (cg->amg()) report.preconditioner_report = amg_report(*cg->amg(), amg_setup);
    report.error_vs_ones = error_vs_ones;
    report.output_written = write_x;
    timed(time.write, [&] {
      try {
        if (!cli.history.empty()) write_file(cli.history, history_csv(info, {}));
        if (write_x) solver::write_vector_market(cli.output, x_all);
      } catch (const std::runtime_error& e) {
        throw OutputError(e.what());
      }
    });
    time.finish();
    report.time = time;  // rank 0's parts: they add up to its wall time (per_rank: each rank's)
    if (cli.json) {
      nlohmann::json json = to_json(report);
      json["ranks"] = world.size;
      json["distributed"] = {{"dot_chunk", partition.chunk},
                             {"first_rows", partition.offsets},
                             {"row_layout", cg ? cg->row_layout() : "csr"}};
      json["per_rank"] = nlohmann::json::array();
      for (int r = 0; r < world.size; ++r) json["per_rank"].push_back(rank_json(r, all[std::size_t(r)]));
      std::cout << json.dump(2) << std::endl;
      if (!std::cout) throw solver::InputError("standard output", 0, "writing the JSON failed");
    }
    if (!cli.quiet) {
      double halo = 0, allreduce = 0;
      for (const auto& f : all) {
        halo = std::max(halo, f.halo_seconds);
        allreduce = std::max(allreduce, f.allreduce_seconds);
      }
      std::fprintf(stderr, "%s  %d ranks: halo exchange %.3f s, allreduce %.3f s (slowest rank)\n",
                   human_summary(report).c_str(), world.size, halo, allreduce);
    } else {
      std::fputs(failure_reason(report).c_str(), stderr);  // --quiet drops the summary, not the reason
    }
  });
  if (Failure agreed = agree(world, failure); agreed.code) return agreed.code;
  return info.converged() ? exit_converged : exit_not_converged;
}

}  // namespace

int run_distributed(int argc, char** argv, WallClock::time_point process_start) {
  WallTime time;
  time.process_start = process_start;
  time.distributed = true;
  timed(time.mpi_init, [&] {
    MPI_Init(&argc, &argv);
    dist::share_host_threads(MPI_COMM_WORLD);
  });
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  World world;
  MPI_Comm_rank(world.comm, &world.rank);
  MPI_Comm_size(world.comm, &world.size);
  // Rank 0 alone prints: the others' stdout (help text, JSON) goes nowhere; stderr stays for
  // a rank that must abort with its own message.
  if (world.rank != 0 && !std::freopen("/dev/null", "w", stdout)) return exit_device;
  const int code = run_ranks(world, argc, argv, time);
  MPI_Finalize();
  return code;
}

}  // namespace cg_solve
