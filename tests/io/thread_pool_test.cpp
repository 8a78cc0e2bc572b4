// solver::parallel_ranges on the process's pool of threads: every index once for any count of
// threads, the pool reused call after call, a call from inside a piece and calls from two
// threads at once (both run on threads of their own), a child forked after the pool started
// (it has none of its threads), and exceptions reaching the caller.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clcg/solver/io/host_threads.hpp"

namespace {

using clcg::solver::parallel_ranges;

// Runs parallel_ranges(n, threads) and checks that the pieces cover [0, n) once, numbered 0 ..
// threads-1, each once.
void expect_covered(std::size_t n, unsigned threads) {
  std::vector<std::atomic<int>> seen(n);
  std::vector<std::atomic<int>> pieces(threads);
  parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    ASSERT_LE(begin, end);
    ASSERT_LE(end, n);
    ASSERT_LT(t, threads);
    ++pieces[t];
    for (std::size_t i = begin; i < end; ++i) ++seen[i];
  });
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i << " of " << n;
  for (unsigned t = 0; t < threads; ++t) ASSERT_EQ(pieces[t].load(), 1) << "piece " << t;
}

TEST(ThreadPool, EveryIndexOnceForAnyThreadCount) {
  for (const unsigned threads : {1u, 2u, 3u, 7u, 16u, 5u})
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(6), std::size_t(100003)}) {
      SCOPED_TRACE(testing::Message() << threads << " threads, n = " << n);
      expect_covered(n, threads);
    }
}

TEST(ThreadPool, ReusedCallAfterCall) {
  std::atomic<std::size_t> sum{0};
  for (int call = 0; call < 2000; ++call)
    parallel_ranges(64, 4, [&](std::size_t begin, std::size_t end, unsigned) { sum += end - begin; });
  EXPECT_EQ(sum.load(), 2000u * 64u);
}

TEST(ThreadPool, ACallFromInsideAPieceRuns) {
  std::atomic<std::size_t> inner{0};
  parallel_ranges(4, 4, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t i = begin; i < end; ++i)
      parallel_ranges(10, 3, [&](std::size_t b, std::size_t e, unsigned) { inner += e - b; });
  });
  EXPECT_EQ(inner.load(), 40u);
}

TEST(ThreadPool, CallsFromTwoThreadsAtOnce) {
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c)
    callers.emplace_back([] {
      for (int call = 0; call < 200; ++call) expect_covered(1000, 3);
    });
  for (std::thread& t : callers) t.join();
}

TEST(ThreadPool, AForkedChildRunsOnThreadsOfItsOwn) {
  expect_covered(1000, 4);  // the pool's threads exist in this process
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a child waiting on threads it does not have dies instead of hanging the test
    std::atomic<std::size_t> sum{0};
    parallel_ranges(1000, 4, [&](std::size_t begin, std::size_t end, unsigned) { sum += end - begin; });
    _exit(sum.load() == 1000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ThreadPool, AnExceptionReachesTheCallerAndThePoolGoesOn) {
  EXPECT_THROW(parallel_ranges(100, 4,
                               [](std::size_t, std::size_t, unsigned t) {
                                 if (t == 2) throw std::runtime_error("piece 2");
                               }),
               std::runtime_error);
  expect_covered(100, 4);
}

}  // namespace
