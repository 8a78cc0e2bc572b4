// How fast the host's threads fill 64 MiB halves with 12-byte entries (a double and a 32-bit
// column, in two arrays, as the set-up's upload halves hold them), with plain and with
// non-temporal stores, best of 3 (docs/PERFORMANCE.md, "Where the set-up grows with the ranks").
//
//   gcc -O2 -fopenmp -o /tmp/host_fill_rate scripts/host_fill_rate.c
//   OMP_NUM_THREADS=16 /tmp/host_fill_rate 100
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  const size_t half = 64 << 20, per = half / 12; const int reps = argc > 1 ? atoi(argv[1]) : 100;
  char* buf = aligned_alloc(4096, 2 * half); memset(buf, 0, 2 * half);
  for (int mode = 0; mode < 2; ++mode) {
    double best = 1e9;
    for (int trial = 0; trial < 3; ++trial) {
      double t0 = now();
      for (int r = 0; r < reps; ++r) {
        char* base = buf + (r % 2) * half; double* v = (double*)base; int32_t* c = (int32_t*)(base + per * 8);
#pragma omp parallel for schedule(static)
        for (size_t b = 0; b < per; b += 4096) {
          size_t e = b + 4096 < per ? b + 4096 : per;
          if (mode == 0) { for (size_t i = b; i < e; ++i) { v[i] = (double)(i % 7) - 1.0; c[i] = (int32_t)(i * 3); } }
          else { for (size_t i = b; i < e; ++i) { double x = (double)(i % 7) - 1.0; long long bits; memcpy(&bits, &x, 8);
                   _mm_stream_si64((long long*)(v + i), bits); _mm_stream_si32((int*)(c + i), (int)(i * 3)); } _mm_sfence(); }
        }
      }
      double t = now() - t0; if (t < best) best = t;
    }
    printf("%s: %.1f GB/s of entries (%d threads)\n", mode ? "non-temporal" : "plain", reps * (double)per * 12 / best / 1e9, omp_get_max_threads());
  }
  return 0;
}
