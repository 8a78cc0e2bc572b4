// The device buffers a process holds, kernel by kernel: an LD_PRELOAD shim over the OpenCL ICD
// loader's clCreateBuffer, clRetainMemObject and clReleaseMemObject (buffers on host memory,
// CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR, left out). At exit it prints the peak of the live
// bytes; with DEVICE_MEMORY_TRACE=1, a line at each kernel enqueued after the live bytes changed:
// the total, the peak so far, the kernel before, and the largest buffers (MB = 10^6 bytes). Where
// a solver's memory goes, phase by phase, on any OpenCL device (PoCL too); data:
// docs/data/h200_held_one_rank_660_call111_2026-11-28.txt.
//   cc -O2 -shared -fPIC -o /tmp/trace.so scripts/device_memory_trace.c -ldl -lOpenCL
//   DEVICE_MEMORY_TRACE=1 LD_PRELOAD=/tmp/trace.so cg-solve ...   (mpirun: -x LD_PRELOAD -x DEVICE_MEMORY_TRACE)
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  cl_mem mem;
  size_t bytes;
  int references;
} Held;

static Held* held;
static size_t held_count, held_capacity;
static size_t live, peak;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char last_kernel[128] = "(none)";

static void* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "device_memory_trace: no %s below this library\n", name);
    abort();
  }
  return f;
}

static Held* find(cl_mem mem) {
  for (size_t i = 0; i < held_count; ++i)
    if (held[i].mem == mem) return &held[i];
  return NULL;
}

// The total, then the buffers of over 0.3 MB, largest first (at most 60).
static void print_live(void) {
  enum { shown = 60 };
  const Held* top[shown] = {0};
  for (size_t i = 0; i < held_count; ++i)
    for (int k = 0; k < shown; ++k)
      if (!top[k] || held[i].bytes > top[k]->bytes) {
        for (int j = shown - 1; j > k; --j) top[j] = top[j - 1];
        top[k] = &held[i];
        break;
      }
  fprintf(stderr, "[device_memory_trace] live %.3f MB peak %.3f MB after kernel %s; buffers:", live / 1e6, peak / 1e6,
          last_kernel);
  for (int k = 0; k < shown && top[k] && top[k]->bytes > 300000; ++k) fprintf(stderr, " %.2f", top[k]->bytes / 1e6);
  fprintf(stderr, " (%zu in all)\n", held_count);
}

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host, cl_int* error) {
  static cl_mem (*create)(cl_context, cl_mem_flags, size_t, void*, cl_int*);
  if (!create) create = (cl_mem(*)(cl_context, cl_mem_flags, size_t, void*, cl_int*))real("clCreateBuffer");
  const cl_mem mem = create(context, flags, size, host, error);
  if (mem && !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR))) {
    pthread_mutex_lock(&lock);
    if (held_count == held_capacity) {
      held_capacity = held_capacity ? 2 * held_capacity : 1024;
      held = realloc(held, held_capacity * sizeof(Held));
      if (!held) abort();
    }
    held[held_count++] = (Held){mem, size, 1};
    live += size;
    if (live > peak) peak = live;
    pthread_mutex_unlock(&lock);
  }
  return mem;
}

cl_int clRetainMemObject(cl_mem mem) {
  static cl_int (*retain)(cl_mem);
  if (!retain) retain = (cl_int(*)(cl_mem))real("clRetainMemObject");
  pthread_mutex_lock(&lock);
  Held* h = find(mem);
  if (h) ++h->references;
  pthread_mutex_unlock(&lock);
  return retain(mem);
}

cl_int clReleaseMemObject(cl_mem mem) {
  static cl_int (*release)(cl_mem);
  if (!release) release = (cl_int(*)(cl_mem))real("clReleaseMemObject");
  pthread_mutex_lock(&lock);
  Held* h = find(mem);
  if (h && --h->references == 0) {
    live -= h->bytes;
    *h = held[--held_count];
  }
  pthread_mutex_unlock(&lock);
  return release(mem);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                              const size_t* global, const size_t* local, cl_uint waits, const cl_event* wait,
                              cl_event* event) {
  static cl_int (*enqueue)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint,
                           const cl_event*, cl_event*);
  static size_t printed = (size_t)-1;
  static int every = -1;  // DEVICE_MEMORY_TRACE=1, read once
  if (!enqueue)
    enqueue = (cl_int(*)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint,
                         const cl_event*, cl_event*))real("clEnqueueNDRangeKernel");
  pthread_mutex_lock(&lock);
  if (every < 0) {
    const char* set = getenv("DEVICE_MEMORY_TRACE");
    every = set && *set == '1';
  }
  if (every && live != printed) {
    print_live();
    printed = live;
  }
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof last_kernel, last_kernel, NULL) != CL_SUCCESS)
    snprintf(last_kernel, sizeof last_kernel, "(unnamed)");
  pthread_mutex_unlock(&lock);
  return enqueue(queue, kernel, dims, offset, global, local, waits, wait, event);
}

__attribute__((destructor)) static void print_peak(void) {
  fprintf(stderr, "[device_memory_trace] peak %.3f MB\n", peak / 1e6);
}
