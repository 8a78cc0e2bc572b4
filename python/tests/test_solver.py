"""clcg.Solver: set up once, solve many right-hand sides; new values on the same pattern; what a
result reports; Ctrl-C."""
import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import clcg
from conftest import poisson2d


def test_result_reports_the_solve():
    A = poisson2d(25)
    solver = clcg.Solver(A, precond="jacobi", variant="single")
    assert solver.preconditioner == "jacobi" and solver.variant == "single" and solver.setup_seconds > 0
    b = A @ np.ones(625)
    r = solver.solve(b, rtol=1e-9)
    assert r.converged and r.status == "converged" and r.info == 0
    assert r.residual == pytest.approx(np.linalg.norm(b - A @ r.x) / np.linalg.norm(b), rel=1e-6)
    assert r.residual <= 1e-8
    assert r.history.shape == (r.iterations,) and r.history[-1] <= 1e-9 < r.history[0]
    assert r.solve_seconds > 0 and r.setup_seconds == solver.setup_seconds


def test_many_right_hand_sides_reuse_the_set_up():
    A = poisson2d(21)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((441, 4))
    solver = clcg.Solver(A, precond="auto")
    results = solver.solve(A @ X, rtol=1e-10)
    assert len(results) == 4
    for j, r in enumerate(results):
        assert r.converged
        np.testing.assert_allclose(r.x, X[:, j], atol=1e-7)
    # the same b twice gives the same bits (nothing left over from the previous solve)
    again = solver.solve((A @ X)[:, 2], rtol=1e-10)
    np.testing.assert_array_equal(again.x, results[2].x)


@pytest.mark.parametrize("precond", ["amg", "jacobi", "auto"])
def test_update_takes_new_values_on_the_same_pattern(precond):
    """update(A) solves as a new Solver(A) would: bit for bit where the set-up keeps nothing that
    depends on values (Jacobi; auto: a direct solve with the same analysis); AMG keeps its
    aggregates and coarse patterns, which the new values would not all give (D A D changes the
    coarse levels' strong connections), so it needs about as many steps. Another pattern is refused."""
    A = poisson2d(23).tocsr()
    d = np.random.default_rng(3).uniform(0.5, 2.0, A.shape[0])
    scaled = (sp.diags(d) @ A @ sp.diags(d)).tocsr()
    scaled.sort_indices()
    solver = clcg.Solver(A, precond=precond)
    b = np.linspace(-1.0, 1.0, A.shape[0])
    first = solver.solve(b, rtol=1e-10)
    assert solver.update(scaled) is solver and solver.update_seconds > 0
    got = solver.solve(b, rtol=1e-10)
    expected = clcg.Solver(scaled, precond=precond).solve(b, rtol=1e-10)
    assert got.converged and np.linalg.norm(scaled @ got.x - b) <= 1e-9 * np.linalg.norm(b)
    assert not np.array_equal(got.x, first.x)
    if precond == "amg":
        assert got.iterations <= expected.iterations + 2
    else:
        assert got.iterations == expected.iterations
        np.testing.assert_array_equal(got.x, expected.x)
    with pytest.raises(ValueError, match="same pattern"):
        solver.update(poisson2d(22))
    with pytest.raises(ValueError, match="same pattern"):
        solver.update(A + sp.eye(A.shape[0], k=5) + sp.eye(A.shape[0], k=-5))  # more nonzeros


def test_not_converged_reports_the_limit():
    A = poisson2d(20)
    r = clcg.Solver(A, precond="none").solve(A @ np.ones(400), rtol=1e-14, maxiter=3)
    assert r.status == "max_iterations" and r.info == 3 and r.iterations == 3 and not r.converged


def test_ic0_setup_on_a_non_spd_matrix_is_a_breakdown():
    A = poisson2d(5)
    A = A - 10 * np.eye(25)  # negative diagonal: IC(0) cannot be set up
    r = clcg.Solver(A, precond="ic0").solve(np.ones(25))
    assert r.status == "breakdown" and r.info < 0 and r.message


def test_float_solver_keeps_float():
    A = poisson2d(12)
    r = clcg.Solver(A, precision="float").solve(A @ np.ones(144), rtol=1e-5)
    assert r.x.dtype == np.float32 and r.converged


def test_ctrl_c_stops_within_a_step():
    A = poisson2d(40)
    b = A @ np.ones(1600)
    steps = []

    def interrupt_at_three(xk):
        steps.append(1)
        if len(steps) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        clcg.cg(A, b, rtol=1e-300, maxiter=10**9, callback=interrupt_at_three)
    assert len(steps) == 3


def test_ctrl_c_from_another_thread_stops_a_long_solve():
    A = poisson2d(300)  # 90000 rows: plain CG to 1e-300 runs for minutes on a CPU device
    solver = clcg.Solver(A, precond="none")
    b = A @ np.ones(A.shape[0])
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.solve(b, rtol=1e-300, maxiter=10**9)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
