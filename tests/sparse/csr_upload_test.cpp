// The CSR upload through pinned staging: the device holds A's arrays bit for bit (values
// rounded to float in a float matrix) for 0, 1 and many rows and for chunks far smaller than
// an array, and a compressed Eigen matrix is uploaded from its own arrays (csr_view).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "clcg/solver/sparse/csr_matrix.hpp"
#include "support/cg_problems.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::CsrView;
using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::solver::HostCsr;
using clcg::test::test_env;

// A random CSR with rows of 0 to 6 entries and values that float cannot hold exactly.
HostCsr random_csr(std::int32_t rows, unsigned seed) {
  std::mt19937 rng(seed);
  HostCsr a;
  a.rows = a.cols = rows;
  for (std::int32_t i = 0; i < rows; ++i) {
    const int length = int(rng() % 7);
    for (int k = 0; k < length; ++k) {
      a.col_idx.push_back(std::int32_t(rng() % std::uint32_t(rows)));
      a.values.push_back((double(rng()) - 2e9) / 3.0);
    }
    a.row_ptr.push_back(std::int32_t(a.col_idx.size()));
  }
  return a;
}

void expect_on_device(const DeviceCsrMatrix& device, const HostCsr& host, ElementType type) {
  const HostCsr back = clcg::solver::download(test_env(), device);
  EXPECT_EQ(back.rows, host.rows);
  EXPECT_EQ(back.row_ptr, host.row_ptr);
  EXPECT_EQ(back.col_idx, host.col_idx);
  ASSERT_EQ(back.values.size(), host.values.size());
  for (std::size_t k = 0; k < host.values.size(); ++k) {
    const double expected = type == ElementType::f64 ? host.values[k] : double(float(host.values[k]));
    ASSERT_EQ(back.values[k], expected) << "value " << k;
  }
}

TEST(CsrUpload, DeviceHoldsTheArraysBitForBitWithChunksFarSmallerThanThem) {
  const std::vector<ElementType> types = clcg::test::device_has_fp64()
                                             ? std::vector<ElementType>{ElementType::f64, ElementType::f32}
                                             : std::vector<ElementType>{ElementType::f32};
  for (const ElementType type : types)
    for (const std::int32_t rows : {0, 1, 2, 333}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, " + (type == ElementType::f64 ? "double" : "float"));
      const HostCsr host = random_csr(rows, unsigned(rows) + 1);
      clcg::cl::StagedUpload staging(test_env(), 40, 0);  // 10 indices or 5 doubles a chunk (every write staged)
      expect_on_device(DeviceCsrMatrix(test_env(), host, type, &staging), host, type);
      expect_on_device(DeviceCsrMatrix(test_env(), host, type), host, type);  // its own staging
    }
}

TEST(CsrUpload, LongestRowIsFoundWhereverItIs) {
  // Enough rows that the pass over row_ptr is split between threads; the longest row late.
  for (const std::int32_t at : {0, 400'000, 699'999}) {
    HostCsr a;
    a.rows = a.cols = 700'000;
    for (std::int32_t i = 0; i < a.rows; ++i) {
      const int length = i == at ? 9 : i % 3;
      for (int k = 0; k < length; ++k) a.col_idx.push_back(k), a.values.push_back(1.0);
      a.row_ptr.push_back(std::int32_t(a.col_idx.size()));
    }
    EXPECT_EQ(DeviceCsrMatrix(test_env(), a, ElementType::f32).max_row_length(), 9) << "longest row " << at;
  }
}

TEST(CsrUpload, CompressedEigenMatrixIsViewedInPlace) {
  const clcg::solver::HostMatrix a = clcg::test::poisson(7, 5);
  const CsrView view = clcg::solver::csr_view(a);
  EXPECT_EQ(view.rows, 35);
  EXPECT_EQ(view.values.data(), a.valuePtr());  // no copy
  EXPECT_EQ(view.col_idx.data(), a.innerIndexPtr());
  const HostCsr expected = clcg::solver::to_host_csr(a);
  const HostCsr copied = clcg::solver::to_host_csr(view);
  EXPECT_EQ(copied.row_ptr, expected.row_ptr);
  EXPECT_EQ(copied.col_idx, expected.col_idx);
  EXPECT_EQ(copied.values, expected.values);
  if (clcg::test::device_has_fp64()) expect_on_device(DeviceCsrMatrix(test_env(), view, ElementType::f64), expected, ElementType::f64);

  clcg::solver::HostMatrix uncompressed = a;
  uncompressed.uncompress();
  EXPECT_THROW(clcg::solver::csr_view(uncompressed), std::invalid_argument);
}

TEST(CsrUpload, InconsistentArraysAreRejectedBeforeAnyUpload) {
  HostCsr host = random_csr(10, 3);
  host.values.pop_back();
  EXPECT_THROW(DeviceCsrMatrix(test_env(), host, ElementType::f32), std::invalid_argument);
}

}  // namespace
