"""cg-solve with AMG's near-null space (--near-nullspace, --coordinates, --block-size): the rigid
body modes of a clamped elastic body (written by mtx-gen, next to cg-solve) cut the steps, and
every file or option that cannot be a near-null space is named, exit 2."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import cli_support as support
from cli_support import EXIT_CONVERGED, EXIT_INPUT, USAGE_PREFIX, describe, read_array, run_cg

CELLS = (30, 12)  # a 30 x 12 plane-strain body clamped at x = 0: 2 x 31 x 13 - 2 x 13 = 780 rows


def write_columns(path, columns):
    """A Matrix Market array of the given columns (lists of equal length), column by column."""
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d %d\n" % (len(columns[0]), len(columns)))
        for column in columns:
            f.writelines("%r\n" % v for v in column)


class NearNullspaceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="clcg_nullspace_")
        mtx_gen = os.path.join(os.path.dirname(support.CG_SOLVE), "mtx-gen")
        cls.matrix = os.path.join(cls.tmp, "body.mtx")
        cls.coords = os.path.join(cls.tmp, "body.coords.mtx")
        subprocess.run([mtx_gen, "elasticity2d", str(CELLS[0]), str(CELLS[1]), "0.3", "-o", cls.matrix], check=True,
                       stdout=subprocess.DEVNULL)
        xy = read_array(cls.coords, columns=2)  # column by column: the x's, then the y's
        nodes = len(xy) // 2
        cls.rows = 2 * nodes
        x, y = xy[:nodes], xy[nodes:]
        # The rigid body modes, node-interleaved rows: two translations and the rotation (-y, x).
        cls.modes = [[float(r % 2 == 0) for r in range(cls.rows)], [float(r % 2 == 1) for r in range(cls.rows)],
                     [-y[r // 2] if r % 2 == 0 else x[r // 2] for r in range(cls.rows)]]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def solve(self, *options):
        proc = run_cg(["--matrix", self.matrix, "--json", "--quiet", "--amg-coarse-rows", "40"] + list(options))
        self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
        return json.loads(proc.stdout)

    def test_the_rigid_body_modes_cut_the_steps(self):
        plain = self.solve("--precond", "amg")
        modes = self.solve("--precond", "amg", "--coordinates", self.coords)
        blocks = self.solve("--precond", "amg", "--block-size", "2")
        steps = [run["result"]["iterations"] for run in (plain, modes, blocks)]
        self.assertLessEqual(steps[1], 40, steps)
        self.assertLess(steps[1], steps[2], steps)  # the rotation adds to the translations
        self.assertLess(steps[2], steps[0], steps)
        figures = modes["preconditioner"]
        self.assertEqual((figures["block_size"], figures["near_nullspace_vectors"]), (2, 3))
        self.assertLess(modes["result"]["error_vs_ones"], 1e-6)

    def test_vectors_from_a_file_take_the_same_steps_as_the_coordinates(self):
        b = os.path.join(self.tmp, "B.mtx")
        write_columns(b, self.modes)
        given = self.solve("--precond", "amg", "--near-nullspace", b, "--block-size", "2")
        modes = self.solve("--precond", "amg", "--coordinates", self.coords)
        self.assertLessEqual(abs(given["result"]["iterations"] - modes["result"]["iterations"]), 1)

    def test_what_cannot_be_a_near_nullspace_is_named(self):
        t = self.tmp
        short = os.path.join(t, "short.mtx")
        write_columns(short, [c[:-2] for c in self.modes])
        nan = os.path.join(t, "nan.coords.mtx")
        with open(self.coords) as f:
            lines = f.read().split("\n")
        lines[4] = "nan"
        with open(nan, "w") as f:
            f.write("\n".join(lines))
        none = os.path.join(t, "none.mtx")
        with open(none, "w") as f:
            f.write("%%%%MatrixMarket matrix array real general\n%d 0\n" % self.rows)
        dependent = os.path.join(t, "dependent.mtx")
        write_columns(dependent, [self.modes[0], self.modes[1], [a + 2 * b for a, b in zip(self.modes[0], self.modes[1])]])
        line = os.path.join(t, "line.coords.mtx")  # every node on one point: no rotation
        write_columns(line, [[1.0] * (self.rows // 2), [2.0] * (self.rows // 2)])
        cases = [
            (["--block-size", "7"], "--block-size 7 does not divide the matrix's %d rows" % self.rows),
            (["--near-nullspace", short], "short.mtx: its 3 vectors give %d rows but the matrix has %d" % (self.rows - 2, self.rows)),
            (["--coordinates", nan], "nan.coords.mtx:5: value 'nan' is not finite"),
            (["--near-nullspace", none], "none.mtx:2: a dense matrix needs at least one column"),
            (["--near-nullspace", dependent], "dependent.mtx: the near-null space's vector 3 is a combination"),
            (["--coordinates", line], "line.coords.mtx: the %d nodes' coordinates do not span the rotations" % (self.rows // 2)),
            (["--coordinates", self.coords, "--block-size", "3"], "--block-size 3 but --coordinates"),
            (["--coordinates", self.coords, "--near-nullspace", short], "give one"),
            (["--coordinates", self.coords, "--precond", "jacobi"], "set up AMG: give --precond amg or auto"),
        ]
        for options, message in cases:
            with self.subTest(options=options):
                proc = run_cg(["--matrix", self.matrix, "--quiet"] + options)
                self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                self.assertIn(message, proc.stderr)
        usage = run_cg(["--matrix", self.matrix, "--coordinates", self.coords, "--near-nullspace", short])
        self.assertIn(USAGE_PREFIX, usage.stderr)
