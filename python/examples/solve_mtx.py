"""Solve A x = b for a Matrix Market file with clcg, as a SciPy user would, then reuse the
set-up for a second right-hand side.

    python python/examples/solve_mtx.py ../shared/data/matrices/bcsstk16.mtx
"""
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

import clcg

A = sp.csr_array(scipy.io.mmread(sys.argv[1]))
n = A.shape[0]
b = A @ np.ones(n)

# The SciPy swap: scipy.sparse.linalg.cg -> clcg.cg, same arguments, same (x, info).
x, info = clcg.cg(A, b, rtol=1e-8, M="jacobi")
print(f"cg: info {info}, error |x - 1|_inf {np.max(np.abs(x - 1)):.2e}")

# Set up once (A uploaded, preconditioner built), solve many times.
solver = clcg.Solver(A, precond="auto")
for seed in (1, 2):
    b = A @ np.random.default_rng(seed).standard_normal(n)
    r = solver.solve(b, rtol=1e-8)
    print(f"Solver ({solver.preconditioner}, {solver.variant} on {solver.device}): {r.status} in {r.iterations} "
          f"steps, true residual {r.residual:.1e}, set-up {r.setup_seconds * 1e3:.1f} ms, solve "
          f"{r.solve_seconds * 1e3:.1f} ms")

# The reduction module on numpy arrays.
print("sum", clcg.reduce(b, op="sum"), "dot", clcg.reduce(b, b, op="dot"), "argmax", clcg.reduce(b, op="argmax"))
