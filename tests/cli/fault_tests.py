"""Stagnation, divergence, overflow, and SIGINT / SIGTERM."""
import json
import os
import random
import select
import signal
import subprocess
import tempfile
import time
import unittest

import cli_support as support
from cli_support import (EXIT_INTERRUPTED, EXIT_NOT_CONVERGED, describe, read_array, run_cg, snapshot, write_array)


# ---------------------------------------------------------------- stagnation and divergence
def identity_plus_skew(path, n, c):
    """I + c S, S skew-symmetric tridiagonal: p^T A p = p^T p > 0, so CG never breaks down, but A is
    not symmetric (needs --no-symmetry-check) and CG goes nowhere: c = 1 stagnates, c = 1e7 diverges."""
    entries = []
    for i in range(1, n + 1):
        entries.append("%d %d 1" % (i, i))
        if i < n:
            entries += ["%d %d %.17g" % (i, i + 1, c), "%d %d %.17g" % (i + 1, i, -c)]
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, len(entries)))
        f.write("\n".join(entries) + "\n")


class NumericalFaultTest(unittest.TestCase):
    """A solve that goes nowhere stops early with its own status: exit 1, JSON status and message."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cli_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def solve(self, matrix, variant):
        # A failed rerun must not replace a good solution: --output stays as it was unless
        # --output-unconverged asks for the last iterate; the history is always written.
        output, history = os.path.join(self.dir, "x.mtx"), os.path.join(self.dir, "h.csv")
        with open(output, "w") as f:
            f.write("the previous, good solution\n")
        args = ["--matrix", matrix, "--no-symmetry-check", "--precond", "none", "--variant", variant,
                "--max-iter", "100000", "--output", output, "--history", history, "--json"]
        proc = run_cg(args)
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        result = json.loads(proc.stdout)["result"]
        self.assertFalse(result["converged"])
        self.assertIn(result["message"], proc.stderr, "the summary carries the message")
        self.assertIs(result["output_written"], False)
        self.assertIn("--output-unconverged", proc.stderr)
        with open(output) as f:
            self.assertEqual(f.read(), "the previous, good solution\n", "a failed solve replaced the output")
        with open(history) as f:
            rows = f.read().splitlines()
        self.assertGreaterEqual(len(rows), 1 + result["iterations"], "the history of the failure")
        self.assertEqual(int(rows[-1].split(",")[0]), result["iterations"], "its last step")
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".")], [], "no temporary left")
        proc = run_cg(args + ["--output-unconverged"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        self.assertIs(json.loads(proc.stdout)["result"]["output_written"], True)
        self.assertEqual(len(read_array(output)), json.loads(proc.stdout)["matrix"]["rows"], "the last iterate")
        return result

    def test_stagnation(self):
        matrix = os.path.join(self.dir, "skew1.mtx")
        identity_plus_skew(matrix, 20, 1.0)
        for variant in ("textbook", "fused", "pipelined", "single"):
            with self.subTest(variant=variant):
                result = self.solve(matrix, variant)
                self.assertEqual(result["status"], "stagnated", result["message"])
                self.assertTrue(2000 <= result["iterations"] <= 2010, result["iterations"])
                self.assertRegex(result["message"], r"^stagnated at iteration %d: no progress in \d+ iterations"
                                 % result["iterations"])

    def test_overflow_during_the_iteration(self):
        # Finite inputs (A = 1e308 I, b = 10): A p overflows in the first step.
        matrix, rhs = os.path.join(self.dir, "huge.mtx"), os.path.join(self.dir, "b.mtx")
        with open(matrix, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1e308\n2 2 1e308\n3 3 1e308\n")
        write_array(rhs, [10.0, 10.0, 10.0])
        for variant in ("textbook", "fused", "pipelined", "single"):
            with self.subTest(variant=variant):
                proc = run_cg(["--matrix", matrix, "--rhs", rhs, "--precond", "none", "--variant", variant, "--json"])
                self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
                result = json.loads(proc.stdout)["result"]
                self.assertEqual(result["status"], "non_finite", result["message"])
                self.assertRegex(result["message"], r"(inf|NaN or Inf) at iteration [01]$")

    def test_divergence(self):
        matrix = os.path.join(self.dir, "skew1e7.mtx")
        identity_plus_skew(matrix, 10, 1e7)
        for variant in ("textbook", "fused", "pipelined", "single"):
            with self.subTest(variant=variant):
                result = self.solve(matrix, variant)
                self.assertEqual(result["status"], "diverged", result["message"])
                self.assertEqual(result["iterations"], 11)
                self.assertRegex(result["message"], r"^diverged at iteration 11: the relative residual")


# ---------------------------------------------------------------- SIGINT / SIGTERM
class InterruptTest(unittest.TestCase):
    """SIGINT or SIGTERM during a solve: exit 130 within a step or so, a message, no output written
    (an existing one untouched), no temporary left; progress on stderr when it is a terminal."""

    LONG = None  # (matrix, rhs): several seconds of textbook CG on PoCL

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="cli_sigint_")
        mtx_gen = os.path.join(os.path.dirname(support.CG_SOLVE), "mtx-gen")
        if not os.access(mtx_gen, os.X_OK):
            raise unittest.SkipTest("mtx-gen not found next to cg-solve (%s)" % mtx_gen)
        matrix, rhs = os.path.join(cls.tmp.name, "poisson2d_600.mtx"), os.path.join(cls.tmp.name, "b.mtx")
        subprocess.run([mtx_gen, "poisson2d", "600", "-o", matrix], check=True, stdout=subprocess.DEVNULL)
        rng = random.Random(7)  # a rough right-hand side: thousands of steps to 1e-14
        write_array(rhs, [rng.uniform(-1, 1) for _ in range(600 * 600)])
        cls.LONG = (matrix, rhs)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.out = tempfile.TemporaryDirectory(prefix="cli_sigint_out_")
        self.dir = self.out.name

    def tearDown(self):
        self.out.cleanup()

    def args(self, output, history):
        matrix, rhs = self.LONG
        return [support.CG_SOLVE, "--matrix", matrix, "--rhs", rhs, "--variant", "textbook", "--precond", "none",
                "--tol", "1e-14", "--max-iter", "10000000", "--output", output, "--history", history, "--json"]

    def check_stopped(self, code, stdout, stderr, before, signal_time):
        self.assertEqual(code, EXIT_INTERRUPTED, "exit %d\n%s" % (code, stderr))
        self.assertLess(time.monotonic() - signal_time, 10, "the solve did not stop soon after the signal")
        self.assertRegex(stderr, r"cg-solve: interrupted at iteration \d+; no output written")
        self.assertEqual(stdout, "", "no JSON on an interrupted run")
        self.assertEqual(snapshot(self.dir), before, "outputs created or changed, or temporaries left")

    def test_sigint_stops_the_solve_and_writes_nothing(self):
        output, history = os.path.join(self.dir, "x.mtx"), os.path.join(self.dir, "h.csv")
        with open(history, "w") as f:
            f.write("precious history\n")  # an existing output stays as it was
        before = snapshot(self.dir)
        proc = subprocess.Popen(self.args(output, history), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2.5)  # reading, device set-up, then well into the solve
        if proc.poll() is not None:
            out, err = proc.communicate()
            self.fail("the solve ended before the signal (exit %d); make the problem larger\n%s" % (proc.returncode, err))
        proc.send_signal(signal.SIGINT)
        signal_time = time.monotonic()
        out, err = proc.communicate(timeout=60)
        self.check_stopped(proc.returncode, out, err, before, signal_time)
        self.assertNotIn("\r", err, "no progress line when stderr is not a terminal")
        iteration = int(err.split("interrupted at iteration ")[1].split(";")[0])
        self.assertGreater(iteration, 0, "stopped inside the solve loop")

    def test_sigterm_with_progress_on_a_terminal(self):
        import pty
        output, history = os.path.join(self.dir, "x.mtx"), os.path.join(self.dir, "h.csv")
        before = snapshot(self.dir)
        master, slave = pty.openpty()
        proc = subprocess.Popen(self.args(output, history), stdout=subprocess.PIPE, stderr=slave, text=True)
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 60
        try:
            # Wait for two progress updates (the first comes after about a second of solving).
            while seen.count(b"\rcg-solve: iteration ") < 2 and time.monotonic() < deadline and proc.poll() is None:
                ready, _, _ = select.select([master], [], [], 0.5)
                if ready:
                    seen += os.read(master, 4096)
            if proc.poll() is not None:
                self.fail("the solve ended before any progress was shown (exit %d): %r" % (proc.returncode, seen))
            self.assertGreaterEqual(seen.count(b"\rcg-solve: iteration "), 2, "no progress shown: %r" % seen)
            proc.send_signal(signal.SIGTERM)
            signal_time = time.monotonic()
            out = proc.stdout.read()
            proc.wait(timeout=60)
            while True:
                try:
                    ready, _, _ = select.select([master], [], [], 0.5)
                    chunk = os.read(master, 4096) if ready else b""
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    break
                seen += chunk
        finally:
            os.close(master)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        text = seen.decode("utf-8", "replace").replace("\r\n", "\n")
        self.check_stopped(proc.returncode, out, text, before, signal_time)
        self.assertRegex(text, r"cg-solve: iteration \d+, relative residual [0-9.e+-]+, [0-9.]+ s")
        # The progress line is blanked before the final message: '\r', spaces, '\r'.
        self.assertRegex(text, r"\r +\rcg-solve: interrupted at iteration")


