#!/usr/bin/env python3
"""The speed gate of cg-bench (--check BASELINE.json), on whatever device the tests use.

A baseline is recorded by --json on a problem large enough to be gated (fused floor >= 0.15 ms;
~0.4 ms on PoCL), then doctored: made 10x faster the gate must fail (exit 1, the row REGRESSED), made 10x
slower it must pass (exit 0). Factors of 10 are far outside run-to-run noise, so the verdicts do
not depend on the machine's load (2x was not: under ctest -j2 on 2 cores a PoCL step took 2.3x
the recorded one). Unreadable, malformed and other-device baselines exit 2.

    cg_bench_check_test.py --cg-bench PATH [unittest args]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

CG_BENCH = None
# 3D Poisson 40^3 (64,000 rows): its fused floor is well above 0.15 ms at PoCL's copy bandwidth.
PROBLEM = ["--poisson3d", "40", "--iterations", "10", "--repeats", "3", "--eigen-iterations", "2",
           "--variants", "textbook,fused"]


def run(args):
    return subprocess.run([CG_BENCH] + args, capture_output=True, text=True, timeout=600)


class CheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.baseline = os.path.join(cls.dir.name, "baseline.json")
        proc = run(PROBLEM + ["--json", cls.baseline])
        assert proc.returncode == 0, proc.stderr
        with open(cls.baseline) as f:
            cls.recorded = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def doctored(self, name, factor, **fields):
        data = json.loads(json.dumps(self.recorded))
        data.update(fields)
        for row in data["rows"]:
            row["ratio_to_fused_floor"] *= factor
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    def test_the_recorded_rows_are_gated(self):
        gated = [r for r in self.recorded["rows"] if r["fused_floor_ms"] >= 0.15]
        self.assertTrue(gated, "no row of the test problem is bandwidth bound here: make it larger")

    def test_a_baseline_ten_times_as_fast_fails_the_gate(self):
        proc = run(PROBLEM + ["--check", self.doctored("faster.json", 0.1)])
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("REGRESSED", proc.stdout)
        self.assertRegex(proc.stdout, r"check: [1-9]\d* of \d+ regressed by more than 10%")

    def test_a_baseline_ten_times_as_slow_passes_the_gate(self):
        proc = run(PROBLEM + ["--check", self.doctored("slower.json", 10.0)])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn("REGRESSED", proc.stdout)
        self.assertIn("check: 0 of", proc.stdout)

    def test_a_baseline_from_another_device_is_refused(self):
        proc = run(PROBLEM + ["--check", self.doctored("other.json", 1.0, device="Some Other GPU")])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("compare like with like", proc.stderr)

    def test_missing_and_malformed_baselines_exit_2_naming_the_file(self):
        missing = os.path.join(self.dir.name, "missing.json")
        proc = run(PROBLEM + ["--check", missing])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(missing, proc.stderr)
        broken = os.path.join(self.dir.name, "broken.json")
        with open(broken, "w") as f:
            f.write('{"device": ')
        proc = run(PROBLEM + ["--check", broken])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(broken, proc.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cg-bench", required=True)
    known, rest = parser.parse_known_args()
    CG_BENCH = known.cg_bench
    unittest.main(argv=[sys.argv[0]] + rest)
