// Every device command's time, by kernel name, for any OpenCL program (clcg's set-up and solve
// included) without a change to it: an LD_PRELOAD library that puts every queue in profiling mode
// and an event on every kernel, read, write, copy and fill. At exit it prints, to stderr,
// "KPROF pid name count ms" a name; with KPROF_TIMELINE=path it also writes path.pid, a line a
// command: its enqueue time (CLOCK_MONOTONIC ns, as std::chrono::steady_clock), device start and
// end (ns), name, to place the commands in the program's own timed stages, and a line a buffer
// freed (the release of its last handle): "release", host start and end (ns), its bytes
// (scripts/device_gaps.py reads both: where the device idles, and the frees there).
//   gcc -O2 -shared -fPIC -o libkernel_profile.so scripts/kernel_profile.c -ldl -lOpenCL -lpthread
//   LD_PRELOAD=$PWD/libkernel_profile.so cg-solve --generate poisson3d:256 --precond amg
// (docs/data/h200_one_rank_setup_stages_calls149_151_2026-11-29.txt was made with it.)
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue: older programs still call it
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct { char name[64]; long count; double ns; } Total;
static Total totals[512];
static int ntotals;
typedef struct { cl_event e; int slot; double host; } Pending;
static FILE* timeline;  // KPROF_TIMELINE's file, where asked for
static void open_timeline(void) {
  const char* f = getenv("KPROF_TIMELINE");
  if (f) { char p[512]; snprintf(p, sizeof p, "%s.%d", f, (int)getpid()); timeline = fopen(p, "w"); }
}
static double now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static Pending *pending;
static size_t npending, cap;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int slot_of(const char* name) {
  for (int i = 0; i < ntotals; ++i) if (!strcmp(totals[i].name, name)) return i;
  if (ntotals == 512) return 511;
  strncpy(totals[ntotals].name, name, 63);
  return ntotals++;
}
// Adds a finished command to its total (and the timeline); 0 while it is still queued or running.
static int done(Pending* p, int wait) {
  cl_int st;
  if (wait) clWaitForEvents(1, &p->e);
  if (clGetEventInfo(p->e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS) return 1;
  if (st > CL_COMPLETE) return 0;
  cl_ulong a = 0, b = 0;
  if (st == CL_COMPLETE && clGetEventProfilingInfo(p->e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) == CL_SUCCESS &&
      clGetEventProfilingInfo(p->e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) == CL_SUCCESS) {
    if (timeline) fprintf(timeline, "%.0f %llu %llu %s\n", p->host, (unsigned long long)a, (unsigned long long)b, totals[p->slot].name);
    totals[p->slot].count++;
    totals[p->slot].ns += (double)(b - a);
  }
  clReleaseEvent(p->e);
  return 1;
}
static void sweep(int wait) {
  size_t k = 0;
  for (size_t i = 0; i < npending; ++i)
    if (!done(&pending[i], wait)) pending[k++] = pending[i];
  npending = k;
}
static void report(void);
// Reports at exit() from the first command on: before the program's static objects release the queue.
static void track(cl_event e, const char* name) {
  pthread_mutex_lock(&mu);
  static int registered;
  if (!registered) { registered = 1; atexit(report); open_timeline(); }
  if (npending == cap) { cap = cap ? 2 * cap : 4096; pending = realloc(pending, cap * sizeof *pending); }
  pending[npending].e = e; pending[npending].slot = slot_of(name); pending[npending].host = now_ns(); ++npending;
  if (npending % 2048 == 0) sweep(0);  // (finished events released as the program runs)
  pthread_mutex_unlock(&mu);
}
static void report(void) {
  pthread_mutex_lock(&mu);
  sweep(1);
  double all = 0;
  for (int i = 0; i < ntotals; ++i) all += totals[i].ns;
  for (int i = 0; i < ntotals; ++i)
    fprintf(stderr, "KPROF %d %-40s %8ld %10.2f\n", (int)getpid(), totals[i].name, totals[i].count, totals[i].ns / 1e6);
  fprintf(stderr, "KPROF %d %-40s %8d %10.2f\n", (int)getpid(), "(all device time)", 0, all / 1e6);
  if (timeline) fclose(timeline), timeline = NULL;
  pthread_mutex_unlock(&mu);
}

#define REAL(fn) static __typeof__(&fn) real; if (!real) real = (__typeof__(&fn))dlsym(RTLD_NEXT, #fn)

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
    const cl_queue_properties* p, cl_int* err) {
  REAL(clCreateCommandQueueWithProperties);
  cl_queue_properties q[16]; int n = 0, had = 0;
  for (; p && p[n]; n += 2) { q[n] = p[n]; q[n + 1] = p[n + 1]; if (p[n] == CL_QUEUE_PROPERTIES) { q[n + 1] |= CL_QUEUE_PROFILING_ENABLE; had = 1; } }
  if (!had) { q[n++] = CL_QUEUE_PROPERTIES; q[n++] = CL_QUEUE_PROFILING_ENABLE; }
  q[n] = 0;
  return real(c, d, q, err);
}
CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context c, cl_device_id d,
    cl_command_queue_properties p, cl_int* err) {
  REAL(clCreateCommandQueue);
  return real(c, d, p | CL_QUEUE_PROFILING_ENABLE, err);
}
#define WITH_EVENT(call, name) \
  cl_event mine = NULL; cl_event* use = ev ? ev : &mine; cl_int r = call; \
  if (r == CL_SUCCESS) { clRetainEvent(*use); track(*use, name); if (!ev) clReleaseEvent(mine); } return r
CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t* off,
    const size_t* g, const size_t* l, cl_uint nw, const cl_event* w, cl_event* ev) {
  REAL(clEnqueueNDRangeKernel);
  char name[64] = "?";
  clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
  WITH_EVENT(real(q, k, dim, off, g, l, nw, w, use), name);
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void* p,
    cl_uint nw, const cl_event* w, cl_event* ev) {
  REAL(clEnqueueReadBuffer);
  WITH_EVENT(real(q, b, bl, o, s, p, nw, w, use), "[read]");
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s,
    const void* p, cl_uint nw, const cl_event* w, cl_event* ev) {
  REAL(clEnqueueWriteBuffer);
  WITH_EVENT(real(q, b, bl, o, s, p, nw, w, use), "[write]");
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem a, cl_mem b, size_t x, size_t y, size_t s,
    cl_uint nw, const cl_event* w, cl_event* ev) {
  REAL(clEnqueueCopyBuffer);
  WITH_EVENT(real(q, a, b, x, y, s, nw, w, use), "[copy]");
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void* pat, size_t ps, size_t o,
    size_t s, cl_uint nw, const cl_event* w, cl_event* ev) {
  REAL(clEnqueueFillBuffer);
  WITH_EVENT(real(q, b, pat, ps, o, s, nw, w, use), "[fill]");
}
CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m) {
  REAL(clReleaseMemObject);
  cl_uint refs = 0;
  size_t bytes = 0;
  if (!timeline || clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) != CL_SUCCESS || refs != 1)
    return real(m);
  clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  const double start = now_ns();
  const cl_int r = real(m);
  const double end = now_ns();
  pthread_mutex_lock(&mu);
  if (timeline) fprintf(timeline, "release %.0f %.0f %zu\n", start, end, bytes);
  pthread_mutex_unlock(&mu);
  return r;
}
