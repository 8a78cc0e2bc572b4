#pragma once
// How many host threads the host passes use (reading Matrix Market files, generating test
// matrices, the symmetry check) and a way to split a loop over them. Every pass that uses
// them gives the same bits for any thread count; 1 thread is the serial reference.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace clcg::solver {

// CLCG_THREADS when set (a whole number 1 .. 1024; anything else is an InputError naming the
// variable), else std::thread::hardware_concurrency() (1 when unknown).
unsigned host_threads();

// The thread count to use for `work` items when each thread should get at least `grain`:
// 0 means host_threads(); never more threads than work / grain, never fewer than 1.
unsigned threads_for(std::size_t work, std::size_t grain, unsigned requested = 0);

// (For parallel_ranges.) Runs run(t) for t = 1 .. threads-1 on the process's pool of waiting
// threads and run(0) on the caller, and returns true; false, running nothing, where the pool is
// taken (another thread's parallel_ranges), the caller is one of its threads, or the process is
// a child forked after the pool started. `run` must not throw.
bool run_on_thread_pool(unsigned threads, const std::function<void(unsigned)>& run);

// Runs f(begin, end, t) for t = 0 .. threads-1 over contiguous ranges that split [0, n)
// evenly, on `threads` threads (the caller runs t = 0): the process's pool of threads, kept
// between calls (a 64-thread host spent more time starting threads than in short passes),
// else threads of its own. The first exception, in range order, is rethrown after every range
// has finished.
template <class F>
void parallel_ranges(std::size_t n, unsigned threads, F&& f) {
    threads = std::max(1U, threads);
    const auto bound = [&](std::size_t t) { return n / threads * t + std::min<std::size_t>(t, n % threads); };
    std::vector<std::exception_ptr> failure(threads);
    auto run = [&](unsigned t) {
        try {
            f(bound(t), bound(t + 1), t);
        } catch (...) {
            failure[t] = std::current_exception();
        }
    };
    if (threads == 1) {
        run(0);
    } else if (!run_on_thread_pool(threads, run)) {
        std::vector<std::thread> own;
        own.reserve(threads - 1);
        for (unsigned t = 1; t < threads; ++t) own.emplace_back(run, t);
        run(0);
        for (std::thread& thread : own) thread.join();
    }
    for (const std::exception_ptr& e : failure)
        if (e) std::rethrow_exception(e);
}

// f(i) for every i < n, on threads_for(n, grain) threads by parallel_ranges: for passes whose
// items depend on themselves alone.
template <class F>
void parallel_for(std::size_t n, std::size_t grain, F&& f) {
  parallel_ranges(n, threads_for(n, grain), [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t i = begin; i < end; ++i) f(i);
  });
}

}  // namespace clcg::solver
