"""clcg's AMG on the finite-element problems of issue 35 (scripts/fem_problems.py, scikit-fem),
at ~10K rows, against pyamg's smoothed aggregation (its defaults) on the same matrix:

- scalar problems (coefficient jumps, layers, rotated anisotropy, P2 tets, an unstructured
  mesh): clcg's steps at most 1.5x pyamg's (measured: 8/7, 10/12, 38/31, 12/15, 12/13);
- elasticity with the rigid body modes (from the coordinates, or given as vectors): at most
  40 steps, and fewer than without them (measured: 12, 14, 21 against 118, 91, 253); the same bits on two set-ups; new values;
- near-null-space arguments that cannot work: a ValueError that says why.
"""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import clcg

pyamg = pytest.importorskip("pyamg", reason="pyamg (PyPI) is the independent AMG; scripts/test installs it")

ROWS = 1e4
SCALAR = ("jumps3d", "layers2d", "aniso2d", "p2tets", "p1unstructured")
ELASTIC = ("elasticity2d", "elasticity3d", "beam2d")


def pyamg_steps(A, b):
    ml = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A))
    steps = []
    _, info = sla.cg(A, b, rtol=1e-8, M=ml.aspreconditioner(), maxiter=2000, callback=lambda xk: steps.append(1))
    assert info == 0
    return len(steps)


@pytest.fixture(scope="module")
def problems(fem_problems):
    return {name: fem_problems.generate(name, rows=ROWS) for name in SCALAR + ELASTIC}


@pytest.mark.parametrize("name", SCALAR)
def test_scalar_problems_take_at_most_1_5x_pyamgs_steps(problems, name):
    A = problems[name][0]
    b = A @ np.ones(A.shape[0])
    reference = pyamg_steps(A, b)
    r = clcg.Solver(A, precond="amg").solve(b, rtol=1e-8, maxiter=2000)
    print(f"{name}: {A.shape[0]} rows, clcg {r.iterations} steps, pyamg {reference}")
    assert r.converged
    assert r.iterations <= 1.5 * reference


@pytest.mark.parametrize("name", ELASTIC)
def test_rigid_body_modes_cut_the_steps(problems, fem_problems, name):
    A, coords, d, _ = problems[name]
    b = A @ np.ones(A.shape[0])
    plain = clcg.Solver(A, precond="amg").solve(b, rtol=1e-8, maxiter=5000)
    with_modes = clcg.Solver(A, precond="amg", coordinates=coords).solve(b, rtol=1e-8)
    given = clcg.cg(A, b, rtol=1e-8, near_nullspace=fem_problems.rigid_body_modes(coords), block_size=d)
    again = clcg.Solver(A, precond="amg", coordinates=coords, block_size=d).solve(b, rtol=1e-8)
    print(f"{name}: {A.shape[0]} rows, {with_modes.iterations} steps with the modes, {plain.iterations} without")
    assert with_modes.converged and plain.converged
    assert with_modes.iterations <= 40
    assert with_modes.iterations < plain.iterations
    assert given[1] == 0 and np.allclose(given[0], 1, atol=1e-5)
    assert np.array_equal(again.x, with_modes.x), "two set-ups with the same modes differ"


def test_new_values_keep_the_near_nullspace(problems):
    A, coords, d, _ = problems["elasticity2d"]
    b = A @ np.ones(A.shape[0])
    solver = clcg.Solver(A, precond="amg", coordinates=coords)
    first = solver.solve(b, rtol=1e-8)
    solver.update(2.5 * A)
    scaled = solver.solve(2.5 * b, rtol=1e-8)
    assert scaled.converged and abs(scaled.iterations - first.iterations) <= 1
    assert np.allclose(scaled.x, 1, atol=1e-5)


def test_arguments_that_cannot_be_a_near_nullspace_are_refused(problems, fem_problems):
    A, coords, d, _ = problems["elasticity2d"]
    n = A.shape[0]
    B = fem_problems.rigid_body_modes(coords)
    cases = [
        (dict(near_nullspace=B[:-2]), "rows but A has"),
        (dict(coordinates=coords[:-1]), "rows but A has"),
        (dict(near_nullspace=np.where(np.arange(n)[:, None] == 5, np.nan, B)), "not finite at row 5"),
        (dict(near_nullspace=np.zeros((n, 0))), "at least one column"),
        (dict(near_nullspace=np.column_stack([B, B[:, 0] + B[:, 1]])), "combination"),
        (dict(block_size=next(k for k in range(3, 17) if n % k)), "dividing"),
        (dict(coordinates=coords, block_size=3), "columns"),
        (dict(coordinates=coords, near_nullspace=B), "give one"),
        (dict(coordinates=np.zeros_like(coords)), "do not span the rotations"),
    ]
    for kwargs, words in cases:
        with pytest.raises(ValueError, match=words):
            clcg.Solver(A, precond="amg", **kwargs)
    with pytest.raises(ValueError, match="precond must be 'amg' or 'auto'"):
        clcg.Solver(A, precond="jacobi", coordinates=coords)
