"""Fixtures for the clcg Python tests (pytest, on whatever device CLCG_DEVICE selects; PoCL in CI)."""
import os
import pathlib
import sys

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("CLCG_SHARED_MATRICES", ROOT.parent / "shared" / "data" / "matrices"))


def poisson2d(m, dtype=np.float64):
    """The 5-point Laplacian on an m x m grid (SPD, n = m^2)."""
    t = sp.diags_array([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], offsets=[-1, 0, 1], dtype=dtype)
    eye = sp.eye_array(m, dtype=dtype)
    return (sp.kron(eye, t) + sp.kron(t, eye)).tocsr().astype(dtype)


def random_spd(n, seed, density=0.05):
    """A random sparse SPD matrix: B B^T + n I, fixed seed."""
    rng = np.random.default_rng(seed)
    b = sp.random_array((n, n), density=density, rng=rng)
    return (b @ b.T + n * sp.eye_array(n)).tocsr()


@pytest.fixture(scope="session")
def shared_matrices():
    if not SHARED.is_dir():
        pytest.skip(f"the shared SuiteSparse matrices are not at {SHARED} (set CLCG_SHARED_MATRICES)")
    return sorted(SHARED.glob("*.mtx"))


@pytest.fixture(scope="session")
def fem_problems():
    """scripts/fem_problems.py (issue 35's finite-element problems, scikit-fem from PyPI)."""
    pytest.importorskip("skfem", reason="scikit-fem (PyPI) assembles the FEM problems; scripts/test installs it")
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    import fem_problems
    return fem_problems
