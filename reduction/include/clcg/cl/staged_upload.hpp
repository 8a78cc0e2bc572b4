#pragma once
// Host arrays to device buffers at the link's speed. A write from ordinary (pageable) memory
// goes through the driver's own bounce buffer (NVIDIA: some 3-6 GB/s); a write from pinned
// memory is a DMA at the link's speed (~25 GB/s on PCIe 5). So the data is copied, chunk by
// chunk, into two pinned halves in turn (on every host core for big chunks, narrowing
// double to float on the way where asked), and each filled half is enqueued as a
// non-blocking write while the other half is filled.
//
//   cl::StagedUpload staging(env);
//   staging.write(buffer, host.data(), host.size() * sizeof(double));
//   staging.finish();  // the device buffers hold the data
//
// A write returns once its source has been copied into pinned memory (the caller may free
// it); the device may still be writing: finish() waits. The pinned memory (2 x chunk_bytes at
// most, less for smaller writes) is allocated on the first write and kept for the next.
#include <algorithm>
#include <cstddef>

#include "clcg/cl/env.hpp"
#include "clcg/cl/opencl.hpp"
#include "clcg/cl/pinned_buffer.hpp"

namespace clcg::cl {

// Not yet measured on a GPU (upload-bench --chunk-mb compares sizes): large enough that the
// per-write overhead is small, small enough that allocating the pinned halves is cheap.
inline constexpr std::size_t default_staging_chunk_bytes = std::size_t(16) << 20;
// A pinned half's size for a requested chunk: rounded down to a multiple of 8, at least 8.
inline constexpr std::size_t staging_chunk_bytes(std::size_t requested) {
  return std::max<std::size_t>(8, requested / 8 * 8);
}
// A piece of a chunk worth a host thread of its own when it is filled or drained: below this,
// starting the thread costs more than the copy it saves.
inline constexpr std::size_t staging_copy_grain_bytes = std::size_t(1) << 20;
// A write of at most this many bytes while no pinned memory is held goes straight from its
// source (a blocking write from pageable memory): below it, allocating the pinned halves costs
// more than they save (one H200's host, driver 580, 2026-11-29: a fresh pinned pair and its
// write 1.5 ms for 64 KB, 6.6 ms for 4 MB, 15.6 ms for 9 MB, 57 ms for 32 MB, where a blocking
// write took 0.03, 0.44, 1.6 and 5.4 ms).
inline constexpr std::size_t default_direct_write_bytes = std::size_t(64) << 20;

class StagedUpload {
 public:
  // chunk_bytes: the size of one pinned half, rounded down to a multiple of 8 (at least 8);
  // small values exercise many chunks in tests. direct_bytes: the largest write that goes
  // straight from its source while no pinned memory is held (0: every write is staged).
  explicit StagedUpload(const Env& env, std::size_t chunk_bytes = default_staging_chunk_bytes,
                        std::size_t direct_bytes = default_direct_write_bytes);
  StagedUpload(const StagedUpload&) = delete;
  StagedUpload& operator=(const StagedUpload&) = delete;
  ~StagedUpload();

  // target[offset_bytes, offset_bytes + bytes) = source[0, bytes).
  void write(const ::cl::Buffer& target, const void* source, std::size_t bytes, std::size_t offset_bytes = 0);
  // target's first `count` floats = source's `count` doubles, rounded to nearest.
  void write_narrowed(const ::cl::Buffer& target, const double* source, std::size_t count);
  // Waits until every write enqueued so far has reached the device.
  void finish();

  std::size_t chunk_bytes() const noexcept { return chunk_bytes_; }

 private:
  // Sends `count` elements of element_bytes each to target from offset_bytes on, chunk by
  // chunk; fill(destination, first, last) writes source elements [first, last), converted to
  // the device's type, from destination on.
  template <class Fill>
  void stage(const ::cl::Buffer& target, std::size_t count, std::size_t element_bytes, std::size_t offset_bytes,
             Fill fill);
  unsigned char* half(int which) const noexcept { return pinned_.data() + std::size_t(which) * half_bytes_; }
  bool direct(std::size_t bytes) const noexcept { return half_bytes_ == 0 && bytes <= direct_bytes_; }

  Env env_;
  std::size_t chunk_bytes_, direct_bytes_;
  PinnedBuffer pinned_;  // two halves of half_bytes_
  std::size_t half_bytes_ = 0;
  ::cl::Event in_flight_[2];  // the write reading each half, if any
  int next_ = 0;              // the half to fill next
};

}  // namespace clcg::cl
