#pragma once
// Device buffers to host arrays at the link's speed: staged_upload.hpp's other direction. A
// read into ordinary (pageable) memory goes through the driver's bounce buffer (NVIDIA: a few
// GB/s); a read into pinned memory is a DMA. So the buffer is read chunk by chunk into two
// pinned halves in turn, and each half that has arrived is copied out (on every host core for
// big chunks, widening float to double where asked) while the device fills the other.
//
//   cl::StagedDownload staging(env);
//   staging.read(buffer, host.data(), host.size() * sizeof(double));  // blocking
//
// A read returns once the host array holds the data. The pinned memory (2 x chunk_bytes at
// most, less for smaller reads) is allocated on the first read and kept for the next.
#include <cstddef>

#include "clcg/cl/env.hpp"
#include "clcg/cl/opencl.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/cl/staged_upload.hpp"

namespace clcg::cl {

class StagedDownload {
 public:
  // chunk_bytes: the size of one pinned half, rounded down to a multiple of 8 (at least 8);
  // small values exercise many chunks in tests.
  explicit StagedDownload(const Env& env, std::size_t chunk_bytes = default_staging_chunk_bytes);
  StagedDownload(const StagedDownload&) = delete;
  StagedDownload& operator=(const StagedDownload&) = delete;
  ~StagedDownload();

  // target[0, bytes) = source[offset_bytes, offset_bytes + bytes), after the work enqueued before.
  void read(const ::cl::Buffer& source, void* target, std::size_t bytes, std::size_t offset_bytes = 0);
  // target's first `count` doubles = source's first `count` floats.
  void read_widened(const ::cl::Buffer& source, double* target, std::size_t count);

  std::size_t chunk_bytes() const noexcept { return chunk_bytes_; }

 private:
  // Reads `count` elements of element_bytes each from offset_bytes on, chunk by chunk;
  // drain(staged, first, last) copies the staged elements [first, last) out, converted.
  template <class Drain>
  void stage(const ::cl::Buffer& source, std::size_t count, std::size_t element_bytes, std::size_t offset_bytes,
             Drain drain);
  void wait_all() noexcept;  // no read left writing into the pinned halves

  Env env_;
  std::size_t chunk_bytes_;
  PinnedBuffer pinned_;  // two halves of half_bytes_
  std::size_t half_bytes_ = 0;
  ::cl::Event in_flight_[2];  // the read filling each half, if any
};

}  // namespace clcg::cl
