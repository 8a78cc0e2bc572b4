#!/usr/bin/env python3
"""Time to solution of the peers clcg's preconditioners are measured against, on the same
machine and problems as `cg-bench --preconds` (tol 1e-8, b = A*1, x0 = 0):

  - SuperLU (scipy.sparse.linalg.splu on the host): factor + solve, the shared matrices only;
  - CuPy's CG with Jacobi (cupyx.scipy.sparse.linalg.cg, M = diag(A)^-1 as a LinearOperator) on
    the GPU, where CuPy is installed: the shared matrices and the Poisson grids.

  scripts/peers_time_to_solution.py [--repeats 3] [--poisson3d 128,256] [--poisson2d 2048] [--csv out.csv] A.mtx ...

Median of `repeats` after a warm-up; prints a table, writes CSV rows
(problem, peer, ms, iterations).
"""
import argparse
import csv
import importlib.util
import statistics
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def poisson(n, dims):
    t = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    eye = sp.identity(n, format="csr")
    if dims == 2:
        return (sp.kron(t, eye) + sp.kron(eye, t)).tocsr()
    return (sp.kron(sp.kron(t, eye), eye) + sp.kron(sp.kron(eye, t), eye) + sp.kron(sp.kron(eye, eye), t)).tocsr()


def median_ms(repeats, f):
    f()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        samples.append(1e3 * (time.perf_counter() - start))
    return statistics.median(samples), result


def superlu(a, b):
    lu = spla.splu(a.tocsc())
    x = lu.solve(b)
    return x


def cupy_jacobi_cg(a, b):
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cspla
    ad = csp.csr_matrix(a)
    bd = cupy.asarray(b)
    inv_diag = cupy.asarray(1.0 / a.diagonal())
    m = cspla.LinearOperator(a.shape, matvec=lambda v: inv_diag * v, dtype=np.float64)
    count = [0]

    def run():
        count[0] = 0
        tick = lambda xk: count.__setitem__(0, count[0] + 1)  # noqa: E731
        try:
            x, info = cspla.cg(ad, bd, M=m, rtol=1e-8, maxiter=100000, callback=tick)
        except TypeError:  # CuPy before the SciPy 1.12 keyword names
            x, info = cspla.cg(ad, bd, M=m, tol=1e-8, maxiter=100000, callback=tick)
        cupy.cuda.Device().synchronize()
        return info
    return run, count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--poisson3d", default="")
    parser.add_argument("--poisson2d", default="")
    parser.add_argument("--csv")
    parser.add_argument("matrices", nargs="*")
    options = parser.parse_args()
    have_cupy = importlib.util.find_spec("cupy") is not None
    if not have_cupy:
        print("peers: CuPy not installed: SuperLU only", file=sys.stderr)
    problems = [(m.rsplit("/", 1)[-1], sp.csr_matrix(scipy.io.mmread(m), dtype=np.float64), True) for m in options.matrices]
    problems += [("poisson3d_%s" % n, poisson(int(n), 3), False) for n in options.poisson3d.split(",") if n]
    problems += [("poisson2d_%s" % n, poisson(int(n), 2), False) for n in options.poisson2d.split(",") if n]
    rows = []
    print("%-24s %12s %12s %8s" % ("problem", "superlu_ms", "cupy_ms", "cupy_it"))
    for name, a, direct in problems:
        b = a @ np.ones(a.shape[0])
        lu_ms = float("nan")
        if direct:
            lu_ms, _ = median_ms(options.repeats, lambda: superlu(a, b))
            rows.append((name, "superlu", lu_ms, ""))
        cupy_ms, iterations = float("nan"), ""
        if have_cupy:
            run, count = cupy_jacobi_cg(a, b)
            cupy_ms, _ = median_ms(options.repeats, run)
            iterations = count[0]
            rows.append((name, "cupy_jacobi_cg", cupy_ms, iterations))
        print("%-24s %12.3f %12.3f %8s" % (name, lu_ms, cupy_ms, iterations), flush=True)
    if options.csv:
        with open(options.csv, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["problem", "peer", "ms", "iterations"])
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
