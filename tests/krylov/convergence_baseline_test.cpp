// The convergence regression gate: runs every entry of tests/baselines/convergence.json (or of
// $CLCG_BASELINE_FILE) on the test device and holds it to the entry's rule (status identical,
// iteration count within max(2, 2%) / max(5, 10%), true residual <= max(1.5 tol, 3 x baseline);
// see convergence_baseline.hpp for why). On failure it prints a table of the entries that moved,
// baseline against now. When a change is meant to move the counts: scripts/record_baselines.
//
// One TEST per variant and matrix source (and precision for the shared ones; bcsstk13 apart), so ctest runs them in parallel. Entries on the shared
// matrices skip with a message when ../shared/data/matrices is absent; the generated ones
// (data/) always run.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "krylov/convergence_baseline.hpp"
#include "support/device_fixture.hpp"

namespace {

using namespace clcg::test::baseline;

const BaselineFile& baselines() {
  static const BaselineFile file = load_baselines(baseline_path());
  return file;
}

// The entries of `variant` on `source` matrices; precision "" selects both; matrix: only that
// file, or "!file": all but it (bcsstk13, the slowest, has TESTs of its own).
void check(const std::string& variant, const std::string& source, const std::string& precision,
           const std::string& matrix = "") {
  auto matrix_ok = [&](const Entry& e) {
    if (matrix.empty()) return true;
    return matrix[0] == '!' ? e.matrix != matrix.substr(1) : e.matrix == matrix;
  };
  std::vector<Entry> selected;
  for (const Entry& e : baselines().entries)
    if (e.variant == variant && e.source == source && (precision.empty() || e.precision == precision) && matrix_ok(e))
      selected.push_back(e);
  // A baseline file that lost its entries must not pass as "nothing to check".
  ASSERT_FALSE(selected.empty()) << "no " << source << " " << precision << " " << matrix << " entries for variant "
                                 << variant << " in " << baseline_path()
                                 << " (re-record with scripts/record_baselines)";
  if (source == "shared" && !std::filesystem::is_directory(CLCG_SHARED_MATRICES))
    GTEST_SKIP() << selected.size() << " entries skipped: shared matrices not found in " << CLCG_SHARED_MATRICES;

  const auto start = std::chrono::steady_clock::now();
  std::string failed, all;
  std::size_t failures = 0, skipped = 0;
  Watchdog watchdog(std::chrono::seconds(60), 1);  // the slowest entry takes a few seconds on PoCL
  for (const Entry& e : selected) {
    if (!matrix_available(e)) {  // the generated ones always run; a shared one may be missing
      if (source != "shared") ADD_FAILURE() << "matrix not found: " << matrix_path(e);
      std::printf("skipped (matrix not found): %s\n", matrix_path(e).c_str());
      ++skipped;
      continue;
    }
    watchdog.begin(e.key() + " (" + source + " matrices; entries done so far:\n" + table_header() + all + ")");
    const Observed now = run_entry(clcg::test::test_env(), e);
    watchdog.end();
    const auto why = violations(e, now);
    const std::string row = table_row(e, now, why);
    all += row;
    if (!why.empty()) {
      failed += row;
      ++failures;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu entries checked (%zu skipped) in %.1f s against %s\n", selected.size() - skipped, skipped, seconds,
              baseline_path().c_str());
  if (failures)
    ADD_FAILURE() << failures << " of " << selected.size() - skipped
                  << " convergence baselines moved beyond their rule (variant " << variant << ", " << source
                  << " matrices):\n"
                  << table_header() << failed << "\nIf the change is intended, re-record: scripts/record_baselines "
                  << "(docs/DEVELOPING.md). All entries of this test:\n"
                  << table_header() << all;
}

TEST(ConvergenceBaseline, TextbookOnGeneratedMatrices) { check("textbook", "data", ""); }
TEST(ConvergenceBaseline, FusedOnGeneratedMatrices) { check("fused", "data", ""); }
TEST(ConvergenceBaseline, PipelinedOnGeneratedMatrices) { check("pipelined", "data", ""); }
TEST(ConvergenceBaseline, TextbookOnSharedMatricesInDouble) { check("textbook", "shared", "double", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, TextbookOnSharedMatricesInFloat) { check("textbook", "shared", "float", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, FusedOnSharedMatricesInDouble) { check("fused", "shared", "double", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, FusedOnSharedMatricesInFloat) { check("fused", "shared", "float", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, PipelinedOnSharedMatricesInDouble) { check("pipelined", "shared", "double", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, PipelinedOnSharedMatricesInFloat) { check("pipelined", "shared", "float", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, TextbookOnBcsstk13) { check("textbook", "shared", "", "bcsstk13.mtx"); }
TEST(ConvergenceBaseline, FusedOnBcsstk13) { check("fused", "shared", "", "bcsstk13.mtx"); }
TEST(ConvergenceBaseline, PipelinedOnBcsstk13) { check("pipelined", "shared", "", "bcsstk13.mtx"); }
TEST(ConvergenceBaseline, SingleOnGeneratedMatrices) { check("single", "data", ""); }
TEST(ConvergenceBaseline, SingleOnSharedMatricesInDouble) { check("single", "shared", "double", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, SingleOnSharedMatricesInFloat) { check("single", "shared", "float", "!bcsstk13.mtx"); }
TEST(ConvergenceBaseline, SingleOnBcsstk13) { check("single", "shared", "", "bcsstk13.mtx"); }

}  // namespace
