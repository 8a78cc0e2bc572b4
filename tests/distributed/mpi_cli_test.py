#!/usr/bin/env python3
"""cg-solve under mpirun (clcg::distributed) on whatever devices the ranks get (PoCL in CI, one
thread per rank): the same bits for 1 to 4 ranks, the halo right on irregular matrices cut
anywhere, ranks without rows, and every failure ending all ranks with one message and the
one-device exit codes.

    mpi_cli_test.py --cg-solve build/apps/cg-solve --mpiexec /usr/bin/mpiexec --shared ../shared/data/matrices
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

CG_SOLVE = MPIEXEC = SHARED = None
EXIT_CONVERGED, EXIT_NOT_CONVERGED, EXIT_INPUT, EXIT_DEVICE = 0, 1, 2, 3


def mpirun(np, args, env_extra=None, timeout=300, rank_env=None):
    """Runs cg-solve on np ranks; rank_env (a dict) is set for the last rank only (MPMD form)."""
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "POCL_MAX_PTHREAD_COUNT": "1",  # one PoCL thread per rank: ranks share 2 cores in CI
                "OMPI_MCA_btl": "self,vader", "OMPI_MCA_rmaps_base_oversubscribe": "1",
                # a rank's non-zero exit has mpirun signal the others and wait a second (twice)
                # before it kills them; these runs end every rank themselves
                "OMPI_MCA_odls_base_sigkill_timeout": "0"})
    env.update(env_extra or {})
    launcher = [MPIEXEC, "--oversubscribe"]
    args = [str(a) for a in args]
    if rank_env:
        extra = ["env"] + ["%s=%s" % kv for kv in rank_env.items()]
        command = launcher + ["-np", str(np - 1), CG_SOLVE] + args + [":", "-np", "1"] + extra + [CG_SOLVE] + args
    else:
        command = launcher + ["-np", str(np), CG_SOLVE] + args
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          timeout=timeout)


def describe(proc):
    return "exit %d\n--- stdout ---\n%s\n--- stderr ---\n%s" % (proc.returncode, proc.stdout[-3000:],
                                                                proc.stderr[-3000:])


def our_messages(stderr):
    return [line for line in stderr.splitlines() if line.startswith("cg-solve:")]


class DistributedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def solve(self, np, problem, extra=(), name=None):
        """(JSON, sha256 of x's file) of a converged run on np ranks."""
        out = self.path(name or "x_%d.mtx" % np)
        proc = mpirun(np, problem + ["--json", "--quiet", "--output", out] + list(extra))
        self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
        with open(out, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        return json.loads(proc.stdout), digest

    def assert_same_bits(self, problem, counts, extra=(), cuts=None):
        runs = {np: self.solve(np, problem, extra) for np in counts}
        if cuts:  # the same problem cut by hand, off the balanced cuts
            runs["cut"] = self.solve(len(cuts) + 1, problem, list(extra) + ["--partition", ",".join(map(str, cuts))],
                                     name="x_cut.mtx")
        first = runs[counts[0]]
        for key, (report, digest) in runs.items():
            self.assertEqual(report["result"]["iterations"], first[0]["result"]["iterations"], key)
            self.assertEqual(report["result"]["relative_residual"], first[0]["result"]["relative_residual"], key)
            self.assertEqual(digest, first[1], "x differs on %s ranks" % key)
        return runs


class BitsTest(DistributedTest):
    def test_generated_poisson_has_the_same_bits_on_1_to_4_ranks(self):
        runs = self.assert_same_bits(["--generate", "poisson3d:13x11x9"], [1, 2, 3, 4])
        report = runs[4][0]
        self.assertEqual(report["ranks"], 4)
        self.assertEqual(sum(r["rows"] for r in report["per_rank"]), 13 * 11 * 9)
        self.assertEqual(sum(r["nnz"] for r in report["per_rank"]), report["matrix"]["nnz"])
        self.assertTrue(all(r["device"] for r in report["per_rank"]))
        self.assertTrue(all(r["coarse_seconds"] == 0 for r in report["per_rank"]))
        self.assertTrue(all(r["ghosts"] > 0 for r in report["per_rank"]))
        self.assertLess(report["result"]["error_vs_ones"], 1e-6)
        self.assertEqual(report["solver"]["variant"], "fused")
        self.assertEqual(report["solver"]["precond"], "jacobi")

    def test_single_variant_and_no_preconditioner(self):
        self.assert_same_bits(["--generate", "poisson2d:37x29"], [1, 3], ["--variant", "single"])
        self.assert_same_bits(["--generate", "poisson2d:37x29"], [1, 2], ["--precond", "none", "--precision", "float",
                                                                           "--tol", "1e-5"])

    def test_ell_rows_have_the_bits_of_csr_rows(self):
        # ELL pads rows with zeros and walks them in stored order: the same sums as CSR, on any
        # cut (uneven here); on PoCL auto reads CSR, so ELL is asked for
        problem = ["--generate", "poisson3d:13x11x9"]
        csr = self.assert_same_bits(problem, [1, 3], ["--spmv", "scalar"])
        ell = self.assert_same_bits(problem, [1, 2, 4], ["--spmv", "ell"], cuts=[32, 96, 800])
        self.assertEqual(csr[3][0]["distributed"]["row_layout"], "csr")
        self.assertEqual(ell["cut"][0]["distributed"]["row_layout"], "ell")
        self.assertEqual(ell[1][1], csr[1][1])
        self.assertEqual(ell[1][0]["result"]["iterations"], csr[1][0]["result"]["iterations"])

    def test_chebyshev_has_the_same_bits_on_any_rank_count(self):
        problem = ["--generate", "poisson3d:13x11x9", "--precond", "chebyshev"]
        for variant in ("fused", "single"):
            with self.subTest(variant=variant):
                runs = self.assert_same_bits(problem, [1, 2, 3], ["--variant", variant], cuts=[64, 192])
                self.assertEqual(runs[3][0]["solver"]["precond"], "chebyshev")
                self.assertLess(runs[1][0]["result"]["error_vs_ones"], 1e-6)
        jacobi = self.solve(2, ["--generate", "poisson3d:13x11x9", "--precond", "jacobi"], name="x_j.mtx")[0]
        chebyshev = self.solve(2, problem, name="x_c.mtx")[0]
        degree_1 = self.solve(2, problem + ["--chebyshev-degree", "1"], name="x_c1.mtx")[0]
        # a degree-4 polynomial cuts the steps well below Jacobi's; degree 1 is a scaled Jacobi
        self.assertLess(chebyshev["result"]["iterations"], 0.6 * jacobi["result"]["iterations"])
        self.assertEqual(degree_1["result"]["iterations"], jacobi["result"]["iterations"])
        one = subprocess.run([CG_SOLVE] + problem + ["--json", "--quiet"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.assertEqual(one.returncode, 0, describe(one))
        # one device bounds the spectrum by Lanczos, the ranks by Gershgorin: a few steps apart
        self.assertLessEqual(abs(json.loads(one.stdout)["result"]["iterations"] - chebyshev["result"]["iterations"]), 3)

    def test_amg_has_the_same_bits_on_any_rank_count(self):
        # The hierarchy is built over the ranks (aggregates across the cuts, P's remote rows
        # fetched for A P, R's for R (A P)) and every level's product fetches its ghosts: x is
        # the same on 1 to 4 ranks and on an uneven cut whose first rank holds nothing.
        # (--amg-gather-rows 1: every level distributed down to the coarsest, gathered at 40 rows)
        problem = ["--generate", "poisson3d:17x13x11", "--precond", "amg", "--amg-coarse-rows", "40",
                   "--amg-gather-rows", "1"]
        runs = self.assert_same_bits(problem, [1, 2, 3, 4], cuts=[0, 640, 1280])
        amg = runs[4][0]["preconditioner"]
        self.assertEqual(amg["name"], "amg")
        self.assertGreaterEqual(len(amg["levels"]), 3)
        self.assertEqual(amg["distributed_levels"], len(amg["levels"]) - 1)
        self.assertEqual(amg["levels"][0]["rows"], 17 * 13 * 11)
        self.assertGreater(amg["setup_seconds"], 0)
        self.assertEqual(runs["cut"][0]["per_rank"][0]["rows"], 0)
        # every rank runs the gathered coarsest level's cycles (timed); Jacobi has none
        self.assertTrue(all(r["coarse_seconds"] > 0 for r in runs[4][0]["per_rank"]))
        self.assertLess(runs[1][0]["result"]["error_vs_ones"], 1e-6)
        # the CG's rows are made on the device from the set-up's (halo, local columns): in ELL
        # (padded with zeros, summed in stored order) they give the bits of the CSR rows
        ell = self.assert_same_bits(problem, [2], ["--spmv", "ell"])
        self.assertEqual(ell[2][0]["distributed"]["row_layout"], "ell")
        self.assertEqual(ell[2][1], runs[1][1])
        jacobi = self.solve(2, ["--generate", "poisson3d:17x13x11"], name="x_j.mtx")[0]
        self.assertLess(runs[1][0]["result"]["iterations"], 0.3 * jacobi["result"]["iterations"])
        # one device builds the same kind of hierarchy (its aggregates are the same; its dots
        # and smoother bounds are summed in another order): a step or two apart
        one = subprocess.run([CG_SOLVE] + problem + ["--precond-precision", "double", "--json", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(one.returncode, 0, describe(one))
        self.assertLessEqual(abs(json.loads(one.stdout)["result"]["iterations"] - runs[1][0]["result"]["iterations"]), 2)
        # the hierarchy in float for the solve in double (the GPU default from 1M rows): r narrowed,
        # z widened, the same bits on any rank count and the same steps here
        narrow = self.assert_same_bits(problem + ["--precond-precision", "float"], [1, 3])
        self.assertEqual(narrow[3][0]["preconditioner"]["precision"], "float")
        self.assertEqual(runs[1][0]["preconditioner"]["precision"], "double")
        self.assertLessEqual(abs(narrow[1][0]["result"]["iterations"] - runs[1][0]["result"]["iterations"]), 1)
        # 2D, the single variant, in float (the set-up's rows narrowed for the CG), in CSR and ELL
        plane = ["--generate", "poisson2d:37x29", "--precond", "amg", "--amg-coarse-rows", "30", "--amg-gather-rows", "1",
                 "--variant", "single", "--precision", "float", "--tol", "1e-5"]
        csr = self.assert_same_bits(plane, [1, 3], ["--spmv", "scalar"])
        ell = self.assert_same_bits(plane, [2], ["--spmv", "ell"])
        self.assertEqual(ell[2][1], csr[1][1])
        self.assertLess(csr[1][0]["result"]["error_vs_ones"], 1e-3)

    def test_amg_of_nodes_has_the_same_bits_on_any_rank_count(self):
        # --block-size 3: strength and aggregates on nodes of 3 rows, one constant a component,
        # coarse levels of 3 unknowns an aggregate; no cut splits a node (balanced cuts are
        # rounded to multiples of both the chunk and 3)
        problem = ["--generate", "poisson3d:18x12x9", "--precond", "amg", "--block-size", "3", "--amg-coarse-rows", "60",
                   "--amg-gather-rows", "1"]
        runs = self.assert_same_bits(problem, [1, 2, 4], cuts=[96, 960])
        report = runs[4][0]
        self.assertTrue(all(first % 3 == 0 for first in report["distributed"]["first_rows"]))
        self.assertGreaterEqual(report["preconditioner"]["distributed_levels"], 2)
        # the same steps as the one-device AMG of the same nodes (its dots and bounds summed in another order: ±2)
        one = subprocess.run([CG_SOLVE] + problem + ["--precond-precision", "double", "--json", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(one.returncode, 0, describe(one))
        self.assertLessEqual(abs(json.loads(one.stdout)["result"]["iterations"] - runs[1][0]["result"]["iterations"]), 2)

    def test_elasticity_with_its_rigid_body_modes_has_the_same_bits_on_any_rank_count(self):
        # A clamped plane-strain body (mtx-gen, next to cg-solve): rank 0 reads the coordinates,
        # makes the rigid body modes and sends each rank its rows of them; nodes of 2 rows
        matrix = self.path("body.mtx")
        mtx_gen = os.path.join(os.path.dirname(CG_SOLVE), "mtx-gen")
        subprocess.run([mtx_gen, "elasticity2d", "30", "12", "0.3", "-o", matrix], check=True, stdout=subprocess.DEVNULL)
        base = ["--matrix", matrix, "--precond", "amg", "--amg-coarse-rows", "40", "--amg-gather-rows", "1"]
        modes = self.assert_same_bits(base + ["--coordinates", self.path("body.coords.mtx")], [1, 3], cuts=[64, 448])
        blocks = self.assert_same_bits(base + ["--block-size", "2"], [1, 2])
        self.assertEqual(modes[3][0]["preconditioner"]["precision"], "double")  # several vectors: as one device
        self.assertLessEqual(modes[1][0]["result"]["iterations"], 20)
        self.assertLess(modes[1][0]["result"]["iterations"], blocks[1][0]["result"]["iterations"])
        one = subprocess.run([CG_SOLVE] + base + ["--coordinates", self.path("body.coords.mtx"), "--json", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(one.returncode, 0, describe(one))
        self.assertLessEqual(abs(json.loads(one.stdout)["result"]["iterations"] - modes[1][0]["result"]["iterations"]), 2)
        # a file rank 0 cannot read ends every rank with exit 2, named once
        proc = mpirun(2, base + ["--coordinates", self.path("missing.coords.mtx")])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertEqual(len([m for m in our_messages(proc.stderr) if "missing.coords.mtx" in m]), 1, describe(proc))

    def test_amg_on_a_shared_matrix_cut_anywhere(self):
        if SHARED is None or not os.path.isdir(SHARED):
            self.skipTest("the shared SuiteSparse matrices are not at %s" % SHARED)
        problem = ["--matrix", os.path.join(SHARED, "1138_bus.mtx"), "--precond", "amg"]
        # distributed levels, then (by default: 1138 rows are under --amg-gather-rows) the whole
        # hierarchy on every rank's device, the same there as on one
        spread = self.assert_same_bits(problem + ["--amg-gather-rows", "1"], [1, 2, 4], cuts=[32, 1120])
        whole = self.assert_same_bits(problem, [1, 3])
        for runs in (spread, whole):
            self.assertLessEqual(runs[1][0]["result"]["relative_residual"], 1e-8)
            self.assertGreaterEqual(len(runs[1][0]["preconditioner"]["levels"]), 2)
        self.assertGreaterEqual(spread[4][0]["preconditioner"]["distributed_levels"], 1)
        self.assertEqual(whole[3][0]["preconditioner"]["distributed_levels"], 0)

    def test_one_device_and_one_rank_agree_on_the_count(self):
        runs = self.assert_same_bits(["--generate", "poisson3d:12"], [1])
        one = subprocess.run([CG_SOLVE, "--generate", "poisson3d:12", "--precond", "jacobi", "--variant", "fused",
                              "--json", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(one.returncode, 0, describe(one))
        single_device = json.loads(one.stdout)["result"]["iterations"]
        # the dots are summed in another order: a step or two either way at most
        self.assertLessEqual(abs(runs[1][0]["result"]["iterations"] - single_device), 2)

    def test_ranks_without_rows_and_more_ranks_than_rows(self):
        # 6 rows, one dot chunk: every rank but one holds nothing
        self.assert_same_bits(["--generate", "poisson2d:3x2"], [1, 4], cuts=[0, 0, 0])

    def test_irregular_shared_matrices_cut_anywhere(self):
        if SHARED is None or not os.path.isdir(SHARED):
            self.skipTest("the shared SuiteSparse matrices are not at %s" % SHARED)
        for name, cuts, layout in (("bcsstk13.mtx", [96, 1024, 1920], "scalar"), ("1138_bus.mtx", [32, 1120], "ell")):
            with self.subTest(matrix=name):
                # 1138_bus's rows are 1 to 18 long: its ELL copy is mostly padding
                runs = self.assert_same_bits(["--matrix", os.path.join(SHARED, name)], [1, 2, 4],
                                             ["--spmv", layout], cuts=cuts)
                report = runs[4][0]
                self.assertEqual(report["matrix"]["rows"], sum(r["rows"] for r in report["per_rank"]))
                self.assertLessEqual(report["result"]["relative_residual"], 1e-7)


class WallTimeTest(DistributedTest):
    PARTS = ("mpi_init_seconds", "device_open_seconds", "upload_seconds", "build_seconds", "setup_seconds",
             "solve_seconds", "write_seconds", "other_seconds")

    def check_parts(self, timing, first, wall_limit):
        parts = (first,) + self.PARTS
        self.assertEqual(sorted(timing), sorted(parts + ("wall_seconds",)))
        self.assertAlmostEqual(sum(timing[p] for p in parts), timing["wall_seconds"], delta=1e-9 * timing["wall_seconds"])
        for part in parts:
            self.assertGreaterEqual(timing[part], 0, part)
        self.assertGreater(timing[first], 0)
        self.assertGreater(timing["mpi_init_seconds"], 0)
        # what no part covers (the partition, x's error, the gathers) stays small; on a host with
        # fewer cores than ranks plus other tests, waits for a descheduled rank land here too
        # (0.15 s of 1.3 seen under load)
        self.assertLess(timing["other_seconds"], 0.25 + 0.05 * timing["wall_seconds"],
                        "a part of the run is not timed: %s" % timing)
        self.assertLessEqual(timing["wall_seconds"], wall_limit)

    def test_wall_time_parts_add_up_on_every_rank(self):
        # rank 0's parts in `timing` (its wall time to the report), each rank's in per_rank
        matrix = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "poisson3d_10.mtx")
        for np, args, first in ((2, ["--generate", "poisson3d:15x13x11", "--precond", "amg"], "generate_seconds"),
                                (3, ["--matrix", matrix, "--precond", "jacobi", "--output", self.path("x.mtx")],
                                 "read_seconds")):
            with self.subTest(args=args):
                started = time.monotonic()
                proc = mpirun(np, args + ["--json", "--quiet"])
                elapsed = time.monotonic() - started
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
                report = json.loads(proc.stdout)
                self.check_parts(report["timing"], first, elapsed)
                self.assertEqual(report["timing"]["solve_seconds"], report["result"]["solve_seconds"])
                self.assertEqual(report["timing"]["upload_seconds"], report["result"]["upload_seconds"])
                if "--output" in args:
                    self.assertGreater(report["timing"]["write_seconds"], 0)
                self.assertEqual(len(report["per_rank"]), np)
                for rank in report["per_rank"]:
                    timing = rank["timing"]
                    # (ranks other than 0 read nothing from files: rank 0 sends them their rows)
                    self.check_parts(timing, first, elapsed)
                    self.assertLessEqual(timing["wall_seconds"], report["timing"]["wall_seconds"] + 1.0)
                    self.assertEqual(timing["write_seconds"], 0)
                if "--precond" in args and "amg" in args:
                    # AMG's set-up is the slowest rank's (result), rank 0's (timing) one of them
                    self.assertLessEqual(report["timing"]["setup_seconds"], report["result"]["setup_seconds"])


class FailureTest(DistributedTest):
    def assert_one_message(self, proc, code, fragment, seconds=None, started=None):
        self.assertEqual(proc.returncode, code, describe(proc))
        messages = our_messages(proc.stderr)
        self.assertEqual(len(messages), 1, describe(proc))
        self.assertIn(fragment, messages[0])
        if seconds is not None:
            self.assertLess(time.monotonic() - started, seconds, "took too long to end every rank")

    def test_a_bad_file_ends_every_rank_with_exit_2(self):
        bad = self.path("bad.mtx")
        with open(bad, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4.0\n9 9 1.0\n")
        started = time.monotonic()
        proc = mpirun(3, ["--matrix", bad])
        self.assert_one_message(proc, EXIT_INPUT, "bad.mtx", seconds=60, started=started)
        proc = mpirun(2, ["--matrix", self.path("missing.mtx")])
        self.assert_one_message(proc, EXIT_INPUT, "missing.mtx")

    def test_usage_errors_exit_2_once(self):
        for args, fragment in ((["--generate", "poisson2d:8", "--precond", "ic0"], "--precond ic0"),
                               (["--generate", "poisson2d:8", "--precond", "amg", "--block-size", "3"], "--block-size"),
                               (["--generate", "poisson2d:8", "--block-size", "2"], "--block-size"),
                               (["--generate", "poisson3d:12", "--precond", "amg", "--block-size", "3", "--partition", "32"],
                                "block size"),
                               (["--generate", "poisson2d:8", "--precond", "chebyshev", "--precond-precision", "float"],
                                "--precond-precision"),
                               (["--generate", "poisson2d:8", "--variant", "pipelined"], "--variant pipelined"),
                               (["--generate", "poisson2d:8", "--spmv", "vector"], "--spmv vector"),
                               (["--generate", "poisson2d:8", "--factor", "device"], "--factor"),
                               (["--generate", "poisson2d:8", "--spmv", "diagonal"], "--spmv"),
                               (["--generate", "poisson2d:40", "--partition", "33"], "multiple of the dot chunk"),
                               (["--generate", "poisson2d:40", "--partition", "32,64"], "needs 1 cut"),
                               (["--generate", "cube:3"], "--generate")):
            with self.subTest(args=args):
                self.assert_one_message(mpirun(2, args), EXIT_INPUT, fragment)

    def test_a_bad_thread_count_is_exit_2_once(self):
        # the ranks share the node's cores only where CLCG_THREADS is not given; a given one is checked
        proc = mpirun(2, ["--generate", "poisson2d:20"], env_extra={"CLCG_THREADS": "abc"})
        self.assert_one_message(proc, EXIT_INPUT, "CLCG_THREADS")

    def test_a_device_error_on_one_rank_ends_all_with_exit_3(self):
        proc = mpirun(3, ["--generate", "poisson3d:10"], rank_env={"CLCG_DEVICE_MEMORY_LIMIT": "4096"})
        self.assert_one_message(proc, EXIT_DEVICE, "rank 2")
        self.assertIn("needs", our_messages(proc.stderr)[0])
        # AMG's levels go on the device after collective host steps: a rank whose levels do not
        # fit fails alone, and the others leave with it instead of waiting in MPI
        proc = mpirun(3, ["--generate", "poisson3d:10", "--precond", "amg", "--amg-gather-rows", "1"],
                      rank_env={"CLCG_DEVICE_MEMORY_LIMIT": "20000"})
        self.assert_one_message(proc, EXIT_DEVICE, "rank 2")
        self.assertIn("needs", our_messages(proc.stderr)[0])

    def test_not_positive_definite_is_exit_1_everywhere(self):
        path = self.path("indefinite.mtx")
        n = 70
        with open(path, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real symmetric\n" + "%d %d %d\n" % (n, n, 2 * n - 1))
            for i in range(1, n + 1):
                f.write("%d %d %s\n" % (i, i, "-3.0" if i == 50 else "2.0"))
            for i in range(2, n + 1):
                f.write("%d %d -1.0\n" % (i, i - 1))
        proc = mpirun(2, ["--matrix", path, "--json", "--quiet", "--precond", "none"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        self.assertEqual(json.loads(proc.stdout)["result"]["status"], "breakdown")
        self.assertIn("not positive definite", proc.stderr, "--quiet keeps the reason")

    def test_a_failed_solve_leaves_the_output_untouched(self):
        out = self.path("x.mtx")
        with open(out, "w") as f:
            f.write("precious\n")
        proc = mpirun(2, ["--generate", "poisson2d:30", "--max-iter", "3", "--output", out, "--quiet"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        with open(out) as f:
            self.assertEqual(f.read(), "precious\n")
        proc = mpirun(2, ["--generate", "poisson2d:30", "--max-iter", "3", "--output", out, "--output-unconverged",
                          "--history", self.path("h.csv"), "--quiet"])
        self.assertEqual(proc.returncode, EXIT_NOT_CONVERGED, describe(proc))
        with open(out) as f:
            self.assertTrue(f.readline().startswith("%%MatrixMarket matrix array real general"))
        with open(self.path("h.csv")) as f:
            self.assertEqual(len(f.read().strip().splitlines()), 1 + 3)  # header + three steps


def main():
    global CG_SOLVE, MPIEXEC, SHARED
    parser = argparse.ArgumentParser()
    parser.add_argument("--cg-solve", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--shared")
    args, rest = parser.parse_known_args()
    CG_SOLVE, MPIEXEC, SHARED = args.cg_solve, args.mpiexec, args.shared
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
