#!/usr/bin/env python3
"""CuPy's conjugate gradient on cg-bench's generated problems, for the peer column of
docs/PERFORMANCE.md. Runs where CuPy is installed (the GPU machine):

    scripts/cupy_cg.py [--poisson3d 64,128,256] [--poisson2d 2048] [--iterations 200] [--repeats 5] [--csv out.csv]

Fixed work: `iterations` steps (a tolerance that cannot be met), the median of `repeats`
timed solves after a warm-up, synchronising the device around each; then one solve of the
3D problems to 1e-8 (relative), timed end to end. Matrices: the same 5-point / 7-point
Dirichlet Laplacians as mtx-gen, float64, CSR (cuSPARSE SpMV, cuBLAS dots)."""
import argparse
import csv
import inspect
import sys
import time

import numpy as np
import scipy.sparse as sp


def laplacian_1d(n):
    return sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])


def poisson(n, dims):
    eye = sp.identity(n)
    one = laplacian_1d(n)
    if dims == 2:
        return (sp.kron(one, eye) + sp.kron(eye, one)).tocsr()
    return (sp.kron(sp.kron(one, eye), eye) + sp.kron(sp.kron(eye, one), eye) + sp.kron(sp.kron(eye, eye), one)).tocsr()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--poisson3d", default="64,128,256")
    parser.add_argument("--poisson2d", default="2048")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--csv")
    args = parser.parse_args()
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
    except ImportError as error:
        sys.exit(f"cupy_cg.py: CuPy is not installed here ({error})")

    # SciPy renamed tol to rtol; CuPy followed in newer versions.
    rtol = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"
    problems = [(f"poisson3d_{n}", int(n), 3) for n in args.poisson3d.split(",") if n]
    problems += [(f"poisson2d_{n}", int(n), 2) for n in args.poisson2d.split(",") if n]
    rows = []
    for name, n, dims in problems:
        a = csp.csr_matrix(poisson(n, dims))
        b = a @ cp.ones(a.shape[0])

        def fixed():
            cp.cuda.Device().synchronize()
            start = time.perf_counter()
            cla.cg(a, b, **{rtol: 0.0}, atol=0.0, maxiter=args.iterations)
            cp.cuda.Device().synchronize()
            return time.perf_counter() - start

        fixed()  # warm-up
        ms = 1e3 * float(np.median([fixed() for _ in range(args.repeats)])) / args.iterations
        row = {"matrix": name, "rows": a.shape[0], "nnz": a.nnz, "ms_per_iteration": ms, "solve_ms": "", "solve_iterations": ""}
        if dims == 3:
            steps = []
            cp.cuda.Device().synchronize()
            start = time.perf_counter()
            x, _ = cla.cg(a, b, **{rtol: 1e-8}, atol=0.0, maxiter=100000, callback=lambda xk: steps.append(1))
            cp.cuda.Device().synchronize()
            row["solve_ms"] = 1e3 * (time.perf_counter() - start)
            row["solve_iterations"] = len(steps)
        rows.append(row)
        print(f"{name:16s} {row['rows']:9d} {row['nnz']:10d}  CuPy {ms:8.4f} ms/iter  solve {row['solve_ms'] or '-'} ms "
              f"({row['solve_iterations'] or '-'} it)", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
