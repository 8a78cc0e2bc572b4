// Holds all but `keep` MiB of a GPU's memory until killed, so that a larger card holds what a smaller one does
// (4 x H200 held to an H100's 81559 MiB: docs/PERFORMANCE.md). Build and run on the GPU machine:
//   nvcc -O2 -o /tmp/hold scripts/hold_gpu_memory.cu && /tmp/hold 0 81559 &
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc != 3) { std::fprintf(stderr, "usage: %s DEVICE KEEP_MIB\n", argv[0]); return 2; }
  const int dev = std::atoi(argv[1]);
  const size_t keep = size_t(std::atol(argv[2])) << 20;
  if (cudaSetDevice(dev) != cudaSuccess) { std::fprintf(stderr, "hog: no CUDA device %s\n", argv[1]); return 2; }
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  if (keep >= total) { std::fprintf(stderr, "hog %d: KEEP_MIB %s is not below the card's %zu MiB\n", dev, argv[2], total >> 20); return 2; }
  const size_t hog = total - keep;
  void* p = nullptr;
  if (cudaMalloc(&p, hog) != cudaSuccess) { std::printf("hog %d: cudaMalloc failed\n", dev); return 1; }
  cudaMemset(p, 0, hog);
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free_bytes, &total);
  std::printf("hog %d: %zu MiB held, %zu MiB free of %zu\n", dev, hog >> 20, free_bytes >> 20, total >> 20);
  std::fflush(stdout);
  pause();
}
