#include "clcg/solver/distributed/distributed_cg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"
#include "clcg/solver/distributed/amg_hierarchy.hpp"
#include "clcg/solver/distributed/distributed_amg.hpp"
#include "clcg/solver/distributed/fixed_order_sum.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/distributed/rank_failure.hpp"
#include "clcg/solver/distributed/wall_clock.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/krylov/plan.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "clcg/solver/sparse/conversion.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "clcg/solver/sparse/launch.hpp"
#include "clcg/solver/sparse/spmv.hpp"

namespace clcg::distributed {
namespace {

constexpr std::size_t upload_piece = std::size_t(1) << 30;  // bytes per write: large arrays go in pieces

// A device buffer holding `values` (64-bit ints, 32-bit ints or reals as `type`), written in pieces.
template <class T>
void write_pieces(const cl::Env& env, const ::cl::Buffer& buffer, const T* data, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  for (std::size_t at = 0; at < bytes; at += upload_piece)
    env.queue().enqueueWriteBuffer(buffer, CL_TRUE, at, std::min(upload_piece, bytes - at),
                                   reinterpret_cast<const unsigned char*>(data) + at);
}

template <class Vector>  // a std::vector or a solver::BulkVector
::cl::Buffer device_array(const cl::Env& env, const Vector& values, const char* what) {
  return cl::checked(std::string("uploading ") + what, [&] {
    ::cl::Buffer buffer(env.context(), CL_MEM_READ_ONLY,
                        std::max<std::size_t>(1, values.size() * sizeof(typename Vector::value_type)));
    write_pieces(env, buffer, values.data(), values.size());
    return buffer;
  });
}

template <class Vector>
::cl::Buffer device_reals(const cl::Env& env, const Vector& values, ElementType type, const char* what) {
  if (type == ElementType::f64) return device_array(env, values, what);
  const std::vector<float> narrow(values.begin(), values.end());
  return device_array(env, narrow, what);
}

// max over these rows of sum_j |a_ij| / a_ii: a bound on the eigenvalues of D^-1 A (Gershgorin,
// on the similar D^-1/2 A D^-1/2). A row without a positive diagonal gives +Inf.
double gershgorin_bound(const LocalRows& rows, const std::vector<double>& diagonal) {
  double bound = 0;
  for (std::size_t i = 0; i < diagonal.size(); ++i) {
    double sum = 0;
    for (std::int64_t j = rows.row_ptr[i]; j < rows.row_ptr[i + 1]; ++j) sum += std::fabs(rows.values[std::size_t(j)]);
    bound = std::max(bound, diagonal[i] > 0 ? sum / diagonal[i] : std::numeric_limits<double>::infinity());
  }
  return bound;
}

// The passes of kernels/distributed.cl's row kernels.
constexpr cl_uint all_rows = 0, interior_rows = 1, boundary_rows = 2;

}  // namespace

DistributedCg::DistributedCg(MPI_Comm comm, const cl::Env& env, const Partition& partition, LocalRows rows,
                             ElementType type, const solver::Settings& settings,
                             const solver::PreconditionerOptions& options)
    : comm_(comm), env_(env), type_(type), settings_(settings), partition_(partition), options_(options),
      chebyshev_(options.chebyshev) {
  const auto start = Clock::now();
  set_up(std::move(rows));
  setup_seconds_ = since(start) - (amg_ ? amg_->setup_seconds() : 0.0);  // AMG's is the preconditioner's set-up
}

void DistributedCg::update_values(LocalRows rows) {
  const auto start = Clock::now();
  throw_if_any_rank_failed(comm_, capture([&] {
    const int rank = comm_rank(comm_);
    if (rows.global_rows != global_rows_ || rows.row_begin != partition_.begin(rank) || rows.rows() != rows_)
      throw std::invalid_argument("new values for rows " + std::to_string(rows.row_begin) + " to " +
                                  std::to_string(rows.row_begin + rows.rows()) + " of " +
                                  std::to_string(rows.global_rows) + " on rank " + std::to_string(rank) +
                                  ", which holds rows " + std::to_string(partition_.begin(rank)) + " to " +
                                  std::to_string(partition_.begin(rank) + rows_) + " of " +
                                  std::to_string(global_rows_));
  }));
  // The device's arrays go before the new ones come (the AMG's levels in its update).
  for (::cl::Buffer* b : {&row_ptr_, &col_, &values_, &boundary_, &chunk_flag_, &chunk_list_, &inv_diag_, &cheb_d_,
                          &cheb_w_, &r_, &z_, &p_, &p_old_, &q_, &s_, &b_, &x_, &partials_})
    *b = ::cl::Buffer();
  exchange_.reset();
  set_up(std::move(rows));
  update_seconds_ = since(start);
}

void DistributedCg::set_up(LocalRows rows) {
  const Partition& partition = partition_;
  const solver::PreconditionerOptions& options = options_;
  std::vector<double> diagonal;
  solver::BulkVector<std::int32_t> local_col;
  std::int64_t longest = 0;
  double gershgorin = 0;
  throw_if_any_rank_failed(comm_, capture([&] {
    using solver::CgVariant;
    using solver::Preconditioner;
    if (settings_.variant != CgVariant::fused && settings_.variant != CgVariant::single)
      throw std::invalid_argument("the distributed solver runs the fused and single variants");
    if (settings_.preconditioner != Preconditioner::none && settings_.preconditioner != Preconditioner::jacobi &&
        settings_.preconditioner != Preconditioner::chebyshev && settings_.preconditioner != Preconditioner::amg)
      throw std::invalid_argument("the distributed solver applies no preconditioner, Jacobi or Chebyshev");
    if (settings_.preconditioner == Preconditioner::chebyshev && (chebyshev_.degree < 1 || !(chebyshev_.lower_ratio > 1)))
      throw std::invalid_argument("Chebyshev needs a degree of at least 1 and a lower ratio above 1");
    if (options.precision && *options.precision != type_ && settings_.preconditioner != Preconditioner::amg)
      throw std::invalid_argument("under mpirun only AMG is applied in another precision than the solve's");
    if (settings_.spmv == solver::SpmvKernel::vector)
      throw std::invalid_argument("the distributed solver reads its rows as CSR (scalar) or ELL, not the vector layout");
    solver::require_precision(env_.info(), type_);
    // Rows with their entries pending (a generator's) go as they are to an AMG set-up that makes
    // them straight into its upload; every other pass reads them on the host.
    if (settings_.preconditioner != Preconditioner::amg || hierarchy_reads_entries(options.amg, partition.rows()))
      rows.make();
    rows_ = rows.rows();
    global_rows_ = partition.rows();
    nnz_ = rows.nnz();
    chunk_ = partition.chunk;
    element_ = reduction::element_size(type_);
    if (settings_.preconditioner == Preconditioner::jacobi || settings_.preconditioner == Preconditioner::chebyshev)
      diagonal = rows.diagonal();  // before build_halo frees the global columns
    longest = longest_row(rows.row_ptr);
    if (settings_.preconditioner == Preconditioner::chebyshev) gershgorin = gershgorin_bound(rows, diagonal);
  }));
  if (settings_.preconditioner == solver::Preconditioner::chebyshev) {
    // The polynomial's interval: [upper / lower_ratio, upper], upper the largest row bound over the ranks.
    double upper = 0;
    MPI_Allreduce(&gershgorin, &upper, 1, MPI_DOUBLE, MPI_MAX, comm_);
    if (!(upper > 0)) upper = 1;
    const double lower = upper / chebyshev_.lower_ratio;
    theta_ = 0.5 * (upper + lower);
    delta_ = 0.5 * (upper - lower);
  }
  rank_chunks_.clear();
  for (int r = 0; r < partition.ranks(); ++r)
    rank_chunks_.push_back(std::int64_t((partition.size(r) + chunk_ - 1) / chunk_));
  ell_ = choose_ell(longest);
  dot_wg_ = std::size_t(std::min<std::int64_t>(256, chunk_));
  const auto take = [&](const RankSetup::Rows& a) { return take_rows(a); };
  if (settings_.preconditioner == solver::Preconditioner::amg && amg_)  // an update: the aggregates kept
    amg_->update_values(rows, take);
  else if (settings_.preconditioner == solver::Preconditioner::amg)  // A and its halo made from the set-up's on the device
    amg_ = std::make_unique<DistributedAmg>(comm_, env_, partition, rows, type_, amg_precision(options), options.amg, take);
  else
    halo_ = build_halo(comm_, partition, rows, local_col);
  solver::BulkVector<std::int64_t>().swap(rows.col);  // the global columns are no longer needed
  // Device work, local to this rank; all ranks leave together if one fails.
  throw_if_any_rank_failed(comm_, capture([&] { upload(rows, diagonal, local_col); }));
}

DistributedCg::~DistributedCg() = default;

ElementType DistributedCg::amg_precision(const solver::PreconditionerOptions& options) const {
  // The one-device rule on the global size; the same on every rank (double where any rank says so).
  int f64 = options.precision ? *options.precision == ElementType::f64
                              : solver::choose_preconditioner_precision(env_.info(), solver::Preconditioner::amg, type_,
                                                                        std::size_t(global_rows_), options) ==
                                    ElementType::f64;
  int any = 0;
  MPI_Allreduce(&f64, &any, 1, MPI_INT, MPI_MAX, comm_);
  if (any && type_ == ElementType::f32)
    throw std::invalid_argument("AMG in double for a solve in float: solve in double, or apply AMG in float");
  return any ? ElementType::f64 : ElementType::f32;
}

bool DistributedCg::choose_ell(std::int64_t longest) {
  std::int64_t global_longest = 0, global_nnz = 0;
  MPI_Allreduce(&longest, &global_longest, 1, MPI_INT64_T, MPI_MAX, comm_);
  MPI_Allreduce(&nnz_, &global_nnz, 1, MPI_INT64_T, MPI_SUM, comm_);
  int wanted = 0;
  if (settings_.spmv == solver::SpmvKernel::ell) wanted = 1;
  else if (settings_.spmv == solver::SpmvKernel::automatic)  // the one-device rule, on the global rows
    wanted = !cl::contiguous_blocks(env_.info()) && global_rows_ > 0 &&
             solver::ell_suits(global_longest, double(global_nnz) / double(global_rows_));
  int everywhere = 0;  // one layout for all ranks: the same padding, the same bits
  MPI_Allreduce(&wanted, &everywhere, 1, MPI_INT, MPI_MIN, comm_);
  ell_width_ = unsigned(global_longest);
  return everywhere != 0;
}

void DistributedCg::upload(LocalRows& rows, const std::vector<double>& diagonal,
                           solver::BulkVector<std::int32_t>& local_col) {
  using solver::Preconditioner;
  ops_.emplace(env_, type_);
  const bool jacobi = settings_.preconditioner == Preconditioner::jacobi;
  const bool chebyshev = settings_.preconditioner == Preconditioner::chebyshev;
  const bool amg = settings_.preconditioner == Preconditioner::amg;
  const bool single = settings_.variant == solver::CgVariant::single;
  const std::uint64_t n = std::uint64_t(rows_), extended = n + std::uint64_t(halo_.ghosts);
  const std::uint64_t groups = (n + std::uint64_t(chunk_) - 1) / std::uint64_t(chunk_);
  stored_ = ell_ ? n * ell_width_ : std::uint64_t(nnz_);
  const std::uint64_t extended_vectors = 3 + (jacobi || chebyshev ? 1 : 0) + (single ? 0 : 1);  // x r p (z) (p_old)
  const std::uint64_t row_vectors = 2 + (single ? 1 : 0) + (chebyshev ? 2 : 0);  // q b (s) (Chebyshev's d, w)
  device_bytes_ = (ell_ ? 0 : 8 * (n + 1)) + stored_ * (4 + element_) + n + groups +  // (the boundary rows, chunks)
                  4 * std::uint64_t(halo_.send_count()) +
                  element_ * (extended_vectors * extended + row_vectors * n + 3 * groups +
                              std::uint64_t(halo_.send_count()) + (jacobi || chebyshev ? n : 0));
  const std::uint64_t amg_bytes = amg_ ? amg_->device_bytes() : 0;  // allocated already
  solver::check_device_memory(env_.info(), device_bytes_ + amg_bytes,
                              std::max({8 * (n + 1), stored_ * 4, stored_ * element_}),
                              "distributed CG (this rank's rows" + std::string(amg_ ? " and its AMG hierarchy)" : ")"));
  device_bytes_ += amg_bytes;

  const std::string dot_options = kernel_options();
  spmv_kernel_ = env_.kernel("distributed.cl", "spmv_rows", dot_options);
  direction_kernel_ = env_.kernel("distributed.cl", "direction_spmv", dot_options);
  ghost_kernel_ = env_.kernel("distributed.cl", "ghost_direction", dot_options);
  update_kernel_ = env_.kernel("distributed.cl", "update_residual", dot_options);
  dots_kernel_ = env_.kernel("distributed.cl", "chunk_dots", dot_options);
  if (chebyshev) {
    cheb_start_ = env_.kernel("distributed.cl", "chebyshev_start", dot_options);
    cheb_update_ = env_.kernel("distributed.cl", "chebyshev_update", dot_options);
  }

  if (!amg_ && ell_) {  // (with AMG the rows are made from the set-up's: take_rows)
    upload_ell(rows, local_col);
    row_ptr_ = unused_offsets();
  } else if (!amg_) {
    row_ptr_ = device_array(env_, rows.row_ptr, "the row offsets");
    col_ = device_array(env_, local_col, "the column indices");
    values_ = device_reals(env_, rows.values, type_, "the matrix values");
  }
  solver::BulkVector<std::int64_t>().swap(rows.row_ptr);
  solver::BulkVector<std::int32_t>().swap(local_col);
  solver::BulkVector<double>().swap(rows.values);
  if (!amg_) boundary_ = device_array(env_, halo_.boundary.empty() ? std::vector<std::uint8_t>{0} : halo_.boundary,
                                      "the boundary rows");  // (with AMG: made on the device, take_rows)
  std::vector<std::uint8_t>().swap(halo_.boundary);
  {  // the chunks holding a boundary row, flagged on the device: the boundary passes visit only them
    chunk_flag_ = ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, std::size_t(std::max<std::uint64_t>(groups, 1)));
    env_.queue().enqueueFillBuffer(chunk_flag_, cl_uchar(0), 0, std::size_t(std::max<std::uint64_t>(groups, 1)));
    ::cl::Kernel flags = env_.kernel("distributed.cl", "boundary_chunks", dot_options);
    flags.setArg(0, cl_uint(n));
    flags.setArg(1, boundary_);
    flags.setArg(2, chunk_flag_);
    solver::enqueue_grid_stride(env_, flags, "boundary_chunks", std::size_t(n), solver::vector_ops_group);
    std::vector<std::uint8_t> flag(static_cast<std::size_t>(groups));
    if (groups) env_.queue().enqueueReadBuffer(chunk_flag_, CL_TRUE, 0, flag.size(), flag.data());
    std::vector<std::uint32_t> list;
    for (std::size_t c = 0; c < flag.size(); ++c)
      if (flag[c]) list.push_back(std::uint32_t(c));
    boundary_chunks_ = list.size();
    if (list.empty()) list.push_back(0);
    chunk_list_ = device_array(env_, list, "the boundary chunks");
  }
  exchange_.emplace(comm_, env_, halo_, rows_, type_);
  if (jacobi || chebyshev) {
    std::vector<double> inverse(diagonal.size());
    for (std::size_t i = 0; i < inverse.size(); ++i) inverse[i] = 1.0 / diagonal[i];  // 0 -> Inf: breakdown shows
    inv_diag_ = device_reals(env_, inverse, type_, "the inverse diagonal");
  } else {
    inv_diag_ = solver::make_vector(env_, type_, 1);  // an argument the kernels never read
  }
  const auto vector = [&](std::uint64_t count) { return solver::make_vector(env_, type_, std::size_t(count)); };
  x_ = vector(extended);
  r_ = vector(extended);
  p_ = vector(extended);
  z_ = jacobi || chebyshev || amg ? vector(extended) : r_;  // none: z is r
  if (chebyshev) {
    cheb_d_ = vector(n);
    cheb_w_ = vector(n);
  }
  if (!single) p_old_ = vector(extended);
  q_ = vector(n);
  if (single) s_ = vector(n);
  b_ = vector(n);
  partials_ = vector(3 * std::max<std::uint64_t>(groups, 1));
  partials_host_ = cl::PinnedBuffer(env_, std::size_t(3 * std::max<std::uint64_t>(groups, 1)) * element_);
  cl::checked("finishing the upload", [&] { env_.queue().finish(); });
}

std::string DistributedCg::kernel_options() const {
  return solver::real_build_options(type_) + " -D CHUNK=" + std::to_string(chunk_) + " -D DOT_WG=" +
         std::to_string(dot_wg_) + (ell_ ? " -D ELL_LAYOUT" : "");
}

::cl::Buffer DistributedCg::unused_offsets() const {
  return device_array(env_, std::vector<std::int64_t>{0}, "the row offsets");  // ELL reads none
}

std::optional<DistributedAmg::FinestEll> DistributedCg::take_rows(const RankSetup::Rows& a) {
  // The same halo and local columns as build_halo's: the set-up's upload made them so.
  halo_ = a.halo;
  const std::size_t n = std::size_t(rows_);
  const std::string options = kernel_options();
  const auto kernel = [&](const char* name) { return env_.kernel("distributed.cl", name, options); };
  cl::checked("making the distributed CG's rows from the AMG set-up's", [&] {
    const solver::DeviceCsrMatrix m =
        type_ == ElementType::f64 ? a.matrix : solver::with_value_type(env_, a.matrix, type_);
    boundary_ = ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(1, n));
    ::cl::Kernel ghost_rows = kernel("ghost_rows");
    ghost_rows.setArg(0, cl_uint(n));
    ghost_rows.setArg(1, cl_int(a.owned));
    ghost_rows.setArg(2, m.row_offsets());
    ghost_rows.setArg(3, m.col_idx());
    ghost_rows.setArg(4, boundary_);
    solver::enqueue_grid_stride(env_, ghost_rows, "ghost_rows", n, solver::vector_ops_group);
    if (ell_) {
      const std::size_t slots = std::max<std::size_t>(1, n * ell_width_);
      col_ = solver::make_index_buffer(env_, slots);
      values_ = solver::make_vector(env_, type_, slots);
      // the one-device ELL copy's kernel, at the width every rank reads (its zero padding adds nothing)
      ::cl::Kernel ell = env_.kernel("spmv_ell.cl", "csr_to_ell", solver::real_build_options(type_));
      ell.setArg(0, cl_uint(n));
      ell.setArg(1, cl_uint(ell_width_));
      ell.setArg(2, m.row_offsets());
      ell.setArg(3, m.col_idx());
      ell.setArg(4, m.values());
      ell.setArg(5, cl_int(1));
      ell.setArg(6, col_);
      ell.setArg(7, values_);
      solver::enqueue_csr_to_ell(env_, ell, n);
      row_ptr_ = unused_offsets();
    } else {  // the set-up's columns and values as they are (values converted above for a float solve)
      row_ptr_ = ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_ulong));
      ::cl::Kernel widened = kernel("widened_offsets");
      widened.setArg(0, cl_uint(n + 1));
      widened.setArg(1, m.row_offsets());
      widened.setArg(2, row_ptr_);
      solver::enqueue_grid_stride(env_, widened, "widened_offsets", n + 1, solver::vector_ops_group);
      col_ = m.col_idx();
      values_ = m.values();
    }
    env_.queue().finish();
  });
  if (!ell_) return std::nullopt;
  return DistributedAmg::FinestEll{col_, values_, type_, ell_width_};
}

void DistributedCg::upload_ell(const LocalRows& rows, const solver::BulkVector<std::int32_t>& local_col) {
  // Slot by slot (column-major), so the host holds one slot of the copy at a time.
  const std::size_t n = std::size_t(rows_);
  cl::checked("uploading the ELL copy of the rows", [&] {
    col_ = ::cl::Buffer(env_.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(1, std::size_t(stored_) * 4));
    values_ = ::cl::Buffer(env_.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(1, std::size_t(stored_) * element_));
    std::vector<std::int32_t> columns(n);
    std::vector<double> values(n);
    std::vector<float> narrow(type_ == ElementType::f32 ? n : 0);
    const unsigned threads = solver::threads_for(n, std::size_t(1) << 16);
    for (unsigned k = 0; k < ell_width_; ++k) {
      solver::parallel_ranges(n, threads, [&](std::size_t first, std::size_t last, unsigned) {
        for (std::size_t i = first; i < last; ++i) {
          const std::int64_t j = rows.row_ptr[i] + std::int64_t(k);
          const bool stored = j < rows.row_ptr[i + 1];
          columns[i] = stored ? local_col[std::size_t(j)] : std::int32_t(i);  // padding: 0 on the row's own column
          values[i] = stored ? rows.values[std::size_t(j)] : 0.0;
        }
      });
      env_.queue().enqueueWriteBuffer(col_, CL_TRUE, std::size_t(k) * n * 4, n * 4, columns.data());
      if (type_ == ElementType::f64) {
        env_.queue().enqueueWriteBuffer(values_, CL_TRUE, std::size_t(k) * n * 8, n * 8, values.data());
      } else {
        std::copy(values.begin(), values.end(), narrow.begin());
        env_.queue().enqueueWriteBuffer(values_, CL_TRUE, std::size_t(k) * n * 4, n * 4, narrow.data());
      }
    }
  });
}

std::uint64_t DistributedCg::bytes_per_step() const noexcept {
  // The matrix once a SpMV (CSR: its 8-byte offsets too), then the vectors kernel by kernel (e
  // = element bytes), each operand once: fused: z, p_old, x read, p, q, x written 6; r, q read,
  // r written, with Jacobi D read and z written 5 (3 without): 11 n e; single: SpMV x read, y
  // written 2, three dots 3, p and s updates 6, x and r updates 6, z = D r 3: 20 n e (17
  // without z = D r). Chebyshev adds to the step without a preconditioner its start (D, r
  // read, d, z written 4), per further SpMV z read and w written 2 and the update 7 (D, r, w,
  // d, z read, d, z written), and in fused the dots r.z and r.r 2.
  const std::uint64_t n = std::uint64_t(rows_), e = element_;
  const bool single = settings_.variant == solver::CgVariant::single;
  const std::uint64_t matrix = (ell_ ? 0 : 8 * n) + stored_ * (4 + e);
  std::uint64_t passes = single ? 17 : 9, spmvs = 1;
  if (settings_.preconditioner == solver::Preconditioner::jacobi) passes += single ? 3 : 2;
  if (settings_.preconditioner == solver::Preconditioner::chebyshev) {
    spmvs += chebyshev_.degree - 1;
    passes += 4 + 9 * (chebyshev_.degree - 1) + (single ? 0 : 2);
  }
  // Split rows: the interior pass reads the mask, the boundary pass the chunks it visits again.
  const std::uint64_t split =
      boundary_chunks_ ? n + std::uint64_t(boundary_chunks_) * std::uint64_t(chunk_) * 2 * e : 0;
  // AMG: its cycle, and z = M^-1 r and its dots split from pass 2 as with Chebyshev (r, z read).
  const std::uint64_t amg = amg_ ? amg_->bytes_per_apply() + (single ? 0 : 2) * n * e : 0;
  return spmvs * (matrix + split) + passes * n * e + amg;
}

std::size_t DistributedCg::local_chunks() const noexcept { return std::size_t((rows_ + chunk_ - 1) / chunk_); }

cl_uint DistributedCg::first_pass() const noexcept { return boundary_chunks_ > 0 ? interior_rows : all_rows; }

std::size_t DistributedCg::set_rows_args(::cl::Kernel& kernel, cl_uint pass) {
  kernel.setArg(0, cl_uint(rows_));
  kernel.setArg(1, cl_uint(ell_width_));
  kernel.setArg(2, row_ptr_);
  kernel.setArg(3, col_);
  kernel.setArg(4, values_);
  kernel.setArg(5, pass);
  kernel.setArg(6, boundary_);
  kernel.setArg(7, chunk_flag_);
  kernel.setArg(8, chunk_list_);
  kernel.setArg(9, cl_uint(boundary_chunks_));
  return pass == boundary_rows ? boundary_chunks_ : local_chunks();
}

void DistributedCg::spmv(::cl::Buffer& x, ::cl::Buffer& y) {
  exchange_->start(x);
  const auto rows = [&](cl_uint pass) {
    const std::size_t groups = set_rows_args(spmv_kernel_, pass);
    spmv_kernel_.setArg(10, x);
    spmv_kernel_.setArg(11, y);
    solver::enqueue_groups(env_, spmv_kernel_, "spmv_rows", groups, dot_wg_);
  };
  rows(first_pass());  // the interior rows run while the ghosts travel
  exchange_->finish(x);
  if (first_pass() == interior_rows) rows(boundary_rows);
}

std::vector<double> DistributedCg::dots(const std::vector<std::pair<const ::cl::Buffer*, const ::cl::Buffer*>>& pairs,
                                        bool* stop) {
  const std::size_t count = pairs.size();
  const std::size_t groups = local_chunks();
  dots_kernel_.setArg(0, cl_ulong(rows_));
  dots_kernel_.setArg(1, cl_uint(count));
  for (std::size_t d = 0; d < 3; ++d) {
    const auto& pair = pairs[std::min(d, count - 1)];
    dots_kernel_.setArg(cl_uint(2 + 2 * d), *pair.first);
    dots_kernel_.setArg(cl_uint(3 + 2 * d), *pair.second);
  }
  dots_kernel_.setArg(8, partials_);
  solver::enqueue_groups(env_, dots_kernel_, "chunk_dots", groups, dot_wg_);
  return sum_partials(count, stop);
}

std::vector<double> DistributedCg::sum_partials(std::size_t count, bool* stop) {
  const std::size_t chunks = local_chunks();
  const auto waited = Clock::now();
  if (chunks > 0)
    env_.queue().enqueueReadBuffer(partials_, CL_TRUE, 0, count * chunks * element_, partials_host_.data());
  else
    env_.queue().finish();
  times_.partials += since(waited);
  exchange_->post();  // a started exchange travels during the sums and the gather
  // Every rank gets every chunk's partials (in chunk order, since the ranks hold consecutive
  // chunks), then one flag a rank: should_stop.
  std::vector<double> mine(count * chunks + 1);
  for (std::size_t i = 0; i + 1 < mine.size(); ++i)
    mine[i] = type_ == ElementType::f64 ? reinterpret_cast<const double*>(partials_host_.data())[i]
                                        : double(reinterpret_cast<const float*>(partials_host_.data())[i]);
  mine.back() = stop && settings_.should_stop && settings_.should_stop() ? 1.0 : 0.0;
  const std::size_t ranks = rank_chunks_.size();
  std::vector<int> counts(ranks), offsets(ranks);
  for (std::size_t r = 0, at = 0; r < ranks; ++r) {
    counts[r] = int(count * std::size_t(rank_chunks_[r]) + 1);
    offsets[r] = int(at);
    at += std::size_t(counts[r]);
  }
  std::vector<double> all(std::size_t(offsets.back() + counts.back()));
  const auto gathered = Clock::now();
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                 comm_);
  times_.allreduce += since(gathered);
  times_.allreduces += 1;
  std::vector<double> out(count), dot;
  for (std::size_t d = 0; d < count; ++d) {
    dot.clear();
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto first = all.begin() + offsets[r] + std::ptrdiff_t(d) * rank_chunks_[r];
      dot.insert(dot.end(), first, first + rank_chunks_[r]);
    }
    out[d] = fixed_order_sum(dot);
  }
  if (stop) {
    *stop = false;
    for (std::size_t r = 0; r < ranks; ++r) *stop = *stop || all[std::size_t(offsets[r] + counts[r] - 1)] > 0;
  }
  return out;
}

void DistributedCg::precondition(const ::cl::Buffer& r, ::cl::Buffer& z) {
  const std::size_t n = std::size_t(rows_);
  if (settings_.preconditioner == solver::Preconditioner::jacobi) ops_->diag_mul(n, inv_diag_, r, z);
  if (amg_) amg_->apply(r, z);
  if (settings_.preconditioner != solver::Preconditioner::chebyshev) return;
  // ChebyshevSmoother::apply from a zero guess, its fused SpMV step split around the
  // distributed SpMV: d = D^-1 r / theta, z = d; then degree - 1 times w = A z,
  // d = c_d d + c_r D^-1 (r - w), z += d.
  const double sigma = theta_ / delta_;
  double rho = 1 / sigma;
  cheb_start_.setArg(0, cl_uint(n));
  solver::set_real_arg(cheb_start_, 1, type_, 1 / theta_);
  cheb_start_.setArg(2, inv_diag_);
  cheb_start_.setArg(3, r);
  cheb_start_.setArg(4, cheb_d_);
  cheb_start_.setArg(5, z);
  solver::enqueue_grid_stride(env_, cheb_start_, "chebyshev_start", n, solver::vector_ops_group);
  for (unsigned k = 1; k < chebyshev_.degree; ++k) {
    spmv(z, cheb_w_);
    const double rho_next = 1 / (2 * sigma - rho);
    cheb_update_.setArg(0, cl_uint(n));
    solver::set_real_arg(cheb_update_, 1, type_, rho_next * rho);
    solver::set_real_arg(cheb_update_, 2, type_, 2 * rho_next / delta_);
    cheb_update_.setArg(3, inv_diag_);
    cheb_update_.setArg(4, r);
    cheb_update_.setArg(5, cheb_w_);
    cheb_update_.setArg(6, cheb_d_);
    cheb_update_.setArg(7, z);
    solver::enqueue_grid_stride(env_, cheb_update_, "chebyshev_update", n, solver::vector_ops_group);
    rho = rho_next;
  }
}

solver::SolveInfo DistributedCg::solve(const std::vector<double>& b, std::vector<double>& x, bool use_guess) {
  if (!use_guess) x.resize(std::size_t(rows_));
  return solve(std::span<const double>(b), std::span<double>(x), use_guess);
}

solver::SolveInfo DistributedCg::solve(std::span<const double> b, std::span<double> x, bool use_guess) {
  using solver::Status;
  if (b.size() != std::size_t(rows_) || x.size() != std::size_t(rows_))
    throw std::invalid_argument("b and x must hold this rank's " + std::to_string(rows_) + " rows");
  times_ = {};
  exchange_->reset_times();
  if (amg_) amg_->reset_times();
  const std::size_t n = std::size_t(rows_);
  const std::size_t limit = settings_.iteration_limit(std::size_t(global_rows_));  // the same on every rank
  solver::SolveInfo info;
  // b (and x0) cross to the device first and x back last, outside the solve's time (as the
  // one-device solver counts them: the upload, the read back).
  const auto uploading = Clock::now();
  if (n) {
    solver::upload_vector(env_, b, type_, b_);
    if (use_guess) solver::upload_vector(env_, x, type_, x_);
  }
  times_.transfer = since(uploading);
  const auto start = Clock::now();
  cl::checked("the distributed solve", [&] {
    if (n && !use_guess) ops_->fill(n, 0.0, x_);
    // r = b - A x
    if (use_guess) {
      spmv(x_, q_);
      ops_->axpby_to(n, 1.0, b_, -1.0, q_, r_);
    } else {
      ops_->copy(n, b_, r_);
    }
    const double norm_b = std::sqrt(dots({{&b_, &b_}})[0]);
    if (!std::isfinite(norm_b)) {
      info.status = Status::non_finite;
      info.message = "b holds NaN or Inf";
    } else if (norm_b == 0) {
      ops_->fill(n, 0.0, x_);
      info.status = Status::converged;
      info.message = "b = 0: x = 0";
    } else {
      precondition(r_, z_);
      const auto steps = Clock::now();
      if (settings_.variant == solver::CgVariant::single) single_steps(limit, norm_b, start, info);
      else fused_steps(limit, norm_b, start, info);
      env_.queue().finish();
      times_.steps = since(steps);
    }
  });
  cl::checked("the true residual", [&] {
    spmv(x_, q_);
    ops_->axpby_to(n, 1.0, b_, -1.0, q_, q_);  // q = b - A x
    const auto d = dots({{&q_, &q_}, {&b_, &b_}});
    info.true_residual = d[1] > 0 ? std::sqrt(d[0] / d[1]) : 0.0;
    env_.queue().finish();
  });
  info.seconds = since(start);
  const auto downloading = Clock::now();
  solver::download_vector(env_, x_, type_, x);
  times_.transfer += since(downloading);
  times_.halo = exchange_->times().seconds + (amg_ ? amg_->halo_seconds() : 0.0);
  times_.coarse = amg_ ? amg_->coarse_seconds() : 0.0;
  times_.exchanges = exchange_->times().exchanges;
  times_.halo_bytes = exchange_->times().bytes;
  return info;
}

// The convergence test and bookkeeping every step starts with: true where the solve ends
// (info says why).
bool DistributedCg::step_ends(std::size_t k, std::size_t limit, double norm_b, double rr, double rz, double alpha,
                              double beta, bool stop, Clock::time_point start, solver::SolveInfo& info) {
  using solver::Status;
  const auto end = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
    return true;
  };
  info.iterations = k;
  info.recursive_residual = std::sqrt(rr) / norm_b;
  if (settings_.record_history && k > 0) info.history.push_back({k, info.recursive_residual, alpha, beta, since(start)});
  if (settings_.on_iteration && k > 0) settings_.on_iteration(k, info.recursive_residual);
  if (!std::isfinite(info.recursive_residual) || !std::isfinite(rz))
    return end(Status::non_finite, "NaN or Inf in the residual at iteration " + std::to_string(k));
  if (info.recursive_residual <= settings_.tolerance)
    return end(Status::converged, "converged in " + std::to_string(k) + " iterations");
  if (k >= limit) return end(Status::max_iterations, "not converged in " + std::to_string(k) + " iterations");
  if (stop) return end(Status::interrupted, "interrupted at iteration " + std::to_string(k));
  return false;
}

void DistributedCg::fused_steps(std::size_t limit, double norm_b, Clock::time_point start, solver::SolveInfo& info) {
  using solver::Status;
  const std::size_t n = std::size_t(rows_), extended = n + std::size_t(halo_.ghosts);
  const bool jacobi = settings_.preconditioner == solver::Preconditioner::jacobi;
  // z's ghosts before the first step; p_old = 0, so the first step's p is z.
  exchange_->start(z_);
  exchange_->finish(z_);
  ops_->fill(extended, 0.0, p_old_);
  const auto first = dots({{&r_, &z_}, {&r_, &r_}});
  double rz = first[0], rr = first[1], alpha = 0, beta = 0;
  if (rz < 0) {
    info.status = Status::breakdown;
    info.message = "breakdown at iteration 0: r^T z < 0, M is not positive definite";
    return;
  }
  bool x_behind = false;  // x still lacks alpha p_old (pass 1 applies it)
  const auto settle = [&] {
    exchange_->finish(z_);
    if (x_behind) ops_->axpy(n, alpha, p_old_, x_);
    x_behind = false;
  };
  const auto end = [&](Status status, std::string message) {
    settle();
    info.status = status;
    info.message = std::move(message);
  };
  for (std::size_t k = 0;; ++k) {
    if (step_ends(k, limit, norm_b, rr, rz, alpha, beta, false, start, info)) return settle();
    // Pass 1: p = z + beta p_old ; q = A p ; x += alpha p_old ; partials of p . q.
    const auto pass = [&](cl_uint which) {
      const std::size_t groups = set_rows_args(direction_kernel_, which);
      solver::set_real_arg(direction_kernel_, 10, type_, beta);
      solver::set_real_arg(direction_kernel_, 11, type_, x_behind ? alpha : 0.0);
      direction_kernel_.setArg(12, z_);
      direction_kernel_.setArg(13, p_old_);
      direction_kernel_.setArg(14, p_);
      direction_kernel_.setArg(15, q_);
      direction_kernel_.setArg(16, x_);
      direction_kernel_.setArg(17, partials_);
      solver::enqueue_groups(env_, direction_kernel_, "direction_spmv", groups, dot_wg_);
    };
    pass(first_pass());
    if (first_pass() == interior_rows) {
      env_.queue().flush();
      exchange_->finish(z_);
      ghost_kernel_.setArg(0, cl_uint(rows_));
      ghost_kernel_.setArg(1, cl_uint(halo_.ghosts));
      solver::set_real_arg(ghost_kernel_, 2, type_, beta);
      ghost_kernel_.setArg(3, z_);
      ghost_kernel_.setArg(4, p_old_);
      ghost_kernel_.setArg(5, p_);
      solver::enqueue_grid_stride(env_, ghost_kernel_, "ghost_direction", std::size_t(halo_.ghosts),
                                  solver::vector_ops_group);
      pass(boundary_rows);
    } else {
      exchange_->finish(z_);  // a rank that only sends
    }
    x_behind = false;
    bool stop = false;
    const double pq = sum_partials(1, &stop)[0];
    if (stop) return end(Status::interrupted, "interrupted at iteration " + std::to_string(k));
    if (!(pq > 0))
      return end(std::isfinite(pq) ? Status::breakdown : Status::non_finite,
                 "breakdown at iteration " + std::to_string(k) + ": p^T A p = " + std::to_string(pq) +
                     ", A is not positive definite");
    alpha = rz / pq;
    // Pass 2: r -= alpha q ; z = D^-1 r ; partials of r . z and r . r ; z's halo starts. With
    // Chebyshev the pass updates r alone, and z and its dots follow.
    update_kernel_.setArg(0, cl_uint(rows_));
    solver::set_real_arg(update_kernel_, 1, type_, alpha);
    update_kernel_.setArg(2, cl_uint(jacobi ? 1 : 0));
    update_kernel_.setArg(3, q_);
    update_kernel_.setArg(4, inv_diag_);
    update_kernel_.setArg(5, r_);
    update_kernel_.setArg(6, z_);
    update_kernel_.setArg(7, partials_);
    solver::enqueue_groups(env_, update_kernel_, "update_residual", local_chunks(), dot_wg_);
    std::swap(p_, p_old_);  // x += alpha p waits for the next pass 1 (or settle)
    x_behind = true;
    std::vector<double> d;
    if (settings_.preconditioner == solver::Preconditioner::chebyshev || amg_) {  // z = M^-1 r, then its dots
      precondition(r_, z_);
      exchange_->start(z_);
      d = dots({{&r_, &z_}, {&r_, &r_}});
    } else {
      exchange_->start(z_);
      d = sum_partials(2, nullptr);
    }
    if (d[0] < 0)
      return end(Status::breakdown, "breakdown at iteration " + std::to_string(k + 1) +
                                        ": r^T z < 0, the preconditioner is not positive definite");
    beta = d[0] / rz;
    rz = d[0];
    rr = d[1];
  }
}

void DistributedCg::single_steps(std::size_t limit, double norm_b, Clock::time_point start, solver::SolveInfo& info) {
  using solver::Status;
  const std::size_t n = std::size_t(rows_);
  const auto end = [&](Status status, std::string message) {
    info.status = status;
    info.message = std::move(message);
  };
  double rz = 0, rr = 0, alpha = 0, beta = 0, previous_alpha = 0, previous_rz = 0;
  spmv(z_, q_);  // w = A z
  for (std::size_t k = 0;; ++k) {
    bool stop = false;
    const auto d = dots({{&r_, &z_}, {&q_, &z_}, {&r_, &r_}}, &stop);
    rz = d[0];
    const double pq = d[1];  // w.z
    rr = d[2];
    if (step_ends(k, limit, norm_b, rr, rz, alpha, beta, stop, start, info)) return;
    beta = k == 0 ? 0.0 : rz / previous_rz;
    const double denominator = k == 0 ? pq : pq - beta * rz / previous_alpha;
    alpha = rz / denominator;
    if (!(rz > 0) || !(denominator > 0))
      return end(Status::breakdown,
                 "breakdown at iteration " + std::to_string(k) + ": A (or M) is not positive definite");
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
  }
}

}  // namespace clcg::distributed
