#!/usr/bin/env python3
"""End-to-end tests of the cg-solve command line (DESIGN.md, "The CLI contract").

Runs the real binary on small generated matrices (data/), on the shared SuiteSparse
matrices (../shared/data/matrices, skipped when absent) and on malformed inputs written
to temporary folders. Python standard library only.

  cli_test.py --cg-solve build/apps/cg-solve --data data --shared ../shared/data/matrices [TestClass ...]

Exit status 0 when every test passed (or was skipped), 1 otherwise; unittest prints the
summary, and a last line 'cli_test: N passed, N failed, N errors, N skipped' follows it.
"""
import argparse
import os
import sys
import unittest

import cli_support as support
import contract_tests
import fault_tests
import input_tests
import near_nullspace_tests
import output_tests
import process_tests

TEST_MODULES = (contract_tests, input_tests, output_tests, fault_tests, process_tests, near_nullspace_tests)


# ---------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cg-solve", required=True, help="the cg-solve binary")
    parser.add_argument("--data", required=True, help="the repository's data/ folder")
    parser.add_argument("--shared", default=None, help="../shared/data/matrices (skipped when absent)")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("tests", nargs="*", help="test classes or Class.test_method to run (default: all)")
    options = parser.parse_args()
    support.CG_SOLVE = os.path.abspath(options.cg_solve)
    support.DATA = os.path.abspath(options.data)
    support.SHARED = os.path.abspath(options.shared) if options.shared else None
    if not os.access(support.CG_SOLVE, os.X_OK):
        print("cli_test: %s is not an executable" % support.CG_SOLVE, file=sys.stderr)
        return 2

    loader = unittest.TestLoader()
    classes = {name: cls for module in TEST_MODULES for name, cls in vars(module).items()
               if isinstance(cls, type) and issubclass(cls, unittest.TestCase)}
    if options.tests:
        suite = unittest.TestSuite()
        for name in options.tests:
            cls_name, _, method = name.partition(".")
            if cls_name not in classes:
                print("cli_test: no test class %s (known: %s)" % (cls_name, ", ".join(sorted(classes))),
                      file=sys.stderr)
                return 2
            suite.addTest(classes[cls_name](method) if method else loader.loadTestsFromTestCase(classes[cls_name]))
    else:
        suite = unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in classes.values())
    result = unittest.TextTestRunner(verbosity=2 if options.verbose else 1, stream=sys.stdout).run(suite)
    # A test with failing subtests appears once per subtest in result.failures: count tests.
    def ids(pairs):
        return {getattr(test, "test_case", test).id() for test, _ in pairs}
    errored = ids(result.errors)
    failed_ids = (ids(result.failures) | {t.id() for t in result.unexpectedSuccesses}) - errored
    failed, errors, skipped = len(failed_ids), len(errored), len(ids(result.skipped))
    # Class-level skips and errors (setUpClass) are not in testsRun: leave them out here.
    def run_ids(pairs):
        return {getattr(t, "test_case", t).id() for t, _ in pairs
                if isinstance(getattr(t, "test_case", t), unittest.TestCase)}
    not_passed = (run_ids(result.errors) | run_ids(result.failures) | run_ids(result.skipped)
                  | run_ids(result.expectedFailures) | {t.id() for t in result.unexpectedSuccesses})
    passed = result.testsRun - len(not_passed)
    print("cli_test: %d passed, %d failed, %d errors, %d skipped" % (passed, failed, errors, skipped))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

