"""Checks and conversions of what users pass: any scipy.sparse matrix or array (csr, csc, coo,
...; spmatrix or sparray), a dense 2-D array, float32/float64 (integers as float64), int32/int64
indices, any strides. Errors name the problem: TypeError for the wrong kind of thing, ValueError
for the wrong values or sizes."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import _clcg

_INT32_MAX = np.iinfo(np.int32).max


def precision_of(A) -> str:
    """'float' for float32 matrices, else 'double' (SciPy's cg keeps float32 in float32)."""
    return "float" if getattr(A, "dtype", None) == np.float32 else "double"


def _refuse_operator(A):
    try:
        from scipy.sparse.linalg import LinearOperator
    except ImportError:  # pragma: no cover
        return
    if isinstance(A, LinearOperator):
        raise TypeError("A is a LinearOperator: clcg needs the matrix itself (it uploads A to the device); "
                        "pass a scipy.sparse matrix")


def as_csr(A, *, check_symmetry=True):
    """A as a canonical CSR (sorted, duplicates summed) with int32 indices and float64 values.
    A CSR that already is one is taken as it is: its arrays are used in place, never copied."""
    _refuse_operator(A)
    if sp.issparse(A):
        csr = A.tocsr()  # the same object for a CSR; a new one for any other format
        if not csr.has_canonical_format:  # SciPy's flag: one pass, cached on the matrix
            csr = csr.copy() if csr is A else csr  # never sort or sum the caller's arrays in place
            csr.sum_duplicates()  # also sorts the columns of each row
    elif isinstance(A, np.ndarray) or hasattr(A, "__array__"):
        dense = np.asarray(A)
        if dense.ndim != 2:
            raise ValueError(f"A must be a 2-D matrix, got an array of shape {dense.shape}")
        _check_dtype(dense.dtype, "A")
        csr = sp.csr_matrix(dense)
    else:
        raise TypeError(f"A must be a scipy.sparse matrix or a 2-D array, got {type(A).__name__}")
    _check_dtype(csr.dtype, "A")
    rows, cols = csr.shape
    if rows != cols:
        raise ValueError(f"A must be square, got {rows} x {cols}")
    if rows > _INT32_MAX or csr.nnz > _INT32_MAX:
        raise ValueError(f"A has {rows} rows and {csr.nnz} nonzeros; clcg's CSR indices are 32-bit "
                         f"(at most {_INT32_MAX} of each)")
    # Converted only where they are not already int32 / float64 and contiguous.
    data = np.ascontiguousarray(csr.data, dtype=np.float64)
    bad = _clcg.first_non_finite(data)  # one pass on every host core
    if bad >= 0:
        row = int(np.searchsorted(csr.indptr, bad, side="right") - 1)
        raise ValueError(f"A has a NaN or Inf entry at ({row}, {int(csr.indices[bad])})")
    out = sp.csr_matrix((data, np.ascontiguousarray(csr.indices, dtype=np.int32),
                         np.ascontiguousarray(csr.indptr, dtype=np.int32)), shape=csr.shape, copy=False)
    out.has_canonical_format = True  # checked or made above
    if check_symmetry:
        _check_symmetric(out)
    return out


def _check_dtype(dtype, name):
    if np.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} is complex ({dtype}); clcg solves real symmetric systems")
    if dtype.kind not in "fiub":
        raise TypeError(f"{name} has dtype {dtype}; clcg needs real numbers")


def _check_symmetric(csr):
    """The rule cg-solve applies, on the host: max |a_ij - a_ji| <= 1e-12 max |a_ij|."""
    if csr.nnz == 0:
        return
    diff = abs(csr - csr.T).tocoo()
    largest = float(np.max(np.abs(csr.data)))
    if diff.nnz:
        k = int(np.argmax(diff.data))
        refuse_if_asymmetric(float(diff.data[k]), largest, int(diff.row[k]), int(diff.col[k]))


def refuse_if_asymmetric(mismatch, largest, i, j, relative_tolerance=1e-12):
    """ValueError naming the largest |a_ij - a_ji| (at row i, column j) when it is above the
    tolerance: for the host check above and the device's (Solver.symmetry)."""
    if mismatch > relative_tolerance * largest:
        raise ValueError(f"A is not symmetric: |a[{i},{j}] - a[{j},{i}]| = {mismatch:.3g} "
                         f"(largest entry {largest:.3g}); pass check_symmetry=False to solve it anyway")


def as_vector(v, n, dtype, name):
    """(v as a contiguous vector of n elements of dtype, its 2-norm): shape (n,) or (n, 1),
    finite, real."""
    if hasattr(v, "toarray"):  # a sparse vector
        v = v.toarray()
    a = np.asarray(v)
    _check_dtype(a.dtype, name)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name} has shape {a.shape} but A is {n} x {n}: {name} needs {n} elements")
    a = np.ascontiguousarray(a, dtype=dtype)
    norm = float(np.linalg.norm(a))  # one BLAS pass (scaled: no overflow); the search only on failure
    if not np.isfinite(norm):
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            raise ValueError(f"{name} has a NaN or Inf at index {int(bad[0])}")
    return a, norm
