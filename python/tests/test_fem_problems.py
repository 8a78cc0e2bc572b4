"""The finite-element problems of scripts/fem_problems.py (issue 35) are what they claim to be.

Elasticity: the free body's stiffness (no clamping) maps every rigid body mode built from the
written coordinates to ~0 (||K r|| / (||K|| ||r||) at rounding level) and has exactly that many
zero eigenvalues; this holds only if the dofs are interleaved node by node in the coordinates'
order, which is what `cg-solve --coordinates X.mtx --block-size d` assumes. Every problem:
exactly symmetric, SPD (a dense Cholesky at ~1000 rows), rows as the resolution says and near
the requested count, coordinates of the right shape with the clamped nodes gone, deterministic,
and written files that read back to the same matrix. Small sizes: a few seconds in all."""
import json

import numpy as np
import pytest
import scipy.io
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as sla

NAMES = ["elasticity3d", "elasticity2d", "beam2d", "jumps3d", "layers2d", "aniso2d", "p2tets", "p1unstructured"]
ELASTICITY = {"elasticity3d": 3, "elasticity2d": 2, "beam2d": 2}


def test_the_problem_names_are_the_issues(fem_problems):
    assert list(fem_problems.PROBLEMS) == NAMES


@pytest.mark.parametrize("name", list(ELASTICITY))
def test_rigid_body_modes_are_the_free_bodys_null_space(fem_problems, name):
    k, coords, d, info = fem_problems.generate(name, rows=300, free=True)
    assert d == ELASTICITY[name] and coords.shape == (k.shape[0] // d, d)
    modes = fem_problems.rigid_body_modes(coords)
    assert modes.shape == (k.shape[0], 3 if d == 2 else 6)
    norm_k = sla.norm(k)
    for j in range(modes.shape[1]):
        r = modes[:, j]
        assert np.linalg.norm(k @ r) / (norm_k * np.linalg.norm(r)) < 1e-13, (name, j)
    # and nothing else: exactly d(d+1)/2 zero eigenvalues, the next one well away from rounding
    eigenvalues = scipy.linalg.eigvalsh(k.toarray())
    zeros = modes.shape[1]
    assert np.all(np.abs(eigenvalues[:zeros]) < 1e-12 * eigenvalues[-1])
    assert eigenvalues[zeros] > 1e-6 * eigenvalues[-1]


@pytest.mark.parametrize("name", NAMES)
def test_spd_symmetric_and_sized(fem_problems, name):
    a, coords, block_size, info = fem_problems.generate(name, rows=1000)
    problem = fem_problems.PROBLEMS[name]
    n = a.shape[0]
    assert a.shape == (n, n) and info["rows"] == n
    if problem.exact_rows:
        assert n == problem.rows(info["resolution"])
    else:  # p1unstructured: the Delaunay mesh's edges are counted, not foreseen
        assert abs(n - problem.rows(info["resolution"])) <= 0.03 * n
    assert info["nnz"] == a.nnz and info["block_size"] == block_size
    assert 500 <= n <= 2000, n  # the nearest resolution to 1000 rows
    assert (a != a.T).nnz == 0  # exactly: one triangle is what the file holds
    assert np.all(a.diagonal() > 0)
    np.linalg.cholesky(a.toarray())  # SPD, or it raises
    if name in ELASTICITY:
        d = ELASTICITY[name]
        assert block_size == d and coords.shape == (n // d, d) and n % d == 0
        assert np.all(coords[:, 0] > 0.0)  # the clamped face x = 0 is eliminated whole
        # the clamped matrix is the free one restricted to the kept nodes' interleaved dofs
        k, free_coords, _, _ = fem_problems.generate(name, rows=1000, free=True)
        kept = np.flatnonzero(free_coords[:, 0] > 0.0)
        np.testing.assert_array_equal(free_coords[kept], coords)
        dofs = (d * kept[:, None] + np.arange(d)).ravel()
        assert abs(k[dofs][:, dofs] - a).max() == 0.0
    else:
        assert block_size == 1 and coords is None


def test_rows_follow_the_request(fem_problems):
    for rows in (1e4, 2e5, 2e6):  # the resolution alone: nothing is assembled here
        for problem in fem_problems.PROBLEMS.values():
            got = problem.rows(fem_problems._resolution(problem, rows))
            assert abs(got - rows) <= 0.25 * rows, (problem.name, rows, got)


def test_deterministic(fem_problems):
    for name in ("jumps3d", "p1unstructured"):  # the seeded ones
        a1 = fem_problems.generate(name, rows=800)[0]
        a2 = fem_problems.generate(name, rows=800)[0]
        assert np.array_equal(a1.indptr, a2.indptr) and np.array_equal(a1.indices, a2.indices)
        assert np.array_equal(a1.data, a2.data)
        other = fem_problems.generate(name, rows=800, seed=1)[0]
        assert other.shape != a1.shape or (other != a1).nnz > 0  # the seed matters


def test_files_read_back(fem_problems, tmp_path):
    a, coords, d, info = fem_problems.generate("elasticity2d", rows=500)
    written = fem_problems.write(tmp_path, a, coords, info)
    back = sp.csr_array(scipy.io.mmread(tmp_path / "elasticity2d.mtx"))
    assert abs(back - a).max() == 0.0  # shortest round-trip decimals: the same doubles
    with open(tmp_path / "elasticity2d.mtx") as f:
        assert f.readline().split() == ["%%MatrixMarket", "matrix", "coordinate", "real", "symmetric"]
    np.testing.assert_array_equal(scipy.io.mmread(tmp_path / "elasticity2d.coords.mtx"), coords)
    meta = json.loads((tmp_path / "elasticity2d.json").read_text())
    assert meta["rows"] == a.shape[0] and meta["nnz"] == a.nnz and meta["block_size"] == 2
    assert meta == json.loads(json.dumps(written))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elasticity2d.coords.mtx", "elasticity2d.json", "elasticity2d.mtx"]


def test_bad_arguments(fem_problems):
    with pytest.raises(ValueError, match="unknown problem"):
        fem_problems.generate("poisson", rows=100)
    with pytest.raises(ValueError, match="rows"):
        fem_problems.generate("aniso2d", rows=0)
    with pytest.raises(ValueError, match="2\\^31"):
        fem_problems.generate("aniso2d", rows=1e12)
    with pytest.raises(ValueError, match="elasticity"):
        fem_problems.generate("aniso2d", rows=100, free=True)
    with pytest.raises(ValueError, match="coords"):
        fem_problems.rigid_body_modes(np.zeros((4, 4)))
    with pytest.raises(SystemExit) as exit_info:
        fem_problems.main(["--problem", "nope", "--out", "x"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        fem_problems.main(["--all", "--rows", "-3", "--out", "x"])
