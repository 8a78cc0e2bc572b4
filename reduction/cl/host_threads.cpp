#include "clcg/cl/host_threads.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace clcg::cl {

void parallel_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(cores, n / std::max<std::size_t>(grain, 1));
  if (threads <= 1) {
    f(0, n);
    return;
  }
  const std::size_t piece = (n + threads - 1) / threads;
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const auto run = [&](std::size_t t) {
    try {
      f(std::min(n, t * piece), std::min(n, (t + 1) * piece));
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);  // the calling thread takes the first piece
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace clcg::cl
