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
import csv
import json
import math
import os
import random
import select
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

CG_SOLVE = None  # path of the binary under test
DATA = None  # the repository's data/ folder
SHARED = None  # ../shared/data/matrices (may be absent)

EXIT_CONVERGED, EXIT_NOT_CONVERGED, EXIT_INPUT, EXIT_DEVICE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
USAGE_PREFIX = "usage: cg-solve"
SMALL = "random_spd_200.mtx"  # n = 200, Jacobi changes the iteration count
POISSON = "poisson2d_32.mtx"  # n = 1024


def run_cg(args, env_extra=None, timeout=600, stdout=subprocess.PIPE):
    """Runs cg-solve with args; returns the CompletedProcess (text mode)."""
    env = dict(os.environ)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([CG_SOLVE] + [str(a) for a in args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=timeout)


def describe(proc):
    out = proc.stdout if isinstance(proc.stdout, str) else ""
    return "exit %d\n--- stdout ---\n%s\n--- stderr ---\n%s" % (proc.returncode, out[-3000:], proc.stderr[-3000:])


# ---------------------------------------------------------------- Matrix Market in Python
def _data_lines(path):
    """(line_number, text) of every non-comment, non-blank line after the banner."""
    with open(path, "r") as f:
        banner = f.readline()
        lines = []
        for number, line in enumerate(f, start=2):
            text = line.strip()
            if text and not text.startswith("%"):
                lines.append((number, text))
    return banner.lower().split(), lines


def read_coordinate(path):
    """Reads a coordinate matrix: (rows, cols, {(i, j): value}) in expanded storage, duplicates summed."""
    banner, lines = _data_lines(path)
    assert banner[:3] == ["%%matrixmarket", "matrix", "coordinate"], banner
    field, symmetry = banner[3], banner[4]
    rows, cols, entries = (int(t) for t in lines[0][1].split())
    values = {}
    for _, text in lines[1:1 + entries]:
        tokens = text.split()
        i, j = int(tokens[0]) - 1, int(tokens[1]) - 1
        v = 1.0 if field == "pattern" else float(tokens[2])
        values[(i, j)] = values.get((i, j), 0.0) + v
        if symmetry == "symmetric" and i != j:
            values[(j, i)] = values.get((j, i), 0.0) + v
    assert len(lines) - 1 == entries, path
    return rows, cols, values


def read_array(path):
    banner, lines = _data_lines(path)
    assert banner[:3] == ["%%matrixmarket", "matrix", "array"], banner
    n, m = (int(t) for t in lines[0][1].split())
    assert m == 1, (n, m)
    values = [float(text) for _, text in lines[1:]]
    assert len(values) == n, (len(values), n)
    return values


def write_array(path, values):
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d 1\n" % len(values))
        for v in values:
            f.write("%.17g\n" % v)


def multiply(rows, values, x):
    y = [0.0] * rows
    for (i, j), v in values.items():
        y[i] += v * x[j]
    return y


def norm(v):
    return math.sqrt(sum(t * t for t in v))


def relative_difference(x, y):
    return norm([a - b for a, b in zip(x, y)]) / norm(y)


def snapshot(folder):
    """Names and contents of every file in folder (to prove nothing was created or changed)."""
    result = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                result[name] = f.read()
        else:
            result[name] = None
    return result


# ---------------------------------------------------------------- contract on generated matrices
class ContractTest(unittest.TestCase):
    """--json contract, --reference, precision, preconditioners, --rhs/--x0, --output, --history."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cli_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def solve_json(self, args, expect=EXIT_CONVERGED):
        proc = run_cg(args + ["--json"])
        self.assertEqual(proc.returncode, expect, describe(proc))
        try:
            return json.loads(proc.stdout)
        except ValueError as e:
            self.fail("stdout is not one JSON object (%s)\n%s" % (e, describe(proc)))

    def assert_keys(self, obj, section, keys):
        self.assertIn(section, obj, "JSON has no '%s' object" % section)
        for key in keys:
            self.assertIn(key, obj[section], "JSON %s has no '%s'" % (section, key))

    def test_json_contract_and_reference(self):
        matrix = os.path.join(DATA, SMALL)
        out = self.solve_json(["--matrix", matrix, "--reference"])
        self.assert_keys(out, "matrix", ["path", "rows", "cols", "nnz"])
        self.assert_keys(out, "device", ["platform", "name"])
        self.assert_keys(out, "solver", ["precond", "precision", "tol", "max_iter"])
        self.assert_keys(out, "result", ["converged", "iterations", "relative_residual", "solve_seconds",
                                         "seconds_per_iteration", "error_vs_ones"])
        self.assert_keys(out, "reference", ["converged", "iterations", "relative_residual", "solve_seconds",
                                            "speedup", "difference"])
        rows, cols, values = read_coordinate(matrix)
        self.assertEqual(out["matrix"]["path"], matrix)
        self.assertEqual((out["matrix"]["rows"], out["matrix"]["cols"]), (rows, cols))
        self.assertEqual(out["matrix"]["nnz"], len(values), "nnz must count the expanded matrix")
        self.assertTrue(out["device"]["name"])
        self.assertEqual(out["solver"]["precond"], "jacobi")
        self.assertEqual(out["solver"]["precision"], "double")
        self.assertEqual(out["solver"]["tol"], 1e-8)
        self.assertEqual(out["solver"]["max_iter"], max(1000, 10 * rows))
        result = out["result"]
        self.assertIs(result["converged"], True)
        self.assertGreater(result["iterations"], 0)
        self.assertLessEqual(result["relative_residual"], 1.5e-8)
        self.assertLess(result["error_vs_ones"], 1e-6)
        self.assertGreater(result["solve_seconds"], 0)
        self.assertAlmostEqual(result["seconds_per_iteration"] * result["iterations"], result["solve_seconds"],
                               delta=1e-9 + 1e-6 * result["solve_seconds"])
        ref = out["reference"]
        self.assertIs(ref["converged"], True)
        self.assertLessEqual(ref["relative_residual"], 1.5e-8)
        self.assertLessEqual(abs(result["iterations"] - ref["iterations"]), 0.1 * ref["iterations"] + 5)
        self.assertLess(ref["difference"], 1e-6)
        self.assertGreater(ref["speedup"], 0)
        self.assertAlmostEqual(ref["speedup"], ref["solve_seconds"] / result["solve_seconds"],
                               delta=1e-6 * ref["speedup"])

    def test_nnz_counts_expanded_matrix_and_max_iter_default(self):
        matrix = os.path.join(DATA, POISSON)
        out = self.solve_json(["--matrix", matrix, "--max-iter", "777"])
        rows, _, values = read_coordinate(matrix)
        self.assertEqual(out["matrix"]["nnz"], len(values))
        self.assertEqual(out["matrix"]["nnz"], 5 * rows - 4 * 32)  # 5-point stencil, 32 x 32
        self.assertEqual(out["solver"]["max_iter"], 777)
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)

    def test_float_precision(self):
        out = self.solve_json(["--matrix", os.path.join(DATA, SMALL), "--precision", "float", "--tol", "1e-5"])
        self.assertEqual(out["solver"]["precision"], "float")
        self.assertEqual(out["solver"]["tol"], 1e-5)
        self.assertIs(out["result"]["converged"], True)
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-5)
        self.assertLess(out["result"]["error_vs_ones"], 1e-3)

    def test_precond_none_vs_jacobi(self):
        iterations = {}
        for precond in ("none", "jacobi"):
            out = self.solve_json(["--matrix", os.path.join(DATA, SMALL), "--precond", precond, "--reference"])
            self.assertEqual(out["solver"]["precond"], precond)
            self.assertIs(out["result"]["converged"], True)
            self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)
            ref = out["reference"]["iterations"]
            # Same preconditioner as Eigen's: iteration counts agree.
            self.assertLessEqual(abs(out["result"]["iterations"] - ref), 0.1 * ref + 5, precond)
            iterations[precond] = out["result"]["iterations"]
        # The matrix's diagonal varies, so Jacobi must change (here: shorten) the run.
        self.assertLess(iterations["jacobi"], iterations["none"], iterations)

    def test_rhs_and_x0_files(self):
        matrix = os.path.join(DATA, SMALL)
        rows, _, values = read_coordinate(matrix)
        rng = random.Random(7)
        x_true = [rng.uniform(-1, 1) for _ in range(rows)]
        rhs = os.path.join(self.dir, "b.mtx")
        write_array(rhs, multiply(rows, values, x_true))
        output = os.path.join(self.dir, "x.mtx")
        out = self.solve_json(["--matrix", matrix, "--rhs", rhs, "--output", output])
        self.assertNotIn("error_vs_ones", out["result"], "b is not A*1: no error_vs_ones")
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)
        self.assertLess(relative_difference(read_array(output), x_true), 1e-6)
        iterations_from_zero = out["result"]["iterations"]

        # A close initial guess must shorten the run and still reach x_true.
        x0 = os.path.join(self.dir, "x0.mtx")
        write_array(x0, [t * (1 + 1e-5 * rng.uniform(-1, 1)) for t in x_true])
        out = self.solve_json(["--matrix", matrix, "--rhs", rhs, "--x0", x0, "--output", output])
        self.assertLess(out["result"]["iterations"], iterations_from_zero)
        self.assertLess(relative_difference(read_array(output), x_true), 1e-6)

    def test_accepted_formats(self):
        # CRLF, tabs, comments and blank lines, leading-dot / signed / exponent numbers,
        # integer and pattern fields, general storage of a symmetric matrix, duplicates summed.
        files = {
            "crlf.mtx": "%%MatrixMarket matrix coordinate real symmetric\r\n% comment\r\n\r\n"
                        "3 3 5\r\n1\t1\t+4.0\r\n2 1 -.5\r\n2 2 .4E+01\r\n3 3 2e0\r\n3 3 2\r\n",
            "integer.mtx": "%%MatrixMarket matrix coordinate integer symmetric\n  3 3 4\n1 1 4\n2 1 -1\n"
                           "2 2 4\n3 3 4\n",
            "pattern.mtx": "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 2\n3 3\n",
            "general.mtx": "%%MatrixMarket Matrix Coordinate Real General\n3 3 5\n1 1 4\n1 2 -1\n2 1 -1\n"
                           "2 2 4\n3 3 4\n",
        }
        expected_nnz = {"crlf.mtx": 5, "integer.mtx": 5, "pattern.mtx": 3, "general.mtx": 5}
        for name, text in files.items():
            with self.subTest(file=name):
                path = os.path.join(self.dir, name)
                with open(path, "w", newline="") as f:
                    f.write(text)
                out = self.solve_json(["--matrix", path, "--quiet"])
                self.assertEqual(out["matrix"]["nnz"], expected_nnz[name])
                self.assertLess(out["result"]["error_vs_ones"], 1e-12)

    def test_x0_exact_solution_takes_zero_iterations(self):
        matrix = os.path.join(DATA, SMALL)
        rows, _, _ = read_coordinate(matrix)
        x0 = os.path.join(self.dir, "ones.mtx")
        write_array(x0, [1.0] * rows)
        out = self.solve_json(["--matrix", matrix, "--x0", x0])
        self.assertIs(out["result"]["converged"], True)
        self.assertEqual(out["result"]["iterations"], 0)
        self.assertLess(out["result"]["error_vs_ones"], 1e-14)

    def test_output_and_history(self):
        matrix = os.path.join(DATA, SMALL)
        rows, _, _ = read_coordinate(matrix)
        output = os.path.join(self.dir, "x.mtx")
        history = os.path.join(self.dir, "h.csv")
        out = self.solve_json(["--matrix", matrix, "--output", output, "--history", history, "--reference"])
        x = read_array(output)
        self.assertEqual(len(x), rows)
        self.assertLess(max(abs(t - 1) for t in x), 1e-6)
        self.assertEqual(sorted(os.listdir(self.dir)), ["h.csv", "x.mtx"], "temporaries left behind")

        with open(history, newline="") as f:
            header = f.readline().strip()
            self.assertEqual(header, "iteration,solver,residual,alpha,beta,seconds")
            f.seek(0)
            rows_csv = list(csv.DictReader(f))
        clcg = [r for r in rows_csv if r["solver"] == "clcg"]
        eigen = [r for r in rows_csv if r["solver"] == "eigen"]
        self.assertEqual(len(clcg) + len(eigen), len(rows_csv), "solver is clcg or eigen")
        iterations = out["result"]["iterations"]
        self.assertIn(len(clcg), (iterations, iterations + 1), "one clcg row per iteration (plus iteration 0)")
        numbers = [int(r["iteration"]) for r in clcg]
        self.assertEqual(numbers, sorted(numbers))
        self.assertEqual(numbers[-1], iterations)
        residuals = [float(r["residual"]) for r in clcg]
        self.assertTrue(all(math.isfinite(r) and r >= 0 for r in residuals))
        self.assertLessEqual(residuals[-1], 1e-8)
        self.assertGreater(residuals[0], residuals[-1])
        for r in clcg[1:]:
            self.assertTrue(math.isfinite(float(r["alpha"])) and math.isfinite(float(r["seconds"])), r)
        self.assertGreater(len(eigen), 0, "--reference adds eigen rows")
        # Eigen counts one iteration fewer than the updates it made when it converges, so
        # its final iterate is number reference.iterations + 1 and must reach the tolerance.
        last_eigen = (int(eigen[-1]["iteration"]), float(eigen[-1]["residual"]))
        self.assertLessEqual(last_eigen[1], 1e-8,
                             "the eigen series stops short of Eigen's final iterate: last row %r, Eigen "
                             "converged after %d (+1) iterations" % (last_eigen, out["reference"]["iterations"]))

        # Without --reference: clcg rows only.
        out = self.solve_json(["--matrix", matrix, "--history", history])
        with open(history, newline="") as f:
            self.assertEqual({r["solver"] for r in csv.DictReader(f)}, {"clcg"})


# ---------------------------------------------------------------- informational options and usage
class OptionsTest(unittest.TestCase):
    """--help, --version, --list-devices, unknown options."""

    def test_help(self):
        proc = run_cg(["--help"])
        self.assertEqual(proc.returncode, 0, describe(proc))
        for word in ("--matrix", "--rhs", "--tol", "--precond", "--precision", "--device", "--json", "--history"):
            self.assertIn(word, proc.stdout)
        self.assertIn(USAGE_PREFIX, proc.stdout)

    def test_version(self):
        proc = run_cg(["--version"])
        self.assertEqual(proc.returncode, 0, describe(proc))
        self.assertRegex(proc.stdout.strip(), r"^cg-solve \d+\.\d+\.\d+")

    def test_list_devices(self):
        proc = run_cg(["--list-devices"])
        self.assertEqual(proc.returncode, 0, describe(proc))
        self.assertRegex(proc.stdout, r"platform 0: ")
        self.assertRegex(proc.stdout, r"device 0: ")
        self.assertIn("selected", proc.stdout)

    def test_unknown_option(self):
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--frobnicate"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("frobnicate", proc.stderr)
        self.assertIn(USAGE_PREFIX, proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_missing_matrix(self):
        proc = run_cg(["--json"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("--matrix", proc.stderr)
        self.assertIn(USAGE_PREFIX, proc.stderr)


# ---------------------------------------------------------------- the shared SuiteSparse matrices
def shared_available():
    return SHARED is not None and os.path.isdir(SHARED)


class SharedMatricesTest(unittest.TestCase):
    """Real SPD matrices against Eigen, and the two negative cases."""

    @classmethod
    def setUpClass(cls):
        if not shared_available():
            print("cli_test: shared matrices not found at %r: skipping SharedMatricesTest" % SHARED,
                  file=sys.stderr)
            raise unittest.SkipTest("shared matrices folder %r is absent" % SHARED)

    def test_spd_matrices_match_eigen(self):
        names = sorted(n for n in os.listdir(SHARED) if n.endswith(".mtx"))
        self.assertGreaterEqual(len(names), 1)
        for name in names:
            with self.subTest(matrix=name):
                path = os.path.join(SHARED, name)
                proc = run_cg(["--matrix", path, "--json", "--reference", "--quiet"])
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
                out = json.loads(proc.stdout)
                result, ref = out["result"], out["reference"]
                self.assertIs(result["converged"], True)
                self.assertLessEqual(result["relative_residual"], 1.5e-8)
                self.assertIs(ref["converged"], True)
                self.assertLessEqual(abs(result["iterations"] - ref["iterations"]), 0.1 * ref["iterations"] + 5,
                                     (result["iterations"], ref["iterations"]))
                self.assertLess(result["error_vs_ones"], 1e-3)
                rows, cols, values = read_coordinate(path)
                self.assertEqual((out["matrix"]["rows"], out["matrix"]["nnz"]), (rows, len(values)))

    def test_indefinite_jagmesh7(self):
        path = os.path.join(SHARED, "negative", "jagmesh7.mtx")
        proc = run_cg(["--matrix", path, "--json"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        out = json.loads(proc.stdout)
        self.assertIs(out["result"]["converged"], False)
        self.assertIn("not positive definite", out["result"]["message"])
        self.assertIn("not positive definite", proc.stderr)

    def test_nonsymmetric_west0067(self):
        path = os.path.join(SHARED, "negative", "west0067.mtx")
        proc = run_cg(["--matrix", path, "--json"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("not symmetric", proc.stderr)
        self.assertIn(path, proc.stderr)
        self.assertEqual(proc.stdout, "")
        for precond in ("jacobi", "none"):  # west0067 has zero diagonal entries
            with self.subTest(precond=precond):
                proc = run_cg(["--matrix", path, "--json", "--no-symmetry-check", "--precond", precond])
                self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
                out = json.loads(proc.stdout)
                self.assertIs(out["result"]["converged"], False)
                self.assertIn(out["result"]["status"], ("breakdown", "non_finite", "max_iterations"))


# ---------------------------------------------------------------- malformed inputs, table driven
GOOD_MATRIX = ("%%MatrixMarket matrix coordinate real symmetric\n"
               "3 3 4\n"
               "1 1 4\n"
               "2 1 -1\n"
               "2 2 4\n"
               "3 3 4\n")


def matrix_text(banner="%%MatrixMarket matrix coordinate real symmetric", size="3 3 4",
                entries=("1 1 4", "2 1 -1", "2 2 4", "3 3 4")):
    return "\n".join([banner, size] + list(entries)) + "\n"


def bad_entry(line4):
    """A matrix whose line 4 (the second entry) is line4."""
    return matrix_text(entries=("1 1 4", line4, "2 2 4", "3 3 4"))


class MalformedInputTest(unittest.TestCase):
    """Every rejected input: exit 2, a message naming the file (and line), outputs untouched."""

    # (name, files {name: text or None for a directory / missing / unreadable}, args, stderr must contain)
    # In args and expected strings, {d} is the temporary folder. A.mtx is the matrix.
    def rows(self):
        d = "{d}"
        good_args = ["--matrix", d + "/A.mtx"]
        rhs3 = "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n"
        return [
            # --- the matrix file
            ("missing banner", {"A.mtx": matrix_text(banner="% no banner")}, good_args, [d + "/A.mtx:1:"]),
            ("bad banner", {"A.mtx": matrix_text(banner="%%MatrixMarket matrx coordinate real symmetric")},
             good_args, [d + "/A.mtx:1:"]),
            ("banner without symmetry", {"A.mtx": matrix_text(banner="%%MatrixMarket matrix coordinate real")},
             good_args, [d + "/A.mtx:1:"]),
            ("complex", {"A.mtx": matrix_text(banner="%%MatrixMarket matrix coordinate complex symmetric",
                                              entries=("1 1 4 0", "2 1 -1 0", "2 2 4 0", "3 3 4 0"))},
             good_args, [d + "/A.mtx:1:", "complex"]),
            ("hermitian", {"A.mtx": matrix_text(banner="%%MatrixMarket matrix coordinate real hermitian")},
             good_args, [d + "/A.mtx:1:", "hermitian"]),
            ("skew-symmetric",
             {"A.mtx": matrix_text(banner="%%MatrixMarket matrix coordinate real skew-symmetric",
                                   entries=("2 1 -1", "3 1 1", "3 2 2", "3 3 0"))},
             good_args, [d + "/A.mtx:1:", "skew"]),
            ("array format as matrix",
             {"A.mtx": "%%MatrixMarket matrix array real general\n2 2\n4\n-1\n-1\n4\n"},
             good_args, [d + "/A.mtx:1:", "array"]),
            ("non-square", {"A.mtx": matrix_text(size="3 4 4")}, good_args, [d + "/A.mtx:2:"]),
            ("index out of range", {"A.mtx": bad_entry("4 1 -1")}, good_args, [d + "/A.mtx:4:"]),
            ("column out of range", {"A.mtx": bad_entry("2 9 -1")}, good_args, [d + "/A.mtx:4:"]),
            ("index zero", {"A.mtx": bad_entry("0 1 -1")}, good_args, [d + "/A.mtx:4:"]),
            ("too few entries (truncated)", {"A.mtx": matrix_text(size="3 3 5")}, good_args, [d + "/A.mtx:6:"]),
            ("truncated mid-line", {"A.mtx": matrix_text()[:-4]}, good_args, [d + "/A.mtx:6:"]),
            ("too many entries", {"A.mtx": matrix_text(size="3 3 3")}, good_args, [d + "/A.mtx:6:"]),
            ("non-numeric token", {"A.mtx": bad_entry("2 1 abc")}, good_args, [d + "/A.mtx:4:"]),
            ("non-numeric index", {"A.mtx": bad_entry("2 x -1")}, good_args, [d + "/A.mtx:4:"]),
            ("missing value", {"A.mtx": bad_entry("2 1")}, good_args, [d + "/A.mtx:4:"]),
            ("NaN value", {"A.mtx": bad_entry("2 1 nan")}, good_args, [d + "/A.mtx:4:"]),
            ("Inf value", {"A.mtx": bad_entry("2 1 inf")}, good_args, [d + "/A.mtx:4:"]),
            ("overflowing value", {"A.mtx": bad_entry("2 1 1e999")}, good_args, [d + "/A.mtx:4:"]),
            ("size overflowing 32 bits", {"A.mtx": matrix_text(size="3000000000 3000000000 4")},
             good_args, [d + "/A.mtx:2:"]),
            ("empty file", {"A.mtx": ""}, good_args, [d + "/A.mtx"]),
            ("directory", {"A.mtx": "<dir>"}, good_args, [d + "/A.mtx"]),
            ("missing file", {}, good_args, [d + "/A.mtx"]),
            ("unreadable file", {"A.mtx": "<unreadable>"}, good_args, [d + "/A.mtx"]),
            ("general, not symmetric", {"A.mtx": matrix_text(banner="%%MatrixMarket matrix coordinate real general",
                                                              size="3 3 5",
                                                              entries=("1 1 4", "2 1 -1", "1 2 -2", "2 2 4",
                                                                       "3 3 4"))},
             good_args, [d + "/A.mtx", "not symmetric"]),
            # --- right-hand side and initial guess
            ("rhs of wrong length",
             {"A.mtx": GOOD_MATRIX, "b.mtx": "%%MatrixMarket matrix array real general\n2 1\n1\n2\n"},
             good_args + ["--rhs", d + "/b.mtx"], [d + "/b.mtx", "2 entries", "3 rows"]),
            ("rhs with a bad value",
             {"A.mtx": GOOD_MATRIX, "b.mtx": "%%MatrixMarket matrix array real general\n3 1\n1\nzwei\n3\n"},
             good_args + ["--rhs", d + "/b.mtx"], [d + "/b.mtx:4:"]),
            ("rhs with NaN",
             {"A.mtx": GOOD_MATRIX, "b.mtx": "%%MatrixMarket matrix array real general\n3 1\n1\n2\nnan\n"},
             good_args + ["--rhs", d + "/b.mtx"], [d + "/b.mtx:5:"]),
            ("rhs with Inf",
             {"A.mtx": GOOD_MATRIX, "b.mtx": "%%MatrixMarket matrix array real general\n3 1\n1\n-inf\n3\n"},
             good_args + ["--rhs", d + "/b.mtx"], [d + "/b.mtx:4:", "not finite"]),
            ("rhs missing", {"A.mtx": GOOD_MATRIX}, good_args + ["--rhs", d + "/b.mtx"], [d + "/b.mtx"]),
            ("x0 of wrong length",
             {"A.mtx": GOOD_MATRIX, "b.mtx": rhs3,
              "x0.mtx": "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n"},
             good_args + ["--rhs", d + "/b.mtx", "--x0", d + "/x0.mtx"], [d + "/x0.mtx", "4 entries", "3 rows"]),
            ("x0 truncated",
             {"A.mtx": GOOD_MATRIX, "x0.mtx": "%%MatrixMarket matrix array real general\n3 1\n1\n2\n"},
             good_args + ["--x0", d + "/x0.mtx"], [d + "/x0.mtx:4:"]),
            # --- option values (the message names the option, the usage line follows)
            ("--tol 0", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol", "0"], ["--tol", USAGE_PREFIX]),
            ("--tol -1", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol", "-1"], ["--tol", USAGE_PREFIX]),
            ("--tol 1", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol", "1"], ["--tol", USAGE_PREFIX]),
            ("--tol abc", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol", "abc"], ["--tol", "abc", USAGE_PREFIX]),
            ("--tol nan", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol", "nan"], ["--tol", USAGE_PREFIX]),
            ("--tol missing value", {"A.mtx": GOOD_MATRIX}, good_args + ["--tol"], ["tol", USAGE_PREFIX]),
            ("--max-iter 0", {"A.mtx": GOOD_MATRIX}, good_args + ["--max-iter", "0"], ["--max-iter", USAGE_PREFIX]),
            ("--max-iter -5", {"A.mtx": GOOD_MATRIX}, good_args + ["--max-iter", "-5"],
             ["--max-iter", USAGE_PREFIX]),
            ("--max-iter 1.5", {"A.mtx": GOOD_MATRIX}, good_args + ["--max-iter", "1.5"],
             ["--max-iter", USAGE_PREFIX]),
            ("--max-iter huge", {"A.mtx": GOOD_MATRIX}, good_args + ["--max-iter", "99999999999999999999999"],
             ["--max-iter", USAGE_PREFIX]),
            ("--precond foo", {"A.mtx": GOOD_MATRIX}, good_args + ["--precond", "foo"],
             ["--precond", "foo", USAGE_PREFIX]),
            ("--precision half", {"A.mtx": GOOD_MATRIX}, good_args + ["--precision", "half"],
             ["--precision", "half", USAGE_PREFIX]),
            ("--device foo", {"A.mtx": GOOD_MATRIX}, good_args + ["--device", "foo"],
             ["--device", "foo", USAGE_PREFIX]),
            ("--variant foo", {"A.mtx": GOOD_MATRIX}, good_args + ["--variant", "foo"], ["--variant", "foo"]),
            ("--output into a missing directory", {"A.mtx": GOOD_MATRIX},
             good_args + ["--output", d + "/no/such/dir/x.mtx"], [d + "/no/such/dir/x.mtx"]),
            ("--output is a directory", {"A.mtx": GOOD_MATRIX, "sub": "<dir>"},
             good_args + ["--output", d + "/sub"], [d + "/sub"]),
            ("--output equal to --matrix", {"A.mtx": GOOD_MATRIX}, good_args + ["--output", d + "/A.mtx"],
             [d + "/A.mtx", USAGE_PREFIX]),
            ("--history equal to --matrix", {"A.mtx": GOOD_MATRIX}, good_args + ["--history", d + "/A.mtx"],
             [d + "/A.mtx", USAGE_PREFIX]),
            ("--output equal to --rhs", {"A.mtx": GOOD_MATRIX, "b.mtx": rhs3},
             good_args + ["--rhs", d + "/b.mtx", "--output", d + "/b.mtx"], [d + "/b.mtx", USAGE_PREFIX]),
        ]

    def make_files(self, folder, files):
        for name, text in files.items():
            path = os.path.join(folder, name)
            if text == "<dir>":
                os.mkdir(path)
            elif text == "<unreadable>":
                with open(path, "w") as f:
                    f.write(GOOD_MATRIX)
                os.chmod(path, 0)
            else:
                with open(path, "w") as f:
                    f.write(text)

    def test_malformed_inputs(self):
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
        for name, files, args, expected in self.rows():
            if "<unreadable>" in files.values() and is_root:
                print("cli_test: skipping row 'unreadable file': running as root, which reads a chmod 000 file",
                      file=sys.stderr)
                continue
            # First pass: no output files exist, none may be created. Second pass: both exist
            # (except where an input is named as the output), their bytes must not change.
            for pre_existing in (False, True):
                with self.subTest(row=name, pre_existing_outputs=pre_existing), \
                        tempfile.TemporaryDirectory(prefix="cli_bad_") as d:
                    self.make_files(d, files)
                    row_args = [a.replace("{d}", d) for a in args]
                    outputs = []
                    if "--output" not in row_args:
                        outputs += ["--output", os.path.join(d, "out.mtx")]
                    if "--history" not in row_args:
                        outputs += ["--history", os.path.join(d, "out.csv")]
                    if pre_existing:
                        for path in outputs[1::2]:
                            with open(path, "w") as f:
                                f.write("precious %s\n" % os.path.basename(path))
                    before = snapshot(d)
                    proc = run_cg(row_args + outputs + ["--json"])
                    self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                    self.assertEqual(proc.stdout, "", "no JSON on failure")
                    self.assertTrue(proc.stderr.startswith("cg-solve: "), describe(proc))
                    for text in expected:
                        self.assertIn(text.replace("{d}", d), proc.stderr)
                    self.assertEqual(snapshot(d), before, "files created or changed in the folder")


# ---------------------------------------------------------------- device errors and lost output
class DeviceAndOutputTest(unittest.TestCase):
    """Exit 3 for device problems; an output that cannot be written is never a success."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cli_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_device_index_out_of_range(self):
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--device", "99", "--output",
                       os.path.join(self.dir, "x.mtx")])
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertIn("99", proc.stderr)
        self.assertRegex(proc.stderr, r"device 0: ", "the message lists the devices")
        self.assertEqual(os.listdir(self.dir), [])

    def test_platform_matching_nothing(self):
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--platform", "nosuch", "--json"])
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertIn("nosuch", proc.stderr)
        self.assertRegex(proc.stderr, r"device 0: ", "the message lists the devices")
        self.assertEqual(proc.stdout, "")

    def test_malformed_memory_limit_is_an_input_error(self):
        for args in (["--matrix", os.path.join(DATA, SMALL)], ["--list-devices"]):
            with self.subTest(args=args):
                proc = run_cg(args, env_extra={"CLCG_DEVICE_MEMORY_LIMIT": "lots"})
                self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                self.assertIn("CLCG_DEVICE_MEMORY_LIMIT must be a number of bytes, got 'lots'", proc.stderr)
                self.assertTrue(proc.stderr.startswith("cg-solve: "), describe(proc))

    def test_device_memory_limit(self):
        output = os.path.join(self.dir, "x.mtx")
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--output", output, "--json"],
                      env_extra={"CLCG_DEVICE_MEMORY_LIMIT": "1000"})
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertRegex(proc.stderr, r"needs \d+ bytes")
        self.assertIn("available", proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(os.listdir(self.dir), [], "no output file on failure")

    def test_output_onto_special_file(self):
        # Like --output /dev/full. The real /dev/full is not used: as root, in a writable
        # /dev, a rename would replace the device node itself. A node made here (or a FIFO
        # where mknod is not allowed) has the same type.
        node = os.path.join(self.dir, "full")
        kind = "character device"
        try:
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except (PermissionError, OSError):
            os.mkfifo(node)
            kind = "FIFO"
        mode_before = os.lstat(node).st_mode
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--output", node, "--json"])
        mode_after = os.lstat(node).st_mode
        self.assertEqual(stat.S_IFMT(mode_after), stat.S_IFMT(mode_before),
                         "the %s was replaced by a regular file (exit %d)" % (kind, proc.returncode))
        self.assertEqual(proc.returncode, EXIT_INPUT, "--output onto a %s: %s" % (kind, describe(proc)))
        self.assertEqual(proc.stdout, "", "no success reported")
        self.assertIn(node, proc.stderr)

    @unittest.skipIf(hasattr(os, "geteuid") and os.geteuid() == 0,
                     "running as root: --output /dev/full could replace the device node")
    def test_output_dev_full(self):
        proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--output", "/dev/full"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("/dev/full", proc.stderr)

    def test_disk_full_while_writing_the_output(self):
        # A 16 KB tmpfs with ~4 KB free: the solution (1000 values, ~25 KB) cannot fit.
        disk = os.path.join(self.dir, "tiny")
        os.mkdir(disk)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", disk],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if mounted.returncode != 0:
            self.skipTest("cannot mount a tiny tmpfs here (needs root): %s" % mounted.stdout.strip())
        try:
            with open(os.path.join(disk, "filler"), "wb") as f:
                f.write(b"\0" * 12000)
            target = os.path.join(disk, "x.mtx")
            with open(target, "w") as f:
                f.write("the previous result\n")
            proc = run_cg(["--matrix", os.path.join(DATA, "poisson3d_10.mtx"), "--output", target, "--quiet"])
            self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
            self.assertIn(target, proc.stderr)
            self.assertIn("No space left on device", proc.stderr)
            with open(target) as f:
                self.assertEqual(f.read(), "the previous result\n", "the old output must be untouched")
            self.assertEqual(sorted(os.listdir(disk)), ["filler", "x.mtx"], "no temporary left behind")
        finally:
            subprocess.run(["umount", disk])

    def test_json_to_full_stdout(self):
        # stdout is /dev/full: the JSON is lost, so the run must not exit 0.
        with open("/dev/full", "w") as full:
            proc = run_cg(["--matrix", os.path.join(DATA, SMALL), "--json", "--quiet"], stdout=full)
        self.assertNotEqual(proc.returncode, 0, "JSON written to a full device, yet exit 0; stderr: %r"
                            % proc.stderr)
        self.assertTrue(proc.stderr.startswith("cg-solve: "), "an error message on stderr: %r" % proc.stderr)


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
        output = os.path.join(self.dir, "x.mtx")
        proc = run_cg(["--matrix", matrix, "--no-symmetry-check", "--precond", "none", "--variant", variant,
                       "--max-iter", "100000", "--output", output, "--json"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        result = json.loads(proc.stdout)["result"]
        self.assertFalse(result["converged"])
        self.assertIn(result["message"], proc.stderr, "the summary carries the message")
        self.assertTrue(os.path.exists(output), "a finished (if failed) solve still writes x")
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
        mtx_gen = os.path.join(os.path.dirname(CG_SOLVE), "mtx-gen")
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
        return [CG_SOLVE, "--matrix", matrix, "--rhs", rhs, "--variant", "textbook", "--precond", "none",
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


# ---------------------------------------------------------------- main
def main():
    global CG_SOLVE, DATA, SHARED
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cg-solve", required=True, help="the cg-solve binary")
    parser.add_argument("--data", required=True, help="the repository's data/ folder")
    parser.add_argument("--shared", default=None, help="../shared/data/matrices (skipped when absent)")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("tests", nargs="*", help="test classes or Class.test_method to run (default: all)")
    options = parser.parse_args()
    CG_SOLVE = os.path.abspath(options.cg_solve)
    DATA = os.path.abspath(options.data)
    SHARED = os.path.abspath(options.shared) if options.shared else None
    if not os.access(CG_SOLVE, os.X_OK):
        print("cli_test: %s is not an executable" % CG_SOLVE, file=sys.stderr)
        return 2

    loader = unittest.TestLoader()
    module = sys.modules[__name__]
    if options.tests:
        suite = loader.loadTestsFromNames(options.tests, module)
    else:
        suite = loader.loadTestsFromModule(module)
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
