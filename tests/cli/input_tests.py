"""cg-solve on the shared SuiteSparse matrices and on malformed input."""
import json
import os
import sys
import tempfile
import unittest

import cli_support as support
from cli_support import (EXIT_CONVERGED, EXIT_INPUT, EXIT_NOT_CONVERGED, USAGE_PREFIX, describe, read_coordinate, run_cg,
                         shared_available, snapshot)


# ---------------------------------------------------------------- the shared SuiteSparse matrices
class SharedMatricesTest(unittest.TestCase):
    """Real SPD matrices against Eigen, and the two negative cases."""

    @classmethod
    def setUpClass(cls):
        if not shared_available():
            print("cli_test: shared matrices not found at %r: skipping SharedMatricesTest" % support.SHARED,
                  file=sys.stderr)
            raise unittest.SkipTest("shared matrices folder %r is absent" % support.SHARED)

    def test_spd_matrices_match_eigen(self):
        names = sorted(n for n in os.listdir(support.SHARED) if n.endswith(".mtx"))
        self.assertGreaterEqual(len(names), 1)
        for name in names:
            with self.subTest(matrix=name):
                path = os.path.join(support.SHARED, name)
                proc = run_cg(["--matrix", path, "--json", "--reference", "--quiet", "--precond", "jacobi"])
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

    def test_auto_plans_each_spd_matrix_and_solves_it(self):
        # The planner's choice (docs/USAGE.md, "What auto picks"), whatever it is, solves A to the
        # tolerance; a direct plan (at once, or where a watched CG's rate called for it) takes one
        # or two solves with the factor and says why.
        for name in sorted(n for n in os.listdir(support.SHARED) if n.endswith(".mtx")):
            with self.subTest(matrix=name):
                proc = run_cg(["--matrix", os.path.join(support.SHARED, name), "--json"])
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
                out = json.loads(proc.stdout)
                solver, result = out["solver"], out["result"]
                self.assertLessEqual(result["relative_residual"], 1.5e-8)
                self.assertIn(solver["method"], ("direct", "cg"))
                if solver["method"] == "direct":  # at once, or a watched CG handing over
                    self.assertEqual(solver["precond"], "cholesky")
                    self.assertLessEqual(result["iterations"], 2)
                    self.assertRegex(solver["plan"], r"(^factor .*: direct$)|(, watched; after \d+ CG steps .*: direct, )")
                    self.assertIn("plan       " + solver["plan"], proc.stderr)
                else:
                    self.assertIn(": CG, ", solver["plan"])
                if out["matrix"]["nnz"] <= 8000:  # bcsstk01 ... gr_30_30: a factor of at most 0.4 Mflop
                    self.assertEqual(solver["method"], "direct", solver["plan"])

    def test_indefinite_jagmesh7(self):
        path = os.path.join(support.SHARED, "negative", "jagmesh7.mtx")
        proc = run_cg(["--matrix", path, "--json"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        out = json.loads(proc.stdout)
        self.assertIs(out["result"]["converged"], False)
        self.assertIn("not positive definite", out["result"]["message"])
        self.assertIn("not positive definite", proc.stderr)

    def test_nonsymmetric_west0067(self):
        path = os.path.join(support.SHARED, "negative", "west0067.mtx")
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
            ("--precond-precision half", {"A.mtx": GOOD_MATRIX}, good_args + ["--precond-precision", "half"],
             ["--precond-precision", "half", USAGE_PREFIX]),
            ("--precond-precision double in a float solve", {"A.mtx": GOOD_MATRIX},
             good_args + ["--precision", "float", "--precond-precision", "double"],
             ["--precond-precision double needs --precision double", USAGE_PREFIX]),
            ("--factor gpu", {"A.mtx": GOOD_MATRIX}, good_args + ["--factor", "gpu"],
             ["--factor", "unknown factor place 'gpu' (known: auto, host, device)", USAGE_PREFIX]),
            ("--factor device with --precond amg", {"A.mtx": GOOD_MATRIX},
             good_args + ["--factor", "device", "--precond", "amg"],
             ["--factor places the factor of --precond cholesky or auto, not amg", USAGE_PREFIX]),
            ("--variant pipelined with --precond amg", {"A.mtx": GOOD_MATRIX},
             good_args + ["--variant", "pipelined", "--precond", "amg"],
             ["--variant pipelined takes --precond none or jacobi, not amg", USAGE_PREFIX]),
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
            ("--output a dangling symbolic link", {"A.mtx": GOOD_MATRIX, "gone.mtx": "<link nowhere>"},
             good_args + ["--output", d + "/gone.mtx"], [d + "/gone.mtx", "symbolic link to a missing file"]),
        ]

    def make_files(self, folder, files):
        for name, text in files.items():
            path = os.path.join(folder, name)
            if text == "<dir>":
                os.mkdir(path)
            elif text == "<link nowhere>":
                os.symlink("nowhere.mtx", path)
            elif text == "<unreadable>":
                with open(path, "w") as f:
                    f.write(GOOD_MATRIX)
                os.chmod(path, 0)
            else:
                with open(path, "w") as f:
                    f.write(text)

    def test_malformed_thread_count(self):
        # CLCG_THREADS is checked whatever the file's size, and for --generate too.
        with tempfile.TemporaryDirectory(prefix="cli_threads_") as d:
            self.make_files(d, {"A.mtx": GOOD_MATRIX})
            for source in (["--matrix", os.path.join(d, "A.mtx")], ["--generate", "poisson2d:8"]):
                for value in ("0", "many", "4x"):
                    with self.subTest(source=source[0], value=value):
                        proc = run_cg(source + ["--json"], env_extra={"CLCG_THREADS": value})
                        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                        self.assertIn("CLCG_THREADS: '%s' is not a thread count" % value, proc.stderr)

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


