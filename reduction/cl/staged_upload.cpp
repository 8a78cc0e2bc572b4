#include "clcg/cl/staged_upload.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "clcg/cl/host_threads.hpp"

namespace clcg::cl {

StagedUpload::StagedUpload(const Env& env, std::size_t chunk_bytes, std::size_t direct_bytes)
    : env_(env), chunk_bytes_(staging_chunk_bytes(chunk_bytes)), direct_bytes_(direct_bytes) {}

StagedUpload::~StagedUpload() {
  // No exceptions from a destructor; the pinned halves must outlive the writes reading them.
  for (const ::cl::Event& event : in_flight_)
    if (event()) clWaitForEvents(1, &event());
}

template <class Fill>
void StagedUpload::stage(const ::cl::Buffer& target, std::size_t count, std::size_t element_bytes,
                         std::size_t offset_bytes, Fill fill) {
  if (count == 0) return;
  const std::size_t wanted = std::min(chunk_bytes_, (count * element_bytes + 7) / 8 * 8);
  if (wanted > half_bytes_) {  // the first write, or one larger than any before: grow
    finish();
    pinned_ = PinnedBuffer();  // freed before the larger one is allocated
    pinned_ = PinnedBuffer(env_, 2 * wanted);
    half_bytes_ = wanted;
  }
  const std::size_t per_chunk = half_bytes_ / element_bytes;
  for (std::size_t first = 0; first < count; first += per_chunk) {
    const std::size_t n = std::min(per_chunk, count - first);
    ::cl::Event& event = in_flight_[next_];
    if (event()) event.wait();  // the write that last read this half is done
    unsigned char* destination = half(next_);
    parallel_ranges(n, staging_copy_grain_bytes / element_bytes, [&](std::size_t begin, std::size_t end) {
      fill(destination + begin * element_bytes, first + begin, first + end);
    });
    env_.queue().enqueueWriteBuffer(target, CL_FALSE, offset_bytes + first * element_bytes, n * element_bytes,
                                    destination, nullptr, &event);
    next_ = 1 - next_;
  }
}

void StagedUpload::write(const ::cl::Buffer& target, const void* source, std::size_t bytes, std::size_t offset_bytes) {
  if (bytes > 0 && direct(bytes)) {
    env_.queue().enqueueWriteBuffer(target, CL_TRUE, offset_bytes, bytes, source);
    return;
  }
  const auto* from = static_cast<const unsigned char*>(source);
  stage(target, bytes, 1, offset_bytes, [from](unsigned char* to, std::size_t first, std::size_t last) {
    std::memcpy(to, from + first, last - first);
  });
}

void StagedUpload::write_narrowed(const ::cl::Buffer& target, const double* source, std::size_t count) {
  if (count > 0 && direct(count * sizeof(float))) {
    std::vector<float> narrow(count);
    parallel_ranges(count, staging_copy_grain_bytes / sizeof(float), [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) narrow[i] = static_cast<float>(source[i]);
    });
    env_.queue().enqueueWriteBuffer(target, CL_TRUE, 0, count * sizeof(float), narrow.data());
    return;
  }
  stage(target, count, sizeof(float), 0, [source](unsigned char* to, std::size_t first, std::size_t last) {
    float* narrow = reinterpret_cast<float*>(to);  // the pinned halves are page-aligned
    for (std::size_t i = first; i < last; ++i) *narrow++ = static_cast<float>(source[i]);
  });
}

void StagedUpload::finish() {
  for (::cl::Event& event : in_flight_) {
    if (event()) event.wait();
    event = ::cl::Event();
  }
}

}  // namespace clcg::cl
