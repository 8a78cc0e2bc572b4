// MPI_Alltoallv between pairs of ranks of one host into memory of several kinds: (a) touched before, (b) new pages
// (mapped for each exchange), (c) new pages first touched on OpenMP threads (time included), (d) a persistent MPI-3
// shared-memory window copied into and out of by OpenMP threads, (e) new pages mapped as BulkVector maps blocks of
// 32 MiB and more (2 MiB aligned, huge pages advised), (f) malloc'd for each exchange. Best of 5, GB/s each way.
// The rates the distributed AMG set-up's exchanges (remote_rows.hpp's all_to_all) can reach on a host
// (docs/PERFORMANCE.md, "Where the set-up grows with the ranks").
//
//   mpicc -O2 -fopenmp -o /tmp/mpi_receive_pages scripts/mpi_receive_pages.c
//   OMP_NUM_THREADS=8 mpirun -x OMP_NUM_THREADS -np 2 /tmp/mpi_receive_pages
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static void pcopy(char* to, const char* from, size_t n) {
#pragma omp parallel
  { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t b = n / T * t, e = t == T - 1 ? n : n / T * (t + 1); memcpy(to + b, from + b, e - b); }
}
static void ptouch(char* to, size_t n) {
#pragma omp parallel
  { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t b = n / T * t, e = t == T - 1 ? n : n / T * (t + 1);
    for (size_t i = b; i < e; i += 4096) to[i] = 0; }
}
static char* fresh(size_t n) { return mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
static char* huge(size_t n) {  // as BulkVector maps 32 MiB and more: 2 MiB aligned, huge pages advised
  const size_t hp = 2 << 20; char* raw = mmap(NULL, n + hp, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* p = raw + (hp - (size_t)raw % hp) % hp; madvise(p, n, MADV_HUGEPAGE); return p; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0 || size > 64) {
    if (rank == 0) fprintf(stderr, "mpi_receive_pages: an even number of ranks (pairs), at most 64; got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  const size_t most = (size_t)128 << 20;
  char* seg; MPI_Win win;
  MPI_Win_allocate_shared(most, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &seg, &win);
  memset(seg, 0, most);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  char* src = malloc(most); char* touched = malloc(most); memset(src, 1, most); memset(touched, 0, most);
  int sc[64], sd[64], rc[64], rd[64];
  for (int mb = 2; mb <= 128; mb *= 4) {
    const size_t n = (size_t)mb << 20;  // bytes to the other rank
    for (int r = 0; r < size; ++r) { sc[r] = r == (rank ^ 1) ? (int)(n / 8) : 0; sd[r] = 0; rc[r] = sc[r]; rd[r] = 0; }
    double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
    for (int rep = 0; rep < 5; ++rep)
      for (int m = 0; m < 6; ++m) {
        char* dst = m == 0 ? touched : m == 4 ? huge(n) : m == 5 ? malloc(n) : fresh(n);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        if (m == 2) ptouch(dst, n);
        if (m < 3 || m > 3) {
          MPI_Alltoallv(src, sc, sd, MPI_DOUBLE, dst, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
        } else {
          pcopy(seg, src, n);
          MPI_Win_sync(win); MPI_Barrier(MPI_COMM_WORLD); MPI_Win_sync(win);
          MPI_Aint sz; int unit; char* theirs; MPI_Win_shared_query(win, rank ^ 1, &sz, &unit, &theirs);
          pcopy(dst, theirs, n);
          MPI_Barrier(MPI_COMM_WORLD);
        }
        t = MPI_Wtime() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t < best[m]) best[m] = t;
        if (m == 5) free(dst); else if (m > 0) munmap(dst, n);
      }
    if (rank == 0) printf("%4d MB each way: GB/s touched %.2f  fresh %.2f  fresh+touch %.2f  window %.2f  huge %.2f  malloc %.2f (%d threads)\n", mb,
                          n / best[0] / 1e9, n / best[1] / 1e9, n / best[2] / 1e9, n / best[3] / 1e9, n / best[4] / 1e9, n / best[5] / 1e9, omp_get_max_threads());
  }
  MPI_Win_unlock_all(win); MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
