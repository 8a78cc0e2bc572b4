"""python -m clcg.bench: clcg from Python against SciPy's cg (host) and CuPy's cg (GPU, where CuPy
is installed), set-up and solve timed separately, b = A 1, x0 = 0, plain CG (M=None) unless
--precond names one for clcg. Median of --repeats after one warm-up. setup_ms is the whole
clcg.Solver(A) (check_symmetry=False), upload_ms the C++ upload of A inside it. Also the binding's cost:
the Python wall time of Solver.solve against the C++ time of the same solve (b uploaded, CG,
x read back) that it reports.

    python -m clcg.bench --problems poisson3d:128,poisson2d:1024 --mtx A.mtx --rtol 1e-8 --json out.json
"""
from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import statistics
import sys
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import clcg


def poisson(dim: int, m: int) -> sp.csr_array:
    """The 5-point (2D) or 7-point (3D) Laplacian on an m^dim grid."""
    t = sp.diags_array([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], offsets=[-1, 0, 1])
    eye = sp.eye_array(m)
    if dim == 2:
        return (sp.kron(eye, t) + sp.kron(t, eye)).tocsr()
    return (sp.kron(sp.kron(eye, eye), t) + sp.kron(sp.kron(eye, t), eye) + sp.kron(sp.kron(t, eye), eye)).tocsr()


def problems(args):
    for spec in filter(None, args.problems.split(",")):
        kind, _, size = spec.partition(":")
        if kind not in ("poisson2d", "poisson3d") or not size.isdigit():
            sys.exit(f"clcg.bench: --problems takes poisson2d:M or poisson3d:M, got {spec!r}")
        yield f"{kind} {size}^{kind[-2]}", poisson(int(kind[-2]), int(size))
    for path in args.mtx:
        with warnings.catch_warnings():  # newer SciPy warns that mmread will return a sparse array
            warnings.simplefilter("ignore", DeprecationWarning)
            A = scipy.io.mmread(path)
        yield pathlib.Path(path).name, sp.csr_array(A).astype(np.float64)


def timed(repeats, f):
    """(median seconds, last result) of repeats calls after one warm-up."""
    f()
    samples, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def clcg_rows(name, A, b, args):
    rows = []
    for precond in ["none"] + [p for p in args.precond.split(",") if p and p != "none"]:
        setup, solver = timed(args.repeats, lambda: clcg.Solver(A, precond=precond, check_symmetry=False))
        upload = solver.upload_seconds  # A's upload inside the last Solver(A), before any solve
        core = []

        def solve():
            r = solver.solve(b, rtol=args.rtol, maxiter=args.maxiter)
            core.append(r.solve_seconds)
            return r

        wall, r = timed(args.repeats, solve)
        core_s = statistics.median(core[1:])
        rows.append(dict(problem=name, method=f"clcg ({solver.preconditioner}, {solver.variant})", setup_ms=setup * 1e3,
                         upload_ms=upload * 1e3, solve_ms=wall * 1e3, core_ms=core_s * 1e3, binding_pct=100 * (wall - core_s) / core_s,
                         iterations=r.iterations, residual=r.residual, converged=r.converged))
    return rows


def scipy_row(name, A, b, args):
    steps = []

    def solve():
        steps.clear()
        return sla.cg(A, b, rtol=args.rtol, maxiter=args.maxiter, callback=lambda xk: steps.append(1))

    wall, (x, info) = timed(args.repeats, solve)
    return dict(problem=name, method="scipy cg (host)", setup_ms=0.0, solve_ms=wall * 1e3, iterations=len(steps),
                residual=float(np.linalg.norm(b - A @ x) / np.linalg.norm(b)), converged=info == 0)


def cupy_row(name, A, b, args):
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as csla

    def setup():
        out = (csp.csr_matrix(sp.csr_matrix(A)), cupy.asarray(b))
        cupy.cuda.Device().synchronize()
        return out

    setup_s, (A_gpu, b_gpu) = timed(args.repeats, setup)
    # CuPy renamed tol to rtol (as SciPy did) in later versions
    tolerance = {"rtol" if "rtol" in inspect.signature(csla.cg).parameters else "tol": args.rtol}
    steps = []

    def solve():
        steps.clear()
        x, info = csla.cg(A_gpu, b_gpu, maxiter=args.maxiter, callback=lambda xk: steps.append(1), **tolerance)
        cupy.cuda.Device().synchronize()
        return x, info

    # the callback costs nothing on the device; CuPy's cg calls it once per step either way
    wall, (x, info) = timed(args.repeats, solve)
    x = cupy.asnumpy(x)
    return dict(problem=name, method="cupy cg (GPU)", setup_ms=setup_s * 1e3, solve_ms=wall * 1e3,
                iterations=len(steps), residual=float(np.linalg.norm(b - A @ x) / np.linalg.norm(b)),
                converged=info == 0)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m clcg.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", default="poisson2d:256,poisson3d:64", help="poisson2d:M,poisson3d:M,...")
    parser.add_argument("--mtx", nargs="*", default=[], help="Matrix Market files")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--maxiter", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--precond", default="", help="also time clcg with these preconditioners (comma list)")
    parser.add_argument("--no-scipy", action="store_true", help="skip SciPy (slow on large problems)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    try:
        import cupy  # noqa: F401
        have_cupy = True
    except ImportError:
        have_cupy = False
    rows = []
    print(f"# clcg {clcg.__version__} on {clcg.Solver(poisson(2, 2)).device}; rtol {args.rtol}, median of "
          f"{args.repeats} after a warm-up; CuPy {'yes' if have_cupy else 'not installed'}")
    print(f"{'problem':18} {'method':34} {'setup_ms':>9} {'upload_ms':>9} {'solve_ms':>9} {'core_ms':>9} {'binding':>8} {'steps':>6} "
          f"{'residual':>9}")
    for name, A in problems(args):
        b = A @ np.ones(A.shape[0])
        found = clcg_rows(name, A, b, args)
        if not args.no_scipy:
            found.append(scipy_row(name, A, b, args))
        if have_cupy:
            found.append(cupy_row(name, A, b, args))
        for r in found:
            core = f"{r['core_ms']:9.2f} {r['binding_pct']:7.1f}%" if "core_ms" in r else f"{'':9} {'':8}"
            upload = f"{r['upload_ms']:9.2f}" if "upload_ms" in r else f"{'':9}"
            print(f"{r['problem']:18} {r['method']:34} {r['setup_ms']:9.2f} {upload} {r['solve_ms']:9.2f} {core} "
                  f"{r['iterations']:6d} {r['residual']:9.1e}", flush=True)
        rows += [dict(r, rows=A.shape[0], nnz=A.nnz) for r in found]
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
