"""What one cg-solve process costs and says: the parts of its wall time, its program binaries on
disk (CLCG_CACHE_DIR, CLCG_CACHE), and --quiet on a failed solve."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import cli_support as support
from cli_support import EXIT_CONVERGED, EXIT_INPUT, EXIT_NOT_CONVERGED, POISSON, SMALL, describe, run_cg

PARTS = ("device_open_seconds", "upload_seconds", "build_seconds", "setup_seconds", "solve_seconds",
         "write_seconds", "other_seconds")


class ProcessTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cli_test_")
        self.dir = self.tmp.name
        self.cache = os.path.join(self.dir, "cache")  # each test its own: never the user's cache

    def tearDown(self):
        self.tmp.cleanup()

    def solve(self, args, env=None, expect=EXIT_CONVERGED):
        # CG builds programs (auto would solve this small matrix directly, on the host, with none)
        proc = run_cg(["--matrix", os.path.join(support.DATA, POISSON), "--json", "--quiet", "--precond", "jacobi"] + args,
                      env_extra=dict({"CLCG_CACHE": "1", "CLCG_CACHE_DIR": self.cache}, **(env or {})))
        self.assertEqual(proc.returncode, expect, describe(proc))
        return json.loads(proc.stdout) if expect != EXIT_INPUT else proc

    def entries(self):
        return sorted(os.listdir(self.cache)) if os.path.isdir(self.cache) else []

    # ------------------------------------------------------------ wall time
    def test_wall_time_parts_add_up_to_the_wall(self):
        output, history = os.path.join(self.dir, "x.mtx"), os.path.join(self.dir, "h.csv")
        for args, first in ((["--matrix", os.path.join(support.DATA, SMALL), "--reference", "--output", output,
                              "--history", history], "read_seconds"),
                            (["--generate", "poisson2d:20", "--precond", "chebyshev"], "generate_seconds")):
            with self.subTest(args=args):
                started = time.monotonic()
                proc = run_cg(args + ["--json"], env_extra={"CLCG_CACHE_DIR": self.cache})
                elapsed = time.monotonic() - started
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
                out = json.loads(proc.stdout)
                timing = out["timing"]
                parts = (first,) + PARTS + (("reference_seconds",) if "--reference" in args else ())
                self.assertEqual(sorted(timing), sorted(parts + ("wall_seconds",)))
                self.assertAlmostEqual(sum(timing[p] for p in parts), timing["wall_seconds"],
                                       delta=1e-9 * timing["wall_seconds"])
                for part in parts:
                    self.assertGreaterEqual(timing[part], 0, part)
                self.assertLess(timing["other_seconds"], 0.05 + 0.05 * timing["wall_seconds"],
                                "a part of the run is not timed: %s" % timing)
                self.assertLessEqual(timing["wall_seconds"], elapsed)
                self.assertEqual(timing["solve_seconds"], out["result"]["solve_seconds"])
                self.assertEqual(timing["build_seconds"], out["result"]["build_seconds"])
                self.assertEqual(timing["setup_seconds"], out["preconditioner"]["setup_seconds"])
                self.assertRegex(proc.stderr, r"\n  wall +[0-9.]+ (s|ms|us) wall = [0-9.]+ (s|ms|us) %s .* other\n"
                                 % first.split("_")[0])

    # ------------------------------------------------------------ --quiet
    def test_quiet_prints_why_a_solve_failed_and_nothing_when_it_converged(self):
        indefinite = os.path.join(self.dir, "indefinite.mtx")
        with open(indefinite, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 2 2\n3 3 -3\n")
        proc = run_cg(["--matrix", indefinite, "--quiet", "--precond", "none"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        self.assertRegex(proc.stderr, r"^cg-solve: .*not positive definite.*\n$")
        self.assertEqual(proc.stdout, "")
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--quiet"])
        self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
        self.assertEqual(proc.stderr, "")

    # ------------------------------------------------------------ program binaries on disk
    def test_a_second_run_loads_every_program_and_gives_the_same_result(self):
        first = self.solve([])
        made = first["programs"]["made"]
        self.assertGreater(made, 0)
        self.assertEqual(first["programs"]["loaded_from_cache"], 0)
        self.assertEqual(first["programs"]["cache"], self.cache)
        self.assertEqual(len(self.entries()), made)
        second = self.solve([])
        self.assertEqual(second["programs"], first["programs"] | {"loaded_from_cache": made})
        for key in ("iterations", "relative_residual", "recursive_residual"):
            self.assertEqual(second["result"][key], first["result"][key], key)

    def test_two_processes_at_once_leave_a_valid_cache(self):
        command = [support.CG_SOLVE, "--matrix", os.path.join(support.DATA, POISSON), "--json", "--quiet",
                   "--precond", "jacobi"]
        env = dict(os.environ, CLCG_CACHE="1", CLCG_CACHE_DIR=self.cache)
        procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(2)]
        for proc in procs:
            stdout, stderr = proc.communicate(timeout=600)
            self.assertEqual(proc.returncode, EXIT_CONVERGED, stderr)
        made = json.loads(stdout)["programs"]["made"]
        self.assertEqual([e for e in self.entries() if not e.endswith(".bin")], [], "a temporary was left")
        after = self.solve([])
        self.assertEqual(after["programs"]["loaded_from_cache"], made)

    def test_damaged_entries_are_rebuilt(self):
        made = self.solve([])["programs"]["made"]
        for name in self.entries():
            path = os.path.join(self.cache, name)
            with open(path, "r+b") as f:
                f.truncate(os.path.getsize(path) // 2)
        rebuilt = self.solve([])
        self.assertEqual(rebuilt["programs"]["loaded_from_cache"], 0)
        self.assertEqual(self.solve([])["programs"]["loaded_from_cache"], made)

    def test_by_default_every_device_but_a_cpu_is_served(self):
        out = self.solve([], env={"CLCG_CACHE": ""})
        on_cpu = out["device"]["type"] == "CPU"
        self.assertEqual(out["programs"]["cache"], "" if on_cpu else self.cache)
        self.assertEqual(len(self.entries()), 0 if on_cpu else out["programs"]["made"])

    def test_clcg_cache_0_turns_it_off(self):
        out = self.solve([], env={"CLCG_CACHE": "0"})
        self.assertEqual(out["programs"]["cache"], "")
        self.assertEqual(self.entries(), [])
        proc = self.solve([], env={"CLCG_CACHE": "maybe"}, expect=EXIT_INPUT)
        self.assertIn("CLCG_CACHE must be 0", proc.stderr)
        self.assertIn("'maybe'", proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_a_cache_folder_that_cannot_be_made_never_fails_a_solve(self):
        blocker = os.path.join(self.dir, "a file")
        with open(blocker, "w") as f:
            f.write("not a folder\n")
        self.cache = os.path.join(blocker, "clcg")
        out = self.solve([])
        self.assertIs(out["result"]["converged"], True)
        self.assertEqual(out["programs"]["loaded_from_cache"], 0)
