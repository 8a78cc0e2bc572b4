"""clcg's smoothed-aggregation AMG against an independent implementation, pyamg (PyPI), as CG
preconditioners on the shared SuiteSparse matrices and a Poisson grid: pyamg set up alike (max
600 coarse rows, two damped-Jacobi sweeps each side, V-cycle; clcg: two Chebyshev sweeps).
Measured (PoCL): equal steps where the hierarchy is one dense level (494_bus, bcsstk01,
pts5ldd03) and on Poisson 64^2; gr_30_30 8 against 7, lap2D_5pt_n100 10 against 8; fewer on
1138_bus (17 against 31) and the stiffness matrices (bcsstk13 306 against 540, bcsstk16 43
against 69). The check: never more than 2x pyamg's + 2. test_amg_fem.py compares with pyamg's
defaults on the finite-element problems."""
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import clcg
from conftest import poisson2d

pyamg = pytest.importorskip("pyamg", reason="pyamg (PyPI) is the independent AMG; scripts/test installs it")


def pyamg_steps(A, b):
    jacobi = ("jacobi", {"omega": 4.0 / 3.0, "iterations": 2})
    ml = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A), max_coarse=600, presmoother=jacobi, postsmoother=jacobi)
    steps = []
    _, info = sla.cg(A, b, rtol=1e-8, M=ml.aspreconditioner(cycle="V"), maxiter=5000,
                     callback=lambda xk: steps.append(1))
    assert info == 0
    return len(steps)


def cases(shared_matrices):
    for path in shared_matrices:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            yield path.name, sp.csr_array(scipy.io.mmread(path)).astype(np.float64)
    yield "poisson2d 64^2", poisson2d(64)


def test_amg_steps_match_pyamgs(shared_matrices):
    report = []
    for name, A in cases(shared_matrices):
        b = A @ np.ones(A.shape[0])
        reference = pyamg_steps(A, b)
        r = clcg.Solver(A, precond="amg").solve(b, rtol=1e-8, maxiter=5000)
        report.append(f"{name}: clcg {r.iterations}, pyamg {reference}")
        assert r.converged, name
        assert r.iterations <= 2 * reference + 2, report[-1]
    print("\n".join(report))
