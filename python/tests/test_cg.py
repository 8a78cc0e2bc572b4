"""clcg.cg against scipy.sparse.linalg.cg: same info, iteration counts within 10 %, x as close
as the tolerance allows."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import clcg
from conftest import poisson2d, random_spd


def scipy_cg(A, b, M=None, **kw):
    steps = []
    x, info = sla.cg(A, b, M=M, callback=lambda xk: steps.append(1), **kw)
    return x, info, len(steps)


def clcg_cg(A, b, x0=None, **kw):
    steps = []
    x, info = clcg.cg(A, b, x0, callback=lambda xk: steps.append(1), **kw)
    return x, info, len(steps)


def jacobi_operator(A):
    d = 1.0 / A.diagonal()
    return sla.LinearOperator(A.shape, matvec=lambda v: d * v.ravel(), dtype=np.float64)


def test_shared_matrices_agree_with_scipy(shared_matrices):
    checked = 0
    for path in shared_matrices:
        A = sp.csr_array(scipy.io.mmread(path)).astype(np.float64)
        b = A @ np.ones(A.shape[0])
        for M in ("jacobi", None):
            if M is None and path.name == "bcsstk13.mtx":
                continue  # plain CG does not converge on it in 20000 steps (SOURCES.md)
            ref_x, ref_info, ref_steps = scipy_cg(A, b, M=jacobi_operator(A) if M else None, rtol=1e-8, maxiter=20000)
            x, info, steps = clcg_cg(A, b, M=M, rtol=1e-8, maxiter=20000)
            assert info == ref_info == 0, (path.name, M)
            assert abs(steps - ref_steps) <= 0.1 * ref_steps + 1, (path.name, M, steps, ref_steps)
            assert np.linalg.norm(b - A @ x) <= 1e-7 * np.linalg.norm(b), (path.name, M)
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_poisson_in_each_precision(dtype):
    A = poisson2d(23, dtype)  # 529 rows: not a multiple of any work-group size
    b = (A @ np.ones(A.shape[0], dtype=dtype)).astype(dtype)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    x, info = clcg.cg(A, b, rtol=rtol)
    assert info == 0
    assert x.dtype == dtype
    assert np.linalg.norm(b - A @ x) <= 10 * rtol * np.linalg.norm(b)


def test_maxiter_gives_the_steps_done_as_info():
    A = poisson2d(30)
    b = A @ np.ones(A.shape[0])
    x, info = clcg.cg(A, b, rtol=1e-12, maxiter=7)
    ref_x, ref_info = sla.cg(A, b, rtol=1e-12, maxiter=7)
    assert info == ref_info == 7
    np.testing.assert_allclose(x, ref_x, rtol=1e-9, atol=1e-12)


def test_atol_and_x0_as_scipy():
    A = random_spd(301, seed=3)
    rng = np.random.default_rng(4)
    b, x0 = rng.standard_normal(301), rng.standard_normal(301)
    atol = 1e-6 * np.linalg.norm(b)
    x, info, steps = clcg_cg(A, b, x0, rtol=0.0, atol=atol)
    ref_x, ref_info, ref_steps = scipy_cg(A, b, x0=x0, rtol=0.0, atol=atol)
    assert info == ref_info == 0
    assert abs(steps - ref_steps) <= 1
    assert np.linalg.norm(b - A @ x) <= 2 * atol


def test_callback_sees_every_iterate():
    A = poisson2d(15)
    b = A @ np.arange(A.shape[0], dtype=float)
    seen = []
    x, info = clcg.cg(A, b, rtol=1e-10, callback=lambda xk: seen.append(xk.copy()))
    assert info == 0
    np.testing.assert_array_equal(seen[-1], x)
    # x_k of the callback is the iterate a solve limited to k steps ends with
    for k in (1, 5, len(seen) // 2):
        xk, _ = clcg.cg(A, b, rtol=1e-10, maxiter=k, callback=lambda v: None)
        np.testing.assert_allclose(seen[k - 1], xk, rtol=1e-12, atol=1e-12)
    ref_steps = scipy_cg(A, b, rtol=1e-10)[2]
    assert abs(len(seen) - ref_steps) <= 1


def test_callback_exception_propagates():
    A = poisson2d(10)
    b = A @ np.ones(100)

    def fail(xk):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        clcg.cg(A, b, callback=fail)


def test_zero_rhs_and_tiny_systems():
    A = poisson2d(4)
    x, info = clcg.cg(A, np.zeros(16))
    assert info == 0 and not np.any(x)
    one = sp.csr_array(np.array([[4.0]]))
    x, info = clcg.cg(one, np.array([2.0]))
    assert info == 0 and x[0] == pytest.approx(0.5)
    empty = sp.csr_array((0, 0))
    x, info = clcg.cg(empty, np.zeros(0))
    assert info == 0 and x.shape == (0,)


def test_not_positive_definite_is_a_breakdown():
    A = sp.csr_array(np.array([[1.0, 0.0], [0.0, -1.0]]))
    x, info = clcg.cg(A, np.array([1.0, 1.0]), rtol=1e-12)
    assert info < 0


def test_preconditioners_by_name():
    A = poisson2d(20)
    b = A @ np.ones(400)
    for M in clcg.PRECONDITIONERS:
        x, info = clcg.cg(A, b, rtol=1e-8, M=M)
        assert info == 0, M
        assert np.linalg.norm(b - A @ x) <= 1e-7 * np.linalg.norm(b), M
