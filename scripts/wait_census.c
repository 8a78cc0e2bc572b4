// Where a program waits: every host wait on the device (a blocking read, write or map, clFinish,
// a wait for an event not yet complete) and every blocking MPI call, counted and timed by call
// site (its six callers' addresses), without a change to the program: an LD_PRELOAD library. Each such
// wait drains the device's queue on a set-up's critical path, and on several GPUs waits for the
// slowest rank too, so their count is the set-up's latency floor on any machine, PoCL included.
// At exit rank 0 (or a process outside mpirun) writes "count what seconds module+offset ..." lines to
// $WAIT_CENSUS (default wait_census.txt); scripts/wait_census.py names the callers and sums them.
//   mpicc -O2 -shared -fPIC -o libwait_census.so scripts/wait_census.c -ldl
//   mpirun -np 4 -x LD_PRELOAD=$PWD/libwait_census.so build/apps/cg-solve --generate poisson3d:48 --precond amg
//   scripts/wait_census.py wait_census.txt
// (A wait for events already complete is counted apart, as "wait-done": it costs nothing; which
// waits find their events complete depends on timing, so counts move by a few between runs.)
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { depth = 6, max_sites = 8192 };
typedef struct { const char* what; void* site[depth]; long count; double seconds; } Site;
static Site sites[max_sites];
static int nsites;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static void count(const char* what, double seconds) {
  void* frames[depth + 2];
  const int got = backtrace(frames, depth + 2);
  void* site[depth] = {0};
  for (int i = 2; i < got; ++i) site[i - 2] = frames[i];  // (past count() and the wrapper)
  pthread_mutex_lock(&mu);
  int i = 0;
  while (i < nsites && !(sites[i].what == what && !memcmp(sites[i].site, site, sizeof site))) ++i;
  if (i < nsites) ++sites[i].count, sites[i].seconds += seconds;
  else if (nsites < max_sites)
    sites[nsites].what = what, memcpy(sites[nsites].site, site, sizeof site), sites[nsites].seconds = seconds,
    sites[nsites++].count = 1;
  pthread_mutex_unlock(&mu);
}

static void write_census(void) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (rank && strcmp(rank, "0") != 0) return;
  const char* path = getenv("WAIT_CENSUS");
  FILE* out = fopen(path ? path : "wait_census.txt", "w");
  if (!out) return;
  for (int i = 0; i < nsites; ++i) {
    fprintf(out, "%ld %s %.6f", sites[i].count, sites[i].what, sites[i].seconds);
    for (int j = 0; j < depth; ++j) {
      Dl_info where;
      if (sites[i].site[j] && dladdr(sites[i].site[j], &where) && where.dli_fname)  // (the call's own byte: -1)
        fprintf(out, " %s+%lx", where.dli_fname, (unsigned long)((char*)sites[i].site[j] - (char*)where.dli_fbase - 1));
      else
        fprintf(out, " ?");
    }
    fputc('\n', out);
  }
  fclose(out);
}
__attribute__((constructor)) static void start(void) { atexit(write_census); }

#define REAL(name) \
  static __typeof__(&name) real; \
  if (!real) real = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

// Each wrapper times the real call and counts it with its time (`what` a string literal).
#define TIMED(what, call) \
  do { \
    const double start_ = now(); \
    __typeof__(call) result_ = call; \
    count(what, now() - start_); \
    return result_; \
  } while (0)

cl_int clFinish(cl_command_queue q) {
  REAL(clFinish);
  TIMED("finish", real(q));
}
cl_int clWaitForEvents(cl_uint n, const cl_event* events) {
  REAL(clWaitForEvents);
  static __typeof__(&clGetEventInfo) info;
  if (!info) info = (__typeof__(&clGetEventInfo))dlsym(RTLD_NEXT, "clGetEventInfo");
  int pending = 0;
  for (cl_uint i = 0; i < n; ++i) {
    cl_int status = CL_COMPLETE;
    info(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    pending |= status != CL_COMPLETE;
  }
  TIMED(pending ? "wait" : "wait-done", real(n, events));
}
cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t at, size_t bytes, void* to, cl_uint n,
                           const cl_event* after, cl_event* e) {
  REAL(clEnqueueReadBuffer);
  if (!blocking) return real(q, b, blocking, at, bytes, to, n, after, e);
  TIMED("read", real(q, b, blocking, at, bytes, to, n, after, e));
}
cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t at, size_t bytes, const void* from,
                            cl_uint n, const cl_event* after, cl_event* e) {
  REAL(clEnqueueWriteBuffer);
  if (!blocking) return real(q, b, blocking, at, bytes, from, n, after, e);
  TIMED("write", real(q, b, blocking, at, bytes, from, n, after, e));
}
void* clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags, size_t at, size_t bytes,
                         cl_uint n, const cl_event* after, cl_event* e, cl_int* error) {
  REAL(clEnqueueMapBuffer);
  if (!blocking) return real(q, b, blocking, flags, at, bytes, n, after, e, error);
  TIMED("map", real(q, b, blocking, flags, at, bytes, n, after, e, error));
}

// The blocking MPI calls a set-up makes (collectives, and the waits of its point-to-point messages).
#define MPI_WAIT(name, params, args) \
  int name params { \
    REAL(name); \
    TIMED(#name, real args); \
  }
MPI_WAIT(MPI_Allreduce, (const void* a, void* b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (a, b, n, t, o, c))
MPI_WAIT(MPI_Allgather, (const void* a, int n, MPI_Datatype t, void* b, int m, MPI_Datatype u, MPI_Comm c),
         (a, n, t, b, m, u, c))
MPI_WAIT(MPI_Allgatherv,
         (const void* a, int n, MPI_Datatype t, void* b, const int* m, const int* at, MPI_Datatype u, MPI_Comm c),
         (a, n, t, b, m, at, u, c))
MPI_WAIT(MPI_Alltoall, (const void* a, int n, MPI_Datatype t, void* b, int m, MPI_Datatype u, MPI_Comm c),
         (a, n, t, b, m, u, c))
MPI_WAIT(MPI_Alltoallv,
         (const void* a, const int* n, const int* at, MPI_Datatype t, void* b, const int* m, const int* bt,
          MPI_Datatype u, MPI_Comm c),
         (a, n, at, t, b, m, bt, u, c))
MPI_WAIT(MPI_Bcast, (void* a, int n, MPI_Datatype t, int root, MPI_Comm c), (a, n, t, root, c))
MPI_WAIT(MPI_Barrier, (MPI_Comm c), (c))
MPI_WAIT(MPI_Wait, (MPI_Request * r, MPI_Status* s), (r, s))
MPI_WAIT(MPI_Waitall, (int n, MPI_Request r[], MPI_Status s[]), (n, r, s))
MPI_WAIT(MPI_Waitany, (int n, MPI_Request r[], int* i, MPI_Status* s), (n, r, i, s))
MPI_WAIT(MPI_Waitsome, (int n, MPI_Request r[], int* m, int i[], MPI_Status s[]), (n, r, m, i, s))
