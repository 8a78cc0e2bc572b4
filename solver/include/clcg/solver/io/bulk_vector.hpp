#pragma once
// std::vector for the host's large arrays, those the host threads fill in parallel (the
// distributed AMG set-up's rows and products). Two differences from the standard allocator:
// - resize(n) and a vector of n elements leave new elements of a trivial type unset, so the
//   parallel pass that fills them is the first to touch their pages (resize(n, value) and
//   assign still set them);
// - a block of 32 MiB or more is a mapping of its own, aligned to 2 MiB, with transparent huge
//   pages advised: 512 times fewer page faults. Smaller blocks come from malloc, which reuses
//   freed memory without faulting it in again (own mappings from 2 MiB took 20% longer).
// One rank's set-up on a 64-core H100 host spent more time in one thread zeroing arrays and in
// 4 KiB page faults than in its work (docs/PERFORMANCE.md).
#include <sys/mman.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "clcg/solver/io/host_threads.hpp"

namespace clcg::solver {

template <class T>
struct BulkAllocator {
  using value_type = T;
  static constexpr std::size_t huge_page = std::size_t(2) << 20;
  static constexpr std::size_t own_mapping = std::size_t(32) << 20;  // the smallest block mapped on its own

  BulkAllocator() noexcept = default;
  template <class U>
  BulkAllocator(const BulkAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < own_mapping) return std::allocator<T>().allocate(n);
    const std::size_t size = mapped_size(bytes);
    // Map a huge page more than needed, then unmap the ends so that the block starts on one.
    void* raw = mmap(nullptr, size + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    char* const start = static_cast<char*>(raw);
    const std::size_t head = (huge_page - reinterpret_cast<std::uintptr_t>(start) % huge_page) % huge_page;
    if (head > 0) munmap(start, head);
    munmap(start + head + size, huge_page - head);
#ifdef MADV_HUGEPAGE
    madvise(start + head, size, MADV_HUGEPAGE);  // advice only: small pages where refused
#endif
    return reinterpret_cast<T*>(start + head);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < own_mapping)
      std::allocator<T>().deallocate(p, n);
    else
      munmap(p, mapped_size(bytes));
  }

  // Default-initialisation where no value is given (nothing, for a trivial type).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const BulkAllocator&, const BulkAllocator&) noexcept { return true; }
  friend bool operator!=(const BulkAllocator&, const BulkAllocator&) noexcept { return false; }

 private:
  static std::size_t mapped_size(std::size_t bytes) { return (bytes + huge_page - 1) / huge_page * huge_page; }
};

template <class T>
using BulkVector = std::vector<T, BulkAllocator<T>>;

// out[0, n) = in[0, n) on the host's threads, each the first to touch its part of `out`.
template <class T>
void copy_in_parallel(const T* in, std::size_t n, T* out) {
  constexpr std::size_t grain = std::size_t(1) << 18;  // elements a thread at least
  parallel_ranges(n, threads_for(n, grain), [&](std::size_t begin, std::size_t end, unsigned) {
    std::copy(in + begin, in + end, out + begin);
  });
}

// Faults in the pages of [p, p + bytes) on the host's threads (a byte written in each 4 KiB),
// for memory that one thread would otherwise fault in page by page: a receive buffer that MPI
// fills. The distributed set-up's exchanges at 512^3 on two ranks of a 2 x H200 host (128 MB
// into a rank) took 116-121 ms in MPI_Alltoallv into new pages, 42-45 ms into pages touched
// so (docs/data/h200x2_mpi_fresh_pages_call118_2026-11-28.txt).
inline void touch_pages(void* p, std::size_t bytes) {
  constexpr std::size_t page = 4096, grain = 256;  // pages a thread at least (1 MiB)
  unsigned char* const base = static_cast<unsigned char*>(p);
  const std::size_t pages = (bytes + page - 1) / page;
  parallel_ranges(pages, threads_for(pages, grain), [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t q = begin; q < end; ++q) base[q * page] = 0;
  });
}

template <class T>
BulkVector<T> copied(const BulkVector<T>& from) {
  BulkVector<T> out(from.size());
  copy_in_parallel(from.data(), from.size(), out.data());
  return out;
}

}  // namespace clcg::solver
