// Two solves at once, in two threads, each with its own in-order queue on ONE shared context
// (Env::with_queue(env.make_queue())): the results are the sequential ones to the bit (same x,
// same iteration counts), and the program cache is shared (the threads build nothing new).
// Run under ThreadSanitizer too (docs/RELIABILITY.md, section 4).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "support/cg_problems.hpp"
#include "clcg/solver/krylov/cg_method.hpp"
#include "clcg/solver/krylov/solve.hpp"
#include "support/device_fixture.hpp"

namespace {

using clcg::solver::CgVariant;
using clcg::solver::HostMatrix;
using clcg::solver::Preconditioner;
using clcg::solver::Settings;
using Eigen::VectorXd;

struct Job {
  HostMatrix a;
  VectorXd b;
  Settings settings;
};

struct Outcome {
  VectorXd x;
  clcg::solver::SolveInfo info;
};

Outcome run(const clcg::cl::Env& env, const Job& job) {
  auto result = clcg::solver::solve(env, job.a, job.b, job.settings);
  return {std::move(result.x), std::move(result.info)};
}

void expect_identical(const Outcome& sequential, const Outcome& threaded, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(threaded.info.status, sequential.info.status) << threaded.info.message;
  EXPECT_EQ(threaded.info.iterations, sequential.info.iterations);
  ASSERT_EQ(threaded.x.size(), sequential.x.size());
  EXPECT_EQ(std::memcmp(threaded.x.data(), sequential.x.data(), sizeof(double) * std::size_t(sequential.x.size())), 0)
      << "x differs from the sequential solve";
  EXPECT_EQ(std::memcmp(&threaded.info.recursive_residual, &sequential.info.recursive_residual, sizeof(double)), 0);
}

std::vector<Job> jobs() {
  // Different matrices, variants and preconditioners in the two threads, so that they use
  // different kernels (and the same ones) at the same time.
  std::vector<Job> list;
  {
    Job j{clcg::test::poisson(48, 40), {}, {}};
    j.b = j.a * VectorXd::LinSpaced(j.a.cols(), -1, 1);
    j.settings.variant = CgVariant::textbook;
    j.settings.preconditioner = Preconditioner::jacobi;
    list.push_back(std::move(j));
  }
  {
    Job j{clcg::test::random_dd_spd(1500, 9, 11), {}, {}};
    j.b = j.a * VectorXd::Ones(j.a.cols());
    j.settings.variant = CgVariant::fused;
    list.push_back(std::move(j));
  }
  {
    Job j{clcg::test::poisson(12, 11, 10), {}, {}};
    j.b = j.a * VectorXd::Ones(j.a.cols());
    j.settings.variant = CgVariant::pipelined;
    list.push_back(std::move(j));
  }
  return list;
}

TEST(Concurrency, TwoThreadsOnOwnQueuesOfOneContextMatchSequentialSolvesBitForBit) {
  const clcg::cl::Env& env = clcg::test::test_env();
  const std::vector<Job> work = jobs();

  // Sequential reference, on the shared queue. Also builds every program once.
  std::vector<Outcome> sequential;
  for (const Job& job : work) {
    sequential.push_back(run(env, job));
    ASSERT_TRUE(sequential.back().info.converged()) << sequential.back().info.message;
  }
  const std::size_t builds_before = env.programs().builds();

  // Each thread gets its own queue on the same context and the same program cache.
  const clcg::cl::Env env1 = env.with_queue(env.make_queue());
  const clcg::cl::Env env2 = env.with_queue(env.make_queue());
  ASSERT_EQ(&env1.programs(), &env.programs());
  ASSERT_EQ(&env2.programs(), &env.programs());
  ASSERT_EQ(env1.context()(), env.context()());
  ASSERT_NE(env1.queue()(), env2.queue()());

  constexpr int rounds = 3;
  std::vector<Outcome> first(work.size() * rounds), second(work.size() * rounds);
  std::string error1, error2;
  auto worker = [&](const clcg::cl::Env& own, std::vector<Outcome>& out, std::string& error, bool reverse) {
    try {
      for (int round = 0; round < rounds; ++round)
        for (std::size_t i = 0; i < work.size(); ++i) {
          const std::size_t j = reverse ? work.size() - 1 - i : i;  // the two threads overlap different jobs
          out[std::size_t(round) * work.size() + j] = run(own, work[j]);
        }
    } catch (const std::exception& e) {
      error = e.what();
    }
  };
  std::thread t1(worker, std::cref(env1), std::ref(first), std::ref(error1), false);
  std::thread t2(worker, std::cref(env2), std::ref(second), std::ref(error2), true);
  t1.join();
  t2.join();
  ASSERT_EQ(error1, "");
  ASSERT_EQ(error2, "");

  for (int round = 0; round < rounds; ++round)
    for (std::size_t j = 0; j < work.size(); ++j) {
      const std::string what = "job " + std::to_string(j) + " (" +
                               std::string(clcg::solver::cg_variant_name(work[j].settings.variant)) + "), round " +
                               std::to_string(round);
      expect_identical(sequential[j], first[std::size_t(round) * work.size() + j], "thread 1, " + what);
      expect_identical(sequential[j], second[std::size_t(round) * work.size() + j], "thread 2, " + what);
    }
  EXPECT_EQ(env.programs().builds(), builds_before) << "the threads rebuilt programs instead of sharing the cache";
}

TEST(Concurrency, ColdCacheBuiltFromTwoThreadsAtOnceIsBuiltOnceAndStillMatches) {
  // A fresh context and cache: both threads ask for the same programs at the same moment.
  const ::cl::Device device = clcg::test::test_env().device();
  const ::cl::Context context(device);
  const clcg::cl::Env base(context, device, ::cl::CommandQueue(context, device));  // its own new cache
  const std::vector<Job> work = jobs();
  Outcome a, b;
  std::string error_a, error_b;
  std::thread t1([&] {
    try {
      a = run(base.with_queue(base.make_queue()), work[1]);
    } catch (const std::exception& e) {
      error_a = e.what();
    }
  });
  std::thread t2([&] {
    try {
      b = run(base.with_queue(base.make_queue()), work[1]);
    } catch (const std::exception& e) {
      error_b = e.what();
    }
  });
  t1.join();
  t2.join();
  ASSERT_EQ(error_a, "");
  ASSERT_EQ(error_b, "");
  expect_identical(a, b, "the two cold-cache solves");
  const std::size_t builds = base.programs().builds();
  EXPECT_EQ(builds, base.programs().size()) << "a program was built twice";
  const Outcome again = run(base, work[1]);  // warm: nothing new
  EXPECT_EQ(base.programs().builds(), builds);
  expect_identical(a, again, "warm solve after the threads");
}

}  // namespace
