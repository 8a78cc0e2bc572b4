// The convergence gate's rule and baseline file, without a device: the comparison accepts
// rounding-sized moves and rejects regression-sized ones (fabricated entries), every entry of
// tests/baselines/convergence.json is well formed, and a perturbed copy of each recorded entry
// (+20 % iterations, a changed status, a 10x residual) fails its own rule.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "krylov/convergence_baseline.hpp"

namespace {

using namespace clcg::test::baseline;

Entry fabricated(bool ill, std::int64_t iterations, double residual) {
  Entry e;
  e.matrix = "fabricated.mtx";
  e.conditioning = ill ? "ill" : "well";
  e.rule = ill ? ill_conditioned_rule : well_conditioned_rule;
  e.iterations = iterations;
  e.true_residual = residual;
  return e;
}

Observed same_as(const Entry& e) { return {e.status, e.iterations, e.true_residual}; }

TEST(ConvergenceRule, WellConditionedAllowsTwoStepsOrTwoPercent) {
  const Entry small = fabricated(false, 50, 7e-9);
  Observed now = same_as(small);
  EXPECT_TRUE(violations(small, now).empty());
  now.iterations = 52;
  EXPECT_TRUE(violations(small, now).empty());
  now.iterations = 48;
  EXPECT_TRUE(violations(small, now).empty());
  now.iterations = 53;
  EXPECT_EQ(violations(small, now).size(), 1u);

  const Entry large = fabricated(false, 500, 7e-9);  // 2 % of 500 = 10
  now = same_as(large);
  now.iterations = 510;
  EXPECT_TRUE(violations(large, now).empty());
  now.iterations = 511;
  EXPECT_FALSE(violations(large, now).empty());
  now.iterations = 600;  // +20 %: a regression
  ASSERT_EQ(violations(large, now).size(), 1u);
  EXPECT_NE(violations(large, now)[0].find("iterations 600 vs 500"), std::string::npos);
}

TEST(ConvergenceRule, IllConditionedAllowsFiveStepsOrTenPercent) {
  const Entry small = fabricated(true, 40, 5e-9);
  Observed now = same_as(small);
  now.iterations = 45;
  EXPECT_TRUE(violations(small, now).empty());
  now.iterations = 34;
  EXPECT_FALSE(violations(small, now).empty());

  const Entry large = fabricated(true, 1000, 5e-9);
  now = same_as(large);
  now.iterations = 1100;
  EXPECT_TRUE(violations(large, now).empty());
  now.iterations = 1200;
  EXPECT_FALSE(violations(large, now).empty());
}

TEST(ConvergenceRule, StatusMustBeIdentical) {
  const Entry e = fabricated(false, 50, 7e-9);
  Observed now = same_as(e);
  now.status = "max_iterations";
  ASSERT_EQ(violations(e, now).size(), 1u);
  EXPECT_NE(violations(e, now)[0].find("status max_iterations (baseline converged)"), std::string::npos);
}

TEST(ConvergenceRule, TrueResidualBoundIsTheLargerOfOneAndAHalfTolAndThreeTimesTheBaseline) {
  Entry e = fabricated(false, 50, 2e-9);  // 3 x 2e-9 = 6e-9 < 1.5e-8: the tolerance term rules
  EXPECT_DOUBLE_EQ(residual_bound(e), 1.5e-8);
  Observed now = same_as(e);
  now.true_residual = 1.4e-8;
  EXPECT_TRUE(violations(e, now).empty());
  now.true_residual = 1.6e-8;
  EXPECT_FALSE(violations(e, now).empty());

  e.true_residual = 1e-6;  // a non-converged baseline: 3 x baseline rules
  EXPECT_DOUBLE_EQ(residual_bound(e), 3e-6);
  now.true_residual = 2.9e-6;
  EXPECT_TRUE(violations(e, now).empty());
  now.true_residual = 1e-5;
  EXPECT_FALSE(violations(e, now).empty());
  now.true_residual = std::nan("");
  EXPECT_FALSE(violations(e, now).empty());

  e.true_residual = std::nan("");  // a non_finite baseline accepts a NaN now
  e.status = now.status = "non_finite";
  EXPECT_TRUE(violations(e, now).empty());
}

TEST(ConvergenceRule, SeveralViolationsAreAllReportedAndTabulated) {
  Entry e = fabricated(true, 100, 5e-9);
  e.variant = "fused";
  const Observed now{"breakdown", 3, 0.5};
  const auto why = violations(e, now);
  EXPECT_EQ(why.size(), 3u);
  const std::string row = table_row(e, now, why);
  EXPECT_NE(row.find("fabricated.mtx"), std::string::npos);
  EXPECT_NE(row.find("fused"), std::string::npos);
  EXPECT_NE(row.find("FAIL: status breakdown"), std::string::npos);
}

TEST(ConvergenceRule, JsonRoundTripKeepsEveryField) {
  BaselineFile file;
  file.header["note"] = "x";
  Entry e = fabricated(true, 123, 4.56789e-9);
  e.source = "shared";
  e.variant = "pipelined";
  e.precision = "float";
  e.precond = "jacobi";
  e.tolerance = 1e-5;
  e.max_iterations = 4880;
  file.entries = {e, fabricated(false, 7, std::nan(""))};
  const BaselineFile back = parse_baselines(dump_baselines(file), "round trip");
  ASSERT_EQ(back.entries.size(), 2u);
  const Entry& r = back.entries[0];
  EXPECT_EQ(r.key(), e.key());
  EXPECT_EQ(r.source, "shared");
  EXPECT_EQ(r.conditioning, "ill");
  EXPECT_EQ(r.iterations, 123);
  EXPECT_DOUBLE_EQ(r.true_residual, 4.568e-9);  // stored with 4 significant digits
  EXPECT_EQ(r.max_iterations, 4880);
  EXPECT_DOUBLE_EQ(r.tolerance, 1e-5);
  EXPECT_DOUBLE_EQ(r.rule.iterations_rel, 0.10);
  EXPECT_TRUE(std::isnan(back.entries[1].true_residual));
  EXPECT_EQ(back.header["note"], "x");
}

TEST(ConvergenceRule, MalformedEntriesAreRejectedWithTheEntry) {
  EXPECT_THROW(parse_baselines("{\"entries\": [{\"matrix\": \"a.mtx\"}]}", "bad"), std::runtime_error);
  EXPECT_THROW(parse_baselines("{\"entries\": [", "bad"), std::runtime_error);
  BaselineFile file;
  Entry e = fabricated(false, 5, 1e-9);
  e.precision = "half";
  file.entries = {e};
  EXPECT_THROW(parse_baselines(dump_baselines(file), "bad"), std::runtime_error);
}

// The recorded file: well formed, complete, and every entry has teeth.
TEST(ConvergenceRule, RecordedBaselinesAreWellFormedAndEveryEntryCatchesARegression) {
  const BaselineFile file = load_baselines(CLCG_CONVERGENCE_BASELINES);
  ASSERT_GE(file.entries.size(), 48u);  // at least the generated matrices x 3 variants x 2 x 2
  for (const char* field : {"rule", "why_these_tolerances", "note", "record_command"})
    EXPECT_TRUE(file.header.contains(field)) << field;
  std::set<std::string> keys;
  for (const Entry& e : file.entries) {
    SCOPED_TRACE(e.key());
    EXPECT_TRUE(keys.insert(e.key()).second) << "duplicate entry";
    EXPECT_FALSE(e.status.empty());
    EXPECT_GT(e.iterations, 0);
    EXPECT_LE(e.iterations, e.max_iterations);
    EXPECT_DOUBLE_EQ(e.tolerance, e.precision == "double" ? 1e-8 : 1e-5);
    const Rule expected = e.conditioning == "ill" ? ill_conditioned_rule : well_conditioned_rule;
    EXPECT_EQ(e.rule.iterations_abs, expected.iterations_abs);
    EXPECT_EQ(e.rule.iterations_rel, expected.iterations_rel);
    EXPECT_EQ(e.rule.residual_tol_factor, expected.residual_tol_factor);
    EXPECT_EQ(e.rule.residual_baseline_factor, expected.residual_baseline_factor);
    if (e.status == "converged") {
      EXPECT_LE(e.true_residual, 1.5 * e.tolerance);
    }

    EXPECT_TRUE(violations(e, same_as(e)).empty());
    Observed slower = same_as(e);  // a regression costing 20 % more steps (at least 6)
    slower.iterations = e.iterations + std::max<std::int64_t>(6, (e.iterations * 2 + 9) / 10);
    EXPECT_FALSE(violations(e, slower).empty());
    Observed broken = same_as(e);  // a broken kernel that no longer converges
    broken.status = e.status == "converged" ? "max_iterations" : "converged";
    EXPECT_FALSE(violations(e, broken).empty());
    Observed inaccurate = same_as(e);  // an answer 10x less accurate than recorded, above tol
    inaccurate.true_residual = std::max(10 * e.true_residual, 2 * e.tolerance);
    EXPECT_FALSE(violations(e, inaccurate).empty());
  }
}

}  // namespace
