#include "clcg/cl/staged_download.hpp"

#include <algorithm>
#include <cstring>

#include "clcg/cl/host_threads.hpp"

namespace clcg::cl {

StagedDownload::StagedDownload(const Env& env, std::size_t chunk_bytes)
    : env_(env), chunk_bytes_(staging_chunk_bytes(chunk_bytes)) {}

StagedDownload::~StagedDownload() { wait_all(); }

void StagedDownload::wait_all() noexcept {
  // (also on the way out of an exception: the pinned halves must outlive the reads filling them)
  for (::cl::Event& event : in_flight_) {
    if (event()) clWaitForEvents(1, &event());
    event = ::cl::Event();
  }
}

template <class Drain>
void StagedDownload::stage(const ::cl::Buffer& source, std::size_t count, std::size_t element_bytes,
                           std::size_t offset_bytes, Drain drain) {
  if (count == 0) return;
  const std::size_t wanted = std::min(chunk_bytes_, (count * element_bytes + 7) / 8 * 8);
  if (wanted > half_bytes_) {  // the first read, or one larger than any before: grow
    pinned_ = PinnedBuffer();  // freed before the larger one is allocated
    pinned_ = PinnedBuffer(env_, 2 * wanted);
    half_bytes_ = wanted;
  }
  const std::size_t per_chunk = half_bytes_ / element_bytes;
  const std::size_t chunks = (count + per_chunk - 1) / per_chunk;
  const auto enqueue = [&](std::size_t chunk) {
    const std::size_t first = chunk * per_chunk, n = std::min(per_chunk, count - first);
    env_.queue().enqueueReadBuffer(source, CL_FALSE, offset_bytes + first * element_bytes, n * element_bytes,
                                   pinned_.data() + (chunk % 2) * half_bytes_, nullptr, &in_flight_[chunk % 2]);
  };
  try {
    enqueue(0);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
      if (chunk + 1 < chunks) enqueue(chunk + 1);  // the device fills the other half meanwhile
      ::cl::Event& event = in_flight_[chunk % 2];
      event.wait();
      event = ::cl::Event();
      const unsigned char* staged = pinned_.data() + (chunk % 2) * half_bytes_;
      const std::size_t first = chunk * per_chunk, n = std::min(per_chunk, count - first);
      parallel_ranges(n, staging_copy_grain_bytes / element_bytes, [&](std::size_t begin, std::size_t end) {
        drain(staged + begin * element_bytes, first + begin, first + end);
      });
    }
  } catch (...) {
    wait_all();
    throw;
  }
}

void StagedDownload::read(const ::cl::Buffer& source, void* target, std::size_t bytes, std::size_t offset_bytes) {
  auto* to = static_cast<unsigned char*>(target);
  stage(source, bytes, 1, offset_bytes, [to](const unsigned char* from, std::size_t first, std::size_t last) {
    std::memcpy(to + first, from, last - first);
  });
}

void StagedDownload::read_widened(const ::cl::Buffer& source, double* target, std::size_t count) {
  stage(source, count, sizeof(float), 0, [target](const unsigned char* from, std::size_t first, std::size_t last) {
    const float* narrow = reinterpret_cast<const float*>(from);  // the pinned halves are page-aligned
    for (std::size_t i = first; i < last; ++i) target[i] = static_cast<double>(*narrow++);
  });
}

}  // namespace clcg::cl
