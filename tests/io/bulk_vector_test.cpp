// solver::BulkVector: what a resize leaves unset and what it sets, its own mappings (aligned to
// huge pages) against the standard allocator's blocks, and the parallel copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "clcg/solver/io/bulk_vector.hpp"

namespace {

using clcg::solver::BulkAllocator;
using clcg::solver::BulkVector;

constexpr std::size_t own_mapping = BulkAllocator<double>::own_mapping;
constexpr std::size_t huge_page = BulkAllocator<double>::huge_page;

TEST(BulkVector, ValuesGivenAreSet) {
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), own_mapping / 8 + 3}) {
    SCOPED_TRACE(n);
    BulkVector<std::int64_t> v(n, 7);
    EXPECT_EQ(std::count(v.begin(), v.end(), 7), std::ptrdiff_t(n));
    v.assign(n, -1);
    EXPECT_EQ(std::count(v.begin(), v.end(), -1), std::ptrdiff_t(n));
    v.resize(n + 5, 3);
    EXPECT_EQ(std::count(v.begin() + std::ptrdiff_t(n), v.end(), 3), 5);
  }
}

TEST(BulkVector, ResizeKeepsWhatWasThere) {
  BulkVector<std::int64_t> row_ptr{0};  // as LocalRows: the first offset survives a resize
  row_ptr.resize(own_mapping / 8 + 1);
  EXPECT_EQ(row_ptr[0], 0);
  for (std::size_t i = 1; i < row_ptr.size(); ++i) row_ptr[i] = std::int64_t(i);
  row_ptr.resize(2 * row_ptr.size());  // moves into a larger mapping
  EXPECT_EQ(row_ptr[0], 0);
  EXPECT_EQ(row_ptr[own_mapping / 8], std::int64_t(own_mapping / 8));
}

TEST(BulkVector, LargeBlocksStartOnAHugePage) {
  for (const std::size_t bytes : {own_mapping, own_mapping + 8, 3 * own_mapping + 4096}) {
    SCOPED_TRACE(bytes);
    BulkVector<double> v(bytes / sizeof(double));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % huge_page, 0u);
    v.back() = 1.5;  // the whole block is writable
    v.front() = 2.5;
    EXPECT_EQ(v.back() + v.front(), 4.0);
  }
}

TEST(BulkVector, ParallelCopiesEqualTheSource) {
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1) << 18, (std::size_t(5) << 20) + 3}) {
    SCOPED_TRACE(n);
    BulkVector<double> from(n);
    std::iota(from.begin(), from.end(), 0.25);
    const BulkVector<double> to = clcg::solver::copied(from);
    EXPECT_EQ(to, from);
  }
}

// touch_pages writes the first byte of each 4 KiB from p on (the pages of a range it is given)
// and nothing else, for ranges of no page, part of one, and many (the threads' share).
TEST(BulkVector, TouchPagesWritesOneByteAPage) {
  for (const std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(70) << 20}) {
    SCOPED_TRACE(bytes);
    std::vector<unsigned char> memory(bytes + 2, 0xab);
    clcg::solver::touch_pages(memory.data() + 1, bytes);
    std::size_t zeros = 0;
    for (std::size_t i = 0; i < memory.size(); ++i) {
      const bool page_start = i >= 1 && i < bytes + 1 && (i - 1) % 4096 == 0;
      if (memory[i] != (page_start ? 0 : 0xab)) FAIL() << "byte " << i;
      zeros += memory[i] == 0;
    }
    EXPECT_EQ(zeros, (bytes + 4095) / 4096);
  }
}

}  // namespace
