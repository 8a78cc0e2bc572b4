"""cg-solve's contract on generated matrices, and its informational options."""
import csv
import json
import math
import os
import random
import tempfile
import unittest

import cli_support as support
from cli_support import (EXIT_CONVERGED, EXIT_INPUT, POISSON, SMALL, USAGE_PREFIX, describe, multiply,
                         read_array, read_coordinate, relative_difference, run_cg, write_array)


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
        matrix = os.path.join(support.DATA, SMALL)
        out = self.solve_json(["--matrix", matrix, "--reference", "--precond", "jacobi"])
        self.assert_keys(out, "matrix", ["path", "rows", "cols", "nnz"])
        self.assert_keys(out, "device", ["platform", "name"])
        self.assert_keys(out, "solver", ["method", "plan", "precond", "precision", "tol", "max_iter"])
        self.assertEqual(out["solver"]["method"], "cg")
        self.assertIn("CG, jacobi (requested)", out["solver"]["plan"])
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
        matrix = os.path.join(support.DATA, POISSON)
        out = self.solve_json(["--matrix", matrix, "--max-iter", "777"])
        rows, _, values = read_coordinate(matrix)
        self.assertEqual(out["matrix"]["nnz"], len(values))
        self.assertEqual(out["matrix"]["nnz"], 5 * rows - 4 * 32)  # 5-point stencil, 32 x 32
        self.assertEqual(out["solver"]["max_iter"], 777)
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)

    def test_float_precision(self):
        out = self.solve_json(["--matrix", os.path.join(support.DATA, SMALL), "--precision", "float", "--tol", "1e-5"])
        self.assertEqual(out["solver"]["precision"], "float")
        self.assertEqual(out["solver"]["tol"], 1e-5)
        self.assertIs(out["result"]["converged"], True)
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-5)
        self.assertLess(out["result"]["error_vs_ones"], 1e-3)

    def test_precond_none_vs_jacobi(self):
        iterations = {}
        for precond in ("none", "jacobi"):
            out = self.solve_json(["--matrix", os.path.join(support.DATA, SMALL), "--precond", precond, "--reference"])
            self.assertEqual(out["solver"]["precond"], precond)
            self.assertIs(out["result"]["converged"], True)
            self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)
            ref = out["reference"]["iterations"]
            # Same preconditioner as Eigen's: iteration counts agree.
            self.assertLessEqual(abs(out["result"]["iterations"] - ref), 0.1 * ref + 5, precond)
            iterations[precond] = out["result"]["iterations"]
        # The matrix's diagonal varies, so Jacobi must change (here: shorten) the run.
        self.assertLess(iterations["jacobi"], iterations["none"], iterations)

    def test_every_spmv_layout_solves_alike(self):
        # Each layout sums a row in another order: the counts may differ by a step, no more.
        counts = {}
        for layout in ("auto", "scalar", "vector", "ell"):
            out = self.solve_json(["--generate", "poisson3d:17x13x11", "--precond", "jacobi", "--spmv", layout])
            self.assertIs(out["result"]["converged"], True, layout)
            self.assertLess(out["result"]["error_vs_ones"], 1e-6, layout)
            counts[layout] = out["result"]["iterations"]
        self.assertLessEqual(max(counts.values()) - min(counts.values()), 1, counts)

    def test_each_preconditioner_reports_its_setup(self):
        matrix = os.path.join(support.DATA, POISSON)
        jacobi = self.solve_json(["--matrix", matrix, "--precond", "jacobi"])["result"]["iterations"]
        for precond in ("chebyshev", "ic0", "amg"):
            for precision in ("auto", "float", "double"):
                with self.subTest(precond=precond, precision=precision):
                    out = self.solve_json(["--matrix", matrix, "--precond", precond, "--precond-precision", precision])
                    p, result = out["preconditioner"], out["result"]
                    self.assertEqual(p["name"], precond)
                    # auto keeps the solve's double on a CPU and below 100K rows
                    self.assertEqual(p["precision"], "float" if precision == "float" else "double")
                    self.assertGreaterEqual(p["setup_seconds"], 0)
                    self.assertAlmostEqual(result["time_to_solution_seconds"],
                                           result["setup_seconds"] + result["solve_seconds"], places=9)
                    self.assertLessEqual(result["relative_residual"], 1.5e-8)
                    self.assertLess(result["iterations"], jacobi, "%s must take fewer steps than Jacobi" % precond)
                    if precond == "amg":
                        rows = [level["rows"] for level in p["levels"]]
                        self.assertEqual(rows[0], out["matrix"]["rows"])
                        self.assertEqual(rows, sorted(rows, reverse=True))
                        self.assertGreaterEqual(p["operator_complexity"], 1)
        # auto on a small matrix with a cheap factor: the direct method (docs/USAGE.md, "What auto picks")
        out = self.solve_json(["--matrix", matrix])
        self.assertEqual((out["solver"]["precond"], out["solver"]["precond_requested"]), ("cholesky", "auto"))
        self.assertEqual(out["solver"]["method"], "direct")
        self.assertRegex(out["solver"]["plan"], r"^factor \S+ nonzeros, \S+ Mflop: direct$")
        self.assertLessEqual(out["result"]["iterations"], 2)
        self.assertLessEqual(out["result"]["relative_residual"], 1e-8)
        self.assertGreater(out["preconditioner"]["factor_nonzeros"], 0)
        # naming the variant asks for CG: Jacobi on a CPU and below 100K rows
        out = self.solve_json(["--matrix", matrix, "--variant", "fused"])
        self.assertEqual((out["solver"]["method"], out["solver"]["precond"]), ("cg", "jacobi"))

    def test_rhs_and_x0_files(self):
        matrix = os.path.join(support.DATA, SMALL)
        rows, _, values = read_coordinate(matrix)
        rng = random.Random(7)
        x_true = [rng.uniform(-1, 1) for _ in range(rows)]
        rhs = os.path.join(self.dir, "b.mtx")
        write_array(rhs, multiply(rows, values, x_true))
        output = os.path.join(self.dir, "x.mtx")
        out = self.solve_json(["--matrix", matrix, "--rhs", rhs, "--output", output, "--precond", "jacobi"])
        self.assertNotIn("error_vs_ones", out["result"], "b is not A*1: no error_vs_ones")
        self.assertLessEqual(out["result"]["relative_residual"], 1.5e-8)
        self.assertLess(relative_difference(read_array(output), x_true), 1e-6)
        iterations_from_zero = out["result"]["iterations"]

        # A close initial guess must shorten the run and still reach x_true.
        x0 = os.path.join(self.dir, "x0.mtx")
        write_array(x0, [t * (1 + 1e-5 * rng.uniform(-1, 1)) for t in x_true])
        out = self.solve_json(["--matrix", matrix, "--rhs", rhs, "--x0", x0, "--output", output, "--precond", "jacobi"])
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
        matrix = os.path.join(support.DATA, SMALL)
        rows, _, _ = read_coordinate(matrix)
        x0 = os.path.join(self.dir, "ones.mtx")
        write_array(x0, [1.0] * rows)
        out = self.solve_json(["--matrix", matrix, "--x0", x0])
        self.assertIs(out["result"]["converged"], True)
        self.assertEqual(out["result"]["iterations"], 0)
        self.assertLess(out["result"]["error_vs_ones"], 1e-14)

    def test_output_and_history(self):
        matrix = os.path.join(support.DATA, SMALL)
        rows, _, _ = read_coordinate(matrix)
        output = os.path.join(self.dir, "x.mtx")
        history = os.path.join(self.dir, "h.csv")
        out = self.solve_json(["--matrix", matrix, "--output", output, "--history", history, "--reference",
                               "--precond", "jacobi"])
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
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--frobnicate"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("frobnicate", proc.stderr)
        self.assertIn(USAGE_PREFIX, proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_unknown_spmv_layout(self):
        proc = run_cg(["--generate", "poisson2d:8", "--spmv", "diagonal"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("--spmv", proc.stderr)
        self.assertIn("known: auto, scalar, vector, ell", proc.stderr)

    def test_output_unconverged_needs_output(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output-unconverged"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("--output-unconverged needs --output", proc.stderr)
        self.assertIn(USAGE_PREFIX, proc.stderr)

    def test_missing_matrix(self):
        proc = run_cg(["--json"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("--matrix", proc.stderr)
        self.assertIn(USAGE_PREFIX, proc.stderr)


