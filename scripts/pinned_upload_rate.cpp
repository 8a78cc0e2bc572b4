// The host-to-device copy rate from pinned halves, as the distributed AMG set-up's upload of A
// writes them (rank_setup.cpp's write_made_entries: 64 MiB halves, non-blocking writes
// alternating), 4 GiB in all, best of 3: what a GPU's link takes, alone and beside another
// process's (docs/PERFORMANCE.md, "Where the set-up grows with the ranks").
//
//   g++ -O2 -std=c++17 -o /tmp/pinned_upload_rate scripts/pinned_upload_rate.cpp -lOpenCL
//   /tmp/pinned_upload_rate 0 & /tmp/pinned_upload_rate 1    # the first platform's GPUs 0 and 1 at once
//   /tmp/pinned_upload_rate 0 fill                            # one thread writes each half first
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  const int index = argc > 1 ? std::atoi(argv[1]) : 0; const bool fill = argc > 2;
  std::vector<cl::Platform> platforms; cl::Platform::get(&platforms);
  std::vector<cl::Device> devices; platforms[0].getDevices(CL_DEVICE_TYPE_GPU, &devices);
  cl::Device device = devices.at(index); cl::Context context(device); cl::CommandQueue queue(context, device);
  const size_t half = size_t(64) << 20, total = size_t(4) << 30;
  cl::Buffer pinned(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, 2 * half);
  char* host = static_cast<char*>(queue.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_WRITE, 0, 2 * half));
  std::memset(host, 1, 2 * half);
  cl::Buffer target(context, CL_MEM_READ_WRITE, total);
  double best = 1e9;
  for (int trial = 0; trial < 3; ++trial) {
    cl::Event sent[2];
    auto t0 = std::chrono::steady_clock::now();
    for (size_t at = 0, c = 0; at < total; at += half, ++c) {
      if (sent[c % 2]()) sent[c % 2].wait();
      if (fill) std::memset(host + (c % 2) * half, int(c), half);
      queue.enqueueWriteBuffer(target, CL_FALSE, at, half, host + (c % 2) * half, nullptr, &sent[c % 2]);
    }
    queue.finish();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  std::printf("device %d%s: %.1f GB/s\n", index, fill ? " (halves filled by one thread)" : "", total / best / 1e9);
  return 0;
}
