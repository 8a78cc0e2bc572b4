// Every solver kernel against an Eigen / host reference: CSR upload, SpMV (scalar and vector
// on rows of length 0, 1 and much longer than a work-group), inverse diagonal, level-1 and
// fused CG update kernels, in float and double.
#include <gtest/gtest.h>

#include <Eigen/SparseCore>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "support/cg_problems.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "clcg/solver/precond/jacobi.hpp"
#include "clcg/solver/sparse/conversion.hpp"
#include "clcg/solver/sparse/row_layout.hpp"
#include "clcg/solver/sparse/spmv.hpp"
#include "clcg/solver/sparse/vector_ops.hpp"
#include "clcg/solver/sparse/device_memory.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::SpmvKernel;
using clcg::test::test_env;
using Eigen::VectorXd;
using clcg::test::random_vector;
using HostMatrixIt = clcg::solver::HostMatrix::InnerIterator;

::cl::Buffer upload(const VectorXd& v, ElementType type) {
  const auto& env = test_env();
  ::cl::Buffer buffer = clcg::solver::make_vector(env, type, std::size_t(v.size()));
  if (v.size() == 0) return buffer;
  if (type == ElementType::f64) {
    env.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, v.size() * sizeof(double), v.data());
  } else {
    const Eigen::VectorXf f = v.cast<float>();
    env.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, f.size() * sizeof(float), f.data());
  }
  return buffer;
}

VectorXd download(const ::cl::Buffer& buffer, Eigen::Index n, ElementType type) {
  const auto& env = test_env();
  VectorXd v(n);
  if (n == 0) return v;
  if (type == ElementType::f64) {
    env.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(double), v.data());
  } else {
    Eigen::VectorXf f(n);
    env.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(float), f.data());
    v = f.cast<double>();
  }
  return v;
}

// Relative accuracy of one SpMV row or vector update: a few roundings of the element type
// times the row length (sums of up to ~1000 products of values in [-1, 1)).
double tolerance(ElementType type, double scale) { return (type == ElementType::f64 ? 1e-13 : 2e-5) * scale; }

const ElementType types[] = {ElementType::f64, ElementType::f32};

TEST(SolverKernels, BuildWithNoOptionsAndWithEachPrecision) {
  // Every solver .cl is real OpenCL C 1.2 with defaults for its -D parameters.
  for (const char* source : {"spmv_csr.cl", "blas1.cl", "cg_update.cl"})
    for (const std::string& options : {std::string(), clcg::solver::real_build_options(ElementType::f32)}) {
      SCOPED_TRACE(std::string(source) + " [" + options + "]");
      EXPECT_NO_THROW(test_env().program(source, options));
    }
}

TEST(CsrMatrix, ExpandsEachStorageOfEigenMatricesToFullSortedRows) {
  // A symmetric matrix given as its lower triangle (column-major), upper (row-major) and full.
  Eigen::SparseMatrix<double> full(4, 4);
  std::vector<Eigen::Triplet<double>> t{{0, 0, 4}, {1, 0, -1}, {0, 1, -1}, {1, 1, 4}, {3, 1, -2},
                                        {1, 3, -2}, {2, 2, 5}, {3, 3, 6}};
  full.setFromTriplets(t.begin(), t.end());
  const Eigen::SparseMatrix<double> lower = full.triangularView<Eigen::Lower>();
  const Eigen::SparseMatrix<double, Eigen::RowMajor> upper = full.triangularView<Eigen::Upper>();
  const Eigen::MatrixXd dense = Eigen::MatrixXd(full);
  for (const auto& csr : {clcg::solver::to_host_csr(full), clcg::solver::to_host_csr(lower, clcg::solver::Storage::lower),
                          clcg::solver::to_host_csr(upper, clcg::solver::Storage::upper),
                          // Entries outside the named triangle are ignored, as selfadjointView does.
                          clcg::solver::to_host_csr(full, clcg::solver::Storage::lower)}) {
    ASSERT_EQ(csr.rows, 4);
    ASSERT_EQ(csr.nnz(), 8);
    Eigen::MatrixXd got = Eigen::MatrixXd::Zero(4, 4);
    for (int i = 0; i < 4; ++i)
      for (int k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) {
        if (k > csr.row_ptr[i]) {
          EXPECT_LT(csr.col_idx[k - 1], csr.col_idx[k]) << "row " << i << " not sorted";
        }
        got(i, csr.col_idx[k]) = csr.values[k];
      }
    EXPECT_EQ(got, dense);
  }
}

TEST(CsrMatrix, RejectsSizesBeyond32BitIndicesWithAClearMessage) {
  EXPECT_NO_THROW(clcg::solver::check_index_range(2147483647u, 2147483647u, 2147483647u));
  try {
    clcg::solver::check_index_range(1000, 1000, 3000000000u);
    FAIL() << "3e9 nonzeros accepted";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("3000000000 nonzeros"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2147483647"), std::string::npos) << e.what();
  }
  EXPECT_THROW(clcg::solver::check_index_range(2147483648u, 1, 0), std::length_error);
  EXPECT_THROW(clcg::solver::check_index_range(1, 2147483648u, 0), std::length_error);
}

TEST(CsrMatrix, ChecksDeviceMemoryBeforeAllocating) {
  // bytes_needed counts row pointers, column indices and values.
  EXPECT_EQ(clcg::solver::bytes_needed(10, 30, ElementType::f64), 11u * 4 + 30u * 12);
  EXPECT_EQ(clcg::solver::bytes_needed(10, 30, ElementType::f32), 11u * 4 + 30u * 8);
  // A device capped by CLCG_DEVICE_MEMORY_LIMIT (read when an Env queries its device).
  const auto& env = test_env();  // created before the cap, so only `small` sees it
  ::setenv("CLCG_DEVICE_MEMORY_LIMIT", "1000", 1);
  const clcg::cl::Env small(env.context(), env.device(), env.queue());
  ::unsetenv("CLCG_DEVICE_MEMORY_LIMIT");
  ASSERT_EQ(small.info().global_memory_bytes, 1000u);
  const auto a = clcg::test::ragged_matrix(100, 100, 20, 1);
  const std::uint64_t needed = clcg::solver::bytes_needed(100, std::uint64_t(a.nonZeros()), ElementType::f64);
  try {
    DeviceCsrMatrix::upload(small, a, ElementType::f64);
    FAIL() << "a " << needed << "-byte matrix fit in 1000 bytes";
  } catch (const clcg::solver::DeviceMemoryError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.needed(), needed);
    EXPECT_EQ(e.available(), 1000u);
    EXPECT_NE(message.find("matrix needs " + std::to_string(needed) + " bytes on " + small.info().name), std::string::npos)
        << message;
    EXPECT_NE(message.find("only 1000 are available (global memory)"), std::string::npos) << message;
  }
}

// A set-up whose memory grows as it goes (AMG) learns it ran out from an OpenCL error: only an
// allocation failure becomes a DeviceMemoryError that says so; other errors pass unchanged.
TEST(DeviceMemory, AllocationFailuresAreReportedAsMemory) {
  clcg::cl::DeviceInfo device;
  device.name = "Test GPU";
  device.global_memory_bytes = 80'000'000'000;
  for (cl_int code : {CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES}) {
    try {
      try {
        throw clcg::cl::Error(code, "clEnqueueNDRangeKernel", "running spgemm_hashed");
      } catch (const clcg::cl::Error& e) {
        clcg::solver::rethrow_allocation_failure(e, device, "the AMG set-up of 216000000 rows", "use less");
      }
      FAIL() << "nothing thrown";
    } catch (const clcg::solver::DeviceMemoryError& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.available(), device.global_memory_bytes);
      EXPECT_NE(message.find("the AMG set-up of 216000000 rows ran out of memory on Test GPU (80.0 GB): use less"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("spgemm_hashed"), std::string::npos) << message;
    }
  }
  try {
    try {
      throw clcg::cl::Error(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel", "running x");
    } catch (const clcg::cl::Error& e) {
      clcg::solver::rethrow_allocation_failure(e, device, "the AMG set-up", "use less");
    }
    FAIL() << "nothing thrown";
  } catch (const clcg::solver::DeviceMemoryError&) {
    FAIL() << "an argument error reported as memory";
  } catch (const clcg::cl::Error& e) {
    EXPECT_EQ(e.code(), CL_INVALID_KERNEL_ARGS);
  }
}

TEST(CsrMatrix, WrapsCallerOwnedBuffersAndChecksTheirSizes) {
  const auto& env = test_env();
  const auto host = clcg::solver::to_host_csr(clcg::test::ragged_matrix(50, 40, 40, 2));
  ::cl::Buffer row_ptr(env.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.row_ptr.size() * 4,
                       const_cast<std::int32_t*>(host.row_ptr.data()));
  ::cl::Buffer col(env.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.col_idx.size() * 4,
                   const_cast<std::int32_t*>(host.col_idx.data()));
  ::cl::Buffer values(env.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.values.size() * 8,
                      const_cast<double*>(host.values.data()));
  const DeviceCsrMatrix a(row_ptr, col, values, host.rows, host.cols, host.nnz(), ElementType::f64);
  EXPECT_EQ(a.row_ptr()(), row_ptr());  // the caller's buffer, not a copy
  clcg::solver::Spmv spmv(env, a);
  const VectorXd x = random_vector(40, 3);
  ::cl::Buffer xb = upload(x, ElementType::f64), yb = clcg::solver::make_vector(env, ElementType::f64, 50);
  spmv.enqueue(xb, yb);
  Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> eigen_a(
      host.rows, host.cols, host.nnz(), host.row_ptr.data(), host.col_idx.data(), host.values.data());
  const VectorXd expected = eigen_a * x;
  EXPECT_LE((download(yb, 50, ElementType::f64) - expected).norm(), tolerance(ElementType::f64, 100) * expected.norm());
  // Too small a values buffer for the nnz given.
  EXPECT_THROW(DeviceCsrMatrix(row_ptr, col, values, host.rows, host.cols, host.nnz() * 2, ElementType::f64),
               std::invalid_argument);
}

TEST(Spmv, ScalarAndVectorMatchEigenOnEmptySingleAndLongRows) {
  const auto& env = test_env();
  // 300 rows: empty rows, one-entry rows, rows of 1000 entries (far longer than a 128
  // work-item group), 300 is not a multiple of the group size or of rows per group.
  const auto a = clcg::test::ragged_matrix(300, 1000, 1000, 4);
  const VectorXd x = random_vector(1000, 5);
  const VectorXd expected = a * x;
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    const DeviceCsrMatrix device_a = DeviceCsrMatrix::upload(env, a, type);
    ::cl::Buffer xb = upload(x, type), yb = clcg::solver::make_vector(env, type, 300);
    struct Case {
      SpmvKernel kernel;
      unsigned vector_size;
    };
    for (const Case c : {Case{SpmvKernel::scalar, 0}, Case{SpmvKernel::vector, 2}, Case{SpmvKernel::vector, 32},
                         Case{SpmvKernel::vector, 128}, Case{SpmvKernel::ell, 0}, Case{SpmvKernel::automatic, 0}}) {
      clcg::solver::Spmv spmv(env, device_a, c.kernel, c.vector_size);
      SCOPED_TRACE(std::string(clcg::solver::spmv_kernel_name(spmv.kernel())) + " vector_size " +
                   std::to_string(spmv.vector_size()));
      if (c.vector_size) {
        EXPECT_EQ(spmv.vector_size(), c.vector_size);
      }
      clcg::solver::VectorOps(env, type).fill(300, 12345.0, yb);  // poison: every row must be written
      spmv.enqueue(xb, yb);
      const VectorXd y = download(yb, 300, type);
      for (int i = 0; i < 300; ++i) {
        // Per-row bound: rounding grows with the row's absolute sum.
        double scale = 1;
        for (HostMatrixIt it(a, i); it; ++it) scale += std::abs(it.value() * x[it.col()]);
        ASSERT_NEAR(y[i], expected[i], tolerance(type, scale)) << "row " << i << " (" << a.row(i).nonZeros() << " entries)";
      }
    }
  }
}


// New values on the same pattern, in other buffers: every layout gives the bits of an SpMV made
// on them (the ELL copy refilled in place, its columns kept); another shape is refused.
TEST(Spmv, NewValuesOnTheSamePatternGiveAFreshSpmvsBits) {
  const auto& env = test_env();
  const auto a = clcg::test::ragged_matrix(301, 257, 40, 6);
  clcg::solver::HostMatrix b = a;
  for (int k = 0; k < b.nonZeros(); ++k) b.valuePtr()[k] = std::cos(3.0 * k);
  const VectorXd x = random_vector(257, 7);
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    const DeviceCsrMatrix device_a = DeviceCsrMatrix::upload(env, a, type), device_b = DeviceCsrMatrix::upload(env, b, type);
    ::cl::Buffer xb = upload(x, type), yb = clcg::solver::make_vector(env, type, 301);
    for (SpmvKernel kernel : {SpmvKernel::scalar, SpmvKernel::vector, SpmvKernel::ell}) {
      SCOPED_TRACE(std::string(clcg::solver::spmv_kernel_name(kernel)));
      clcg::solver::Spmv updated(env, device_a, kernel), fresh(env, device_b, kernel);
      updated.update_values(device_b);
      updated.enqueue(xb, yb);
      const VectorXd y = download(yb, 301, type);
      fresh.enqueue(xb, yb);
      EXPECT_EQ(y, download(yb, 301, type));
      EXPECT_GT((y - a * x).norm(), 1e-3 * y.norm()) << "the old values are still used";
      const DeviceCsrMatrix other = DeviceCsrMatrix::upload(env, clcg::test::ragged_matrix(301, 257, 40, 8), type);
      if (other.nnz() != device_a.nnz()) {
        EXPECT_THROW(updated.update_values(other), std::invalid_argument);
      }
      EXPECT_THROW(updated.update_values(DeviceCsrMatrix::upload(env, clcg::test::ragged_matrix(300, 257, 40, 6), type)),
                   std::invalid_argument);
    }
  }
}
// An ELL SpMV lets its CSR arrays go (the distributed AMG's levels: a sixth of a rank's device
// memory at 1024^3) and multiplies with its copy alone: the same bits; its memory freed where it
// held the last handles; a CSR kernel refuses; update_values brings arrays back.
TEST(Spmv, EllWithoutItsCsrArraysGivesTheSameBits) {
  const auto& env = test_env();
  const auto a = clcg::test::ragged_matrix(301, 257, 40, 6);
  const VectorXd x = random_vector(257, 7);
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    ::cl::Buffer xb = upload(x, type), yb = clcg::solver::make_vector(env, type, 301);
    clcg::solver::Spmv kept(env, DeviceCsrMatrix::upload(env, a, type), SpmvKernel::ell);
    kept.enqueue(xb, yb);
    const VectorXd want = download(yb, 301, type);
    clcg::solver::Spmv alone(env, DeviceCsrMatrix::upload(env, a, type), SpmvKernel::ell);
    const ::cl::Buffer col = alone.matrix().col_idx();  // (a handle of ours: the array outlives the release)
    alone.release_csr();
    EXPECT_FALSE(alone.matrix().has_arrays());
    EXPECT_EQ(alone.matrix().bytes(), 0u);
    EXPECT_EQ(alone.matrix().rows(), 301);
    EXPECT_EQ(alone.matrix().nnz(), kept.matrix().nnz());
    EXPECT_EQ(alone.matrix().max_row_length(), kept.matrix().max_row_length());
    // An enqueued command holds its buffers until it is done, and PoCL lets them go just after
    // clFinish returns (its worker thread's clean-up: 1 run in 30 saw 2 under load): a second.
    env.queue().finish();
    cl_uint held = 0;
    for (int wait = 0; wait < 100 && (held = col.getInfo<CL_MEM_REFERENCE_COUNT>()) != 1u; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(held, 1u) << "the SpMV still holds the CSR columns";
    alone.enqueue(xb, yb);
    EXPECT_EQ(download(yb, 301, type), want);
    if (env.info().fp64) {
      EXPECT_THROW(alone.residual_f64(xb, yb, yb), std::logic_error);
    }
    clcg::solver::Spmv scalar(env, DeviceCsrMatrix::upload(env, a, type), SpmvKernel::scalar);
    EXPECT_THROW(scalar.release_csr(), std::logic_error);
    alone.update_values(kept.matrix());
    EXPECT_TRUE(alone.matrix().has_arrays());
    alone.enqueue(xb, yb);
    EXPECT_EQ(download(yb, 301, type), want);
  }
}
// A matrix with more rows than columns (AMG's P): ELL padding must not read x past its columns.
// x sits in a longer buffer whose tail is NaN, so a read past column 256 shows in y.
TEST(Spmv, EllPaddingStaysInsideTheColumnsOfATallMatrix) {
  const auto& env = test_env();
  const auto a = clcg::test::ragged_matrix(301, 257, 40, 6);
  const VectorXd x = random_vector(257, 7);
  VectorXd x_and_nan = VectorXd::Constant(301, std::nan(""));
  x_and_nan.head(257) = x;
  const VectorXd expected = a * x;
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    const DeviceCsrMatrix device_a = DeviceCsrMatrix::upload(env, a, type);
    ::cl::Buffer xb = upload(x_and_nan, type), yb = clcg::solver::make_vector(env, type, 301);
    clcg::solver::Spmv spmv(env, device_a, SpmvKernel::ell);
    spmv.enqueue(xb, yb);
    const VectorXd y = download(yb, 301, type);
    ASSERT_TRUE(y.allFinite()) << "a padded slot read x past the matrix's columns";
    EXPECT_LE((y - expected).norm(), 1e-5 * expected.norm());
  }
}
// A pass of a row kernel (the V-cycle's residual) over parts of the rows, as a distributed level
// runs it beside a halo exchange (rows_around: the interior, then the rest), writes every row
// once with the bits of one pass over all, in every layout; the exchange's two calls come
// before and after the interior's pass. Eigen's b - A x checks the one pass.
TEST(RowLayout, PassesOverPartsOfTheRowsGiveOnePassBits) {
  const auto& env = test_env();
  const int n = 301;  // (not a multiple of any group)
  const auto a = clcg::test::ragged_matrix(n, 257, 40, 6);
  const VectorXd x = random_vector(257, 7), b = random_vector(n, 8);
  const VectorXd expected = b - a * x;
  using clcg::solver::RowRange;
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    const DeviceCsrMatrix device_a = DeviceCsrMatrix::upload(env, a, type);
    ::cl::Buffer xb = upload(x, type), bb = upload(b, type), yb = clcg::solver::make_vector(env, type, n);
    for (SpmvKernel kernel : {SpmvKernel::scalar, SpmvKernel::vector, SpmvKernel::ell}) {
      const clcg::solver::Spmv spmv(env, device_a, kernel);
      const clcg::solver::RowLayout layout(env, spmv);
      SCOPED_TRACE(layout.kernel_name("residual"));
      clcg::cl::CachedKernel residual(env.kernel("multigrid.cl", layout.kernel_name("residual").c_str(),
                                                 layout.build_options()));
      std::vector<std::string> calls;
      const auto pass = [&](RowRange rows) {
        calls.push_back(std::to_string(rows.first) + ".." + std::to_string(rows.end));
        cl_uint arg = 0;
        const std::size_t groups = layout.set_args(residual, arg, 64, rows);
        residual.set(arg++, bb);
        residual.set(arg++, xb);
        residual.set(arg++, yb);
        layout.launch(residual, "residual", groups);
      };
      clcg::solver::VectorOps(env, type).fill(n, 12345.0, yb);
      pass({0, std::size_t(n)});
      const VectorXd whole = download(yb, n, type);
      for (int i = 0; i < n; ++i) {
        double scale = 1 + std::abs(b[i]);
        for (HostMatrixIt it(a, i); it; ++it) scale += std::abs(it.value() * x[it.col()]);
        ASSERT_NEAR(whole[i], expected[i], tolerance(type, scale)) << "row " << i;
      }
      struct Case {
        RowRange interior;
        std::vector<std::string> calls;
      };
      for (const Case& c : {Case{{37, 211}, {"start", "37..211", "finish", "0..37", "211..301"}},
                            Case{{0, 256}, {"start", "0..256", "finish", "256..301"}},
                            Case{{256, 301}, {"start", "256..301", "finish", "0..256"}},
                            Case{{0, 0}, {"start", "finish", "0..301"}},
                            Case{{0, 301}, {"start", "0..301", "finish"}}}) {
        SCOPED_TRACE(std::to_string(c.interior.first) + ".." + std::to_string(c.interior.end));
        clcg::solver::VectorOps(env, type).fill(n, 12345.0, yb);  // poison: every row must be written
        calls.clear();
        clcg::solver::rows_around(
            n, c.interior, [&] { calls.push_back("start"); }, [&] { calls.push_back("finish"); }, pass);
        EXPECT_EQ(calls, c.calls);
        EXPECT_EQ(download(yb, n, type), whole);
      }
    }
  }
}

TEST(Spmv, AutomaticChoiceFollowsTheRowLengthsOnAGpuAndIsScalarOnACpu) {
  const auto& env = test_env();
  clcg::cl::DeviceInfo gpu, cpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  cpu.type = CL_DEVICE_TYPE_CPU;
  // 1D Laplacian: every row 2 or 3 long -> ELL on a GPU (padding under 25%).
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> poisson(100, 100);
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < 100; ++i) {
    t.emplace_back(i, i, 4.0);
    if (i > 0) t.emplace_back(i, i - 1, -1.0);
    if (i + 1 < 100) t.emplace_back(i, i + 1, -1.0);
  }
  poisson.setFromTriplets(t.begin(), t.end());
  const auto regular = DeviceCsrMatrix::upload(env, poisson, ElementType::f64);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(regular, gpu), SpmvKernel::ell);
  EXPECT_EQ(clcg::solver::Spmv(env, regular, SpmvKernel::ell).ell_width(), 3u);
  // Short rows of very different lengths (0 to 20, mean ~3) -> scalar CSR.
  const auto ragged = DeviceCsrMatrix::upload(env, clcg::test::ragged_matrix(300, 300, 20, 9), ElementType::f64);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(ragged, gpu), SpmvKernel::scalar);
  // Dense-ish rows (mean 100, past ELL's 64) -> vector, vector size the power of two at or above mean / 8.
  const auto dense = Eigen::MatrixXd::Ones(20, 100).sparseView().eval();
  const auto long_rows = DeviceCsrMatrix::upload(env, dense, ElementType::f64);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(long_rows, gpu), SpmvKernel::vector);
  EXPECT_EQ(clcg::solver::Spmv(env, long_rows, SpmvKernel::vector).vector_size(), 16u);
  // The same rule from the lengths alone (rows spread over ranks: their global longest and mean),
  // and the vector size from the mean: the power of two at or above mean / 8 within [2, 32].
  // ELL up to 64 a row and 1.6 x the mean (3D Poisson's first AMG coarse level: 50 and 34).
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(7, 6.9, gpu), SpmvKernel::ell);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(50, 34.0, gpu), SpmvKernel::ell);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(64, 40.0, gpu), SpmvKernel::ell);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(56, 34.0, gpu), SpmvKernel::vector);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(65, 60.0, gpu), SpmvKernel::vector);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(80, 34.0, gpu), SpmvKernel::vector);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(9, 3.5, gpu), SpmvKernel::scalar);
  EXPECT_EQ(clcg::solver::choose_spmv_kernel(80, 34.0, cpu), SpmvKernel::scalar);
  EXPECT_EQ(clcg::solver::spmv_vector_size(0.0), 2u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(12.5), 2u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(16.0), 2u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(16.5), 4u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(34.0), 8u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(150.0), 32u);
  EXPECT_EQ(clcg::solver::spmv_vector_size(1000.0), 32u);
  // A CPU walks its block of rows in order: scalar whatever the rows.
  for (const auto* a : {&regular, &ragged, &long_rows}) EXPECT_EQ(clcg::solver::choose_spmv_kernel(*a, cpu), SpmvKernel::scalar);
  // Spmv follows the rule for the test device.
  EXPECT_EQ(clcg::solver::Spmv(env, long_rows).kernel(), clcg::solver::choose_spmv_kernel(long_rows, env.info()));
  // Overrides: forced scalar on long rows, and a bad vector size is rejected.
  EXPECT_EQ(clcg::solver::Spmv(env, DeviceCsrMatrix::upload(env, dense, ElementType::f64), SpmvKernel::scalar).kernel(),
            SpmvKernel::scalar);
  EXPECT_THROW(clcg::solver::Spmv(env, DeviceCsrMatrix::upload(env, dense, ElementType::f64), SpmvKernel::vector, 3),
               std::invalid_argument);
  EXPECT_EQ(clcg::solver::parse_spmv_kernel("vector"), SpmvKernel::vector);
  EXPECT_EQ(clcg::solver::parse_spmv_kernel("ell"), SpmvKernel::ell);
  EXPECT_THROW(clcg::solver::parse_spmv_kernel("csr5"), std::invalid_argument);
}

TEST(Jacobi, InverseDiagonalFollowsEigensDiagonalPreconditioner) {
  const auto& env = test_env();
  // Rows with a zero diagonal and with no diagonal stored: Eigen uses 1 there.
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> a(5, 5);
  std::vector<Eigen::Triplet<double, int>> t{{0, 0, 2.0}, {1, 1, 0.0}, {1, 0, 3.0}, {2, 3, 1.0}, {3, 3, -4.0}, {4, 4, 0.5}};
  a.setFromTriplets(t.begin(), t.end());
  Eigen::DiagonalPreconditioner<double> eigen_jacobi(a);
  const VectorXd ones = VectorXd::Ones(5);
  const VectorXd expected = eigen_jacobi.solve(ones);  // = inverse diagonal
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(clcg::reduction::type_name(type)));
    ::cl::Buffer d = clcg::solver::make_vector(env, type, 5);
    clcg::solver::jacobi_inverse_diagonal(env, DeviceCsrMatrix::upload(env, a, type), d);
    EXPECT_EQ(download(d, 5, type), expected);  // 1/2, 1, 1, -1/4, 2: exact in both precisions
  }
}

TEST(VectorOps, EveryKernelMatchesEigenForSizesAroundTheWorkGroup) {
  const auto& env = test_env();
  for (ElementType type : types) {
    clcg::solver::VectorOps ops(env, type);
    for (Eigen::Index n : {0, 1, 255, 256, 257, 1000, 100003}) {
      SCOPED_TRACE(std::string(clcg::reduction::type_name(type)) + " n " + std::to_string(n));
      const VectorXd x = random_vector(n, 10), y = random_vector(n, 11), d = random_vector(n, 12);
      const double a = 0.375, b = -1.25;  // exact in float: errors come from the arithmetic only
      // Rounding of one or two operations per element, relative to the operands' size.
      const double tol = tolerance(type, 4);
      auto check = [&](const VectorXd& got, const VectorXd& want, const char* what) {
        ASSERT_EQ(got.size(), want.size()) << what;
        if (n) {
          EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tol) << what;
        }
      };
      const ::cl::Buffer xb = upload(x, type), db = upload(d, type);
      ::cl::Buffer yb = upload(y, type), wb = clcg::solver::make_vector(env, type, std::size_t(n));
      ops.axpy(n, a, xb, yb);
      check(download(yb, n, type), a * x + y, "axpy");
      yb = upload(y, type);
      ops.xpay(n, a, xb, yb);
      check(download(yb, n, type), x + a * y, "xpay");
      yb = upload(y, type);
      ops.axpby_to(n, a, xb, b, yb, wb);
      check(download(wb, n, type), a * x + b * y, "axpby_to");
      ops.scale(n, a, yb);
      check(download(yb, n, type), a * y, "scale");
      ops.copy(n, xb, wb);
      check(download(wb, n, type), x, "copy");
      ops.fill(n, b, wb);
      check(download(wb, n, type), VectorXd::Constant(n, b), "fill");
      ops.diag_mul(n, db, xb, wb);
      check(download(wb, n, type), d.cwiseProduct(x), "diag_mul");
      // Fused updates: x += alpha p; r -= alpha q (; z = d .* r), with p = y, q = d.
      ::cl::Buffer xx = upload(x, type), rr = upload(y, type), zz = clcg::solver::make_vector(env, type, std::size_t(n));
      ops.cg_update_xr(n, a, yb = upload(y, type), db, xx, rr);
      check(download(xx, n, type), x + a * y, "cg_update_xr x");
      check(download(rr, n, type), y - a * d, "cg_update_xr r");
      xx = upload(x, type), rr = upload(y, type);
      ops.cg_update_xrz(n, a, yb, db, db, xx, rr, zz);
      check(download(xx, n, type), x + a * y, "cg_update_xrz x");
      check(download(rr, n, type), y - a * d, "cg_update_xrz r");
      check(download(zz, n, type), d.cwiseProduct(y - a * d), "cg_update_xrz z");
    }
  }
}

}  // namespace

// float <-> double on the device is the host's cast, element by element; a matrix's values in
// the other type share its index buffers and keep what the SpMV choice needs (longest row).
TEST(VectorOps, UploadAndDownloadKeepTheValuesOnBothSidesOfTheStagingSize) {
  // 4 MB and more cross through pinned staging (several chunks here), less directly; a float
  // vector holds each double rounded to float and gives it back widened.
  for (const ElementType type : {ElementType::f64, ElementType::f32}) {
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1001), std::size_t(2'600'003)}) {
      SCOPED_TRACE(std::to_string(n) + (type == ElementType::f64 ? " double" : " float"));
      const VectorXd v = random_vector(Eigen::Index(n), unsigned(n) + 3);
      const std::vector<double> host(v.data(), v.data() + n);
      cl::Buffer buffer = clcg::solver::make_vector(test_env(), type, std::max<std::size_t>(n, 1));
      clcg::solver::upload_vector(test_env(), host, type, buffer);
      const std::vector<double> back = clcg::solver::download_vector(test_env(), buffer, type, n);
      ASSERT_EQ(back.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        const double expected = type == ElementType::f64 ? host[i] : double(float(host[i]));
        ASSERT_EQ(back[i], expected) << "element " << i;
      }
      if (n > 2) {  // into part of a caller's array: the rest untouched
        std::vector<double> part(n, -7.0);
        clcg::solver::download_vector(test_env(), buffer, type, std::span<double>(part.data(), n - 2));
        ASSERT_EQ(part[n - 3], back[n - 3]);
        ASSERT_EQ(part[n - 2], -7.0);
      }
    }
  }
}

TEST(Conversion, MatchesTheHostCastAndSharesTheMatrixIndices) {
  if (!clcg::test::device_has_fp64()) GTEST_FAIL() << "needs fp64";
  const auto& env = test_env();
  for (Eigen::Index n : {0, 1, 255, 1000, 4097}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const VectorXd x = random_vector(n, 7) * 1e3;
    ::cl::Buffer narrow = clcg::solver::make_vector(env, ElementType::f32, std::size_t(n));
    ::cl::Buffer wide = clcg::solver::make_vector(env, ElementType::f64, std::size_t(n));
    clcg::solver::Conversion(env, ElementType::f64, ElementType::f32).enqueue(std::size_t(n), upload(x, ElementType::f64), narrow);
    clcg::solver::Conversion(env, ElementType::f32, ElementType::f64).enqueue(std::size_t(n), narrow, wide);
    const VectorXd expected = x.cast<float>().cast<double>();
    EXPECT_EQ(download(narrow, n, ElementType::f32), expected);
    EXPECT_EQ(download(wide, n, ElementType::f64), expected);
  }
  const clcg::solver::HostMatrix a = clcg::test::random_dd_spd(333, 6, 2);
  const DeviceCsrMatrix wide(env, clcg::solver::to_host_csr(a), ElementType::f64);
  const DeviceCsrMatrix narrow = clcg::solver::with_value_type(env, wide, ElementType::f32);
  EXPECT_EQ(narrow.type(), ElementType::f32);
  EXPECT_EQ(narrow.row_ptr().get(), wide.row_ptr().get());
  EXPECT_EQ(narrow.col_idx().get(), wide.col_idx().get());
  EXPECT_EQ(narrow.max_row_length(), wide.max_row_length());
  const auto back = clcg::solver::download(env, narrow);
  const auto host = clcg::solver::to_host_csr(a);
  ASSERT_EQ(back.values.size(), host.values.size());
  for (std::size_t k = 0; k < host.values.size(); ++k) EXPECT_EQ(back.values[k], double(float(host.values[k])));
  EXPECT_EQ(clcg::solver::with_value_type(env, wide, ElementType::f64).values().get(), wide.values().get());
}
