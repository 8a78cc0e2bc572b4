"""Every input form clcg takes, and every input it refuses with a message naming the problem."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import clcg
from conftest import poisson2d, random_spd

A64 = random_spd(67, seed=11)
X_TRUE = np.random.default_rng(12).standard_normal(67)
B64 = A64 @ X_TRUE


def forms(A):
    coo = A.tocoo()
    yield "csr_array", sp.csr_array(A)
    yield "csc_array", sp.csc_array(A)
    yield "coo_array", sp.coo_array(A)
    yield "csr_matrix", sp.csr_matrix(A)
    yield "csc_matrix", sp.csc_matrix(A)
    yield "coo_matrix", sp.coo_matrix(A)
    yield "bsr_matrix", sp.bsr_matrix(A)
    yield "dense", A.toarray()
    yield "int64 indices", sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=A.shape)
    # duplicates and unsorted entries, as COO may hold them
    yield "coo with duplicates", sp.coo_array((np.concatenate([coo.data / 2, coo.data / 2]),
                                               (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col]))),
                                              shape=A.shape)


@pytest.mark.parametrize("name,A", list(forms(sp.csr_array(A64))), ids=lambda v: v if isinstance(v, str) else "")
def test_every_format(name, A):
    x, info = clcg.cg(A, B64, rtol=1e-12)
    assert info == 0, name
    np.testing.assert_allclose(x, X_TRUE, rtol=0, atol=1e-8)


def test_float32_matrix_and_vector():
    A = sp.csr_array(A64).astype(np.float32)
    x, info = clcg.cg(A, B64.astype(np.float32), rtol=1e-5)
    assert info == 0 and x.dtype == np.float32
    np.testing.assert_allclose(x, X_TRUE, atol=1e-3)


def test_strided_and_column_vectors():
    wide = np.zeros((67, 3))
    wide[:, 1] = B64
    x, info = clcg.cg(A64, wide[:, 1], rtol=1e-12)  # a non-contiguous column
    assert info == 0
    np.testing.assert_allclose(x, X_TRUE, atol=1e-8)
    x, info = clcg.cg(A64, B64[:, None], x0=np.zeros((67, 1)), rtol=1e-12)  # (n, 1) as SciPy allows
    assert info == 0 and x.shape == (67,)
    reversed_b = np.ascontiguousarray(B64[::-1])[::-1]  # negative stride
    x, info = clcg.cg(A64, reversed_b, rtol=1e-12)
    np.testing.assert_allclose(x, X_TRUE, atol=1e-8)
    x, info = clcg.cg(A64, list(B64), rtol=1e-12)  # any sequence
    assert info == 0


@pytest.mark.parametrize("make,error,words", [
    (lambda: clcg.cg(sp.csr_array(np.ones((2, 3))), np.ones(2)), ValueError, "square"),
    (lambda: clcg.cg(A64, np.ones(66)), ValueError, "66"),
    (lambda: clcg.cg(A64, np.ones((67, 2))), ValueError, "vector"),
    (lambda: clcg.cg(A64, np.full(67, np.nan)), ValueError, "NaN"),
    (lambda: clcg.cg(A64, np.ones(67), x0=np.full(67, np.inf)), ValueError, "x0"),
    (lambda: clcg.cg(A64.astype(np.complex128), np.ones(67)), TypeError, "complex"),
    (lambda: clcg.cg(A64, np.ones(67, dtype=complex)), TypeError, "complex"),
    (lambda: clcg.cg(sp.csr_array(np.array([[1.0, 2.0], [0.0, 1.0]])), np.ones(2)), ValueError, "not symmetric"),
    (lambda: clcg.cg(sp.csr_array(np.array([[np.inf, 0.0], [0.0, 1.0]])), np.ones(2)), ValueError, "(0, 0)"),
    (lambda: clcg.cg(sla.aslinearoperator(A64), np.ones(67)), TypeError, "LinearOperator"),
    (lambda: clcg.cg(A64, np.ones(67), M=sla.aslinearoperator(A64)), TypeError, "host"),
    (lambda: clcg.cg(A64, np.ones(67), M="ilu"), ValueError, "jacobi"),
    (lambda: clcg.cg("A", np.ones(67)), TypeError, "scipy.sparse"),
    (lambda: clcg.cg(A64, np.ones(67), maxiter=-1), ValueError, "maxiter"),
    (lambda: clcg.cg(A64, np.ones(67), rtol=-1.0), ValueError, "rtol"),
    (lambda: clcg.cg(A64, np.ones(67), callback=3), TypeError, "callable"),
    (lambda: clcg.Solver(A64, variant="fast"), ValueError, "variant"),
    (lambda: clcg.Solver(A64, precision="half"), ValueError, "precision"),
    (lambda: clcg.Solver(A64, device=1.5), TypeError, "device"),
    (lambda: clcg.Solver(A64, device=99), clcg.DeviceError, "99"),
])
def test_bad_input_is_named(make, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_non_symmetric_on_request():
    A = sp.csr_array(np.array([[4.0, 1.0], [0.5, 3.0]]))
    x, info = clcg.cg(A, np.ones(2), check_symmetry=False, rtol=1e-12)
    assert info == 0 or info > 0  # CG may or may not converge on it; it must not refuse it


def test_device_error_is_a_runtime_error():
    assert issubclass(clcg.DeviceError, RuntimeError)


def test_devices_lists_the_one_in_use():
    listed = clcg.devices()
    assert listed and all({"index", "name", "platform", "type", "fp64"} <= d.keys() for d in listed)
    solver = clcg.Solver(poisson2d(3))
    assert solver.device in [d["name"] for d in listed]


def test_canonical_int32_csr_is_used_in_place():
    from clcg._inputs import as_csr
    A = sp.csr_array(A64)
    A.sum_duplicates()  # canonical: sorted rows, no duplicates
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    csr = as_csr(A)
    for ours, theirs in ((csr.data, A.data), (csr.indices, A.indices), (csr.indptr, A.indptr)):
        assert np.shares_memory(ours, theirs)  # no copy, no conversion
    solver = clcg.Solver(A, precond="none")
    assert solver.upload_seconds > 0
    x = solver.solve(B64, rtol=1e-12).x
    np.testing.assert_allclose(x, X_TRUE, atol=1e-8)


def test_unsorted_csr_is_sorted_in_a_copy_leaving_the_callers_arrays():
    from clcg._inputs import as_csr
    A = sp.csr_array(A64)
    A.sum_duplicates()
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    data, indices = A.data[::-1].copy(), A.indices.copy()
    for i in range(A.shape[0]):  # each row's entries reversed: unsorted, same matrix
        lo, hi = A.indptr[i], A.indptr[i + 1]
        indices[lo:hi] = A.indices[lo:hi][::-1]
        data[lo:hi] = A.data[lo:hi][::-1]
    unsorted = sp.csr_array((data, indices, A.indptr.copy()), shape=A.shape)
    unsorted.has_canonical_format = False
    before = unsorted.indices.copy()
    csr = as_csr(unsorted)
    np.testing.assert_array_equal(unsorted.indices, before)  # the caller's arrays untouched
    assert not np.shares_memory(csr.indices, unsorted.indices)
    np.testing.assert_array_equal(csr.indices, A.indices)
    np.testing.assert_array_equal(csr.data, A.data)
    x, info = clcg.cg(unsorted, B64, rtol=1e-12)
    assert info == 0
    np.testing.assert_allclose(x, X_TRUE, atol=1e-8)


def test_nan_is_found_where_finite_values_sum_to_infinity():
    from clcg._inputs import as_csr
    huge = sp.csr_array(np.diag([1e308, 1e308, 1.0]))  # the sum overflows: no entry is refused
    assert as_csr(huge).nnz == 3
    with pytest.raises(ValueError, match=r"\(2, 2\)"):
        as_csr(sp.csr_array(np.diag([1e308, 1e308, np.nan])))


@pytest.mark.parametrize("threads", ["1", "3"])
def test_the_first_nan_or_inf_is_named_on_any_number_of_threads(monkeypatch, threads):
    from clcg import _clcg
    from clcg._inputs import as_csr
    monkeypatch.setenv("CLCG_THREADS", threads)
    values = np.ones(3_500_001)  # over three ranges of the 1M-value grain
    assert _clcg.first_non_finite(values) == -1
    values[[2_900_000, 1_700_003]] = [np.nan, np.inf]  # the later range's NaN must not win
    assert _clcg.first_non_finite(values) == 1_700_003
    assert _clcg.first_non_finite(np.empty(0)) == -1
    A = sp.csr_array(sp.diags([np.arange(1.0, 1_500_001.0)], [0]))
    A.data[1_200_000] = -np.inf
    with pytest.raises(ValueError, match=r"NaN or Inf entry at \(1200000, 1200000\)"):
        as_csr(A)


def test_symmetry_is_refused_alike_on_the_device_and_on_the_host():
    A = sp.lil_array(A64)
    A[3, 5] = A[3, 5] + 0.5
    A = sp.csr_array(A)
    messages = []
    for precision in ("double", "float"):  # double: checked on the device; float: on the host
        with pytest.raises(ValueError, match="not symmetric") as raised:
            clcg.Solver(A, precision=precision)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "a[3,5]" in messages[0] and "0.5" in messages[0]
    clcg.Solver(A, check_symmetry=False)  # on request it is not checked at all
