#!/usr/bin/env python3
"""Finite-element test problems for clcg's AMG, generated at a requested size (issue 35).

Poisson grids are what smoothed aggregation is made for; engineers bring other matrices.
This module builds eight SPD systems that stress an AMG in the ways real ones do, from
libraries anyone can install from PyPI (scikit-fem for the assembly, pyamg's gallery for the
rotated anisotropy), seeded and deterministic, so every figure in docs/PERFORMANCE.md can be
re-made:

  elasticity3d     3D linear elasticity, Q1 hexahedra, cantilever box 4:1:1 clamped at x = 0,
                   E = 1, nu = 0.3: a block system (3 dofs a node) whose near null space is
                   the six rigid body modes; scalar AMG coarsens it badly.
  elasticity2d     2D linear elasticity (plane strain), Q1 quadrilaterals, unit square clamped
                   at x = 0, E = 1, nu = 0.3 (3 rigid body modes).
  beam2d           2D elasticity (plane strain) of a thin beam 10:1 clamped at x = 0,
                   nu = 0.45 (lambda / mu = 9): bending modes make it much worse than the square.
  jumps3d          3D diffusion -div(k grad u), Q1 hexahedra on the unit cube, k = 1 or 1e6 on
                   each of 8^3 subcubes (seeded random), u = 0 on the boundary.
  layers2d         2D diffusion, Q1 quadrilaterals on the unit square, 16 horizontal layers
                   alternating k = 1 and 1e6, u = 0 on the boundary.
  aniso2d          2D rotated anisotropic diffusion (epsilon = 1e-3, theta = pi/8): pyamg's
                   bilinear-FE stencil on a square grid (pyamg.gallery.diffusion_stencil_2d +
                   stencil_grid); strong connections do not follow the grid lines.
  p2tets           Poisson with quadratic (P2) tetrahedra on the unit cube (6 tetrahedra a
                   cube cell), u = 0 on the boundary: a higher-order operator with positive
                   off-diagonal entries.
  p1unstructured   Poisson with P1 tetrahedra on an unstructured mesh of the unit cube: the
                   Delaunay tetrahedralisation of a body-centred-cubic point set whose interior
                   points are moved at random by up to 15% of the spacing (node degrees 11-17,
                   no two patches alike), refined once (each tetrahedron into 8), u = 0 on
                   the boundary.

Dirichlet conditions are imposed by eliminating the constrained dofs, so each matrix stays
SPD. Elasticity matrices are ordered node by node (rows d*i .. d*i+d-1 are node i's x, y[, z]
components, scikit-fem's ElementVector numbering), the clamped nodes removed whole, and
`<name>.coords.mtx` holds the remaining nodes' coordinates in the same order, which is what
`cg-solve --coordinates X.mtx --block-size d` expects.

Command line:
    scripts/fem_problems.py --problem elasticity3d --rows 2e6 --out DIR
    scripts/fem_problems.py --all --rows 1e4 --out DIR [--jobs 16] [--seed 0]
writes DIR/<name>.mtx (coordinate real symmetric, the lower triangle, shortest round-trip
decimals), DIR/<name>.coords.mtx (array real, nodes x d; elasticity only) and DIR/<name>.json
(rows, nnz, block size, description, parameters, resolution, timings, peak memory).

From Python (tests put scripts/ on sys.path):
    import fem_problems
    A, coords, block_size, info = fem_problems.generate("beam2d", rows=1e4)
    B = fem_problems.rigid_body_modes(coords)          # (rows, 3 or 6), same dof order as A
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import math
import multiprocessing
import os
import pathlib
import resource
import sys
import time
from typing import Callable

import numpy as np
import scipy.sparse as sp

SEED = 0
# An off-diagonal entry this small next to its row's and column's diagonals is rounding left by
# quadrature where the exact sum is 0 (Q1 Laplacian face neighbours; on a uniform grid, many of
# Q1 elasticity's cross-component couplings, ~40% of its entries): it is dropped so that the
# stored pattern is the operator's, not the rounding's.
ROUNDOFF = 1e-13
# Elements assembled at once: bounds the memory of scikit-fem's per-element basis arrays
# (a vector Q1 hexahedron holds ~20 KB of them) and lets processes share the work.
CHUNK_BYTES = 256 << 20


@dataclasses.dataclass(frozen=True)
class Problem:
    """One family of matrices: `rows(m)` rows at resolution m, made by `build(m, seed, jobs, free)`."""
    name: str
    dimension: int
    block_size: int
    description: str
    parameters: dict
    min_resolution: int
    rows: Callable[[int], int]
    build: Callable[..., tuple]
    exact_rows: bool = True  # rows(m) is the count, not an estimate

    @property
    def elasticity(self) -> bool:
        return self.block_size > 1


# ----------------------------------------------------------------------------------------------
# Assembly: scikit-fem over element chunks, optionally in forked processes.

_ASSEMBLY = {}  # what the forked workers read: set before the pool starts, inherited by fork


def _assemble_chunk(bounds):
    """Assemble elements [lo, hi) of _ASSEMBLY's mesh; returns their COO triplets (summed)."""
    import skfem
    lo, hi = bounds
    job = _ASSEMBLY
    elements = np.arange(lo, hi, dtype=np.int64)
    basis = skfem.CellBasis(job["mesh"], job["element"], intorder=job["intorder"], elements=elements,
                            dofs=job["dofs"], disable_doflocs=True)
    extra = {}
    if job["kappa"] is not None:
        # a coefficient constant on each element, given at every quadrature point
        extra["kappa"] = np.repeat(job["kappa"][lo:hi, None], basis.X.shape[-1], axis=1)
    chunk = job["form"].assemble(basis, **extra).tocoo()
    return chunk.row.astype(np.int32), chunk.col.astype(np.int32), chunk.data


def _chunk_elements(mesh, element, intorder) -> int:
    import skfem
    probe = skfem.CellBasis(mesh, element, intorder=intorder, elements=np.array([0]), disable_doflocs=True)
    nqp = probe.X.shape[-1]
    dim = mesh.p.shape[0]
    ncomp = element.dim if isinstance(element, skfem.ElementVector) else 1
    per_element = probe.Nbfun * ncomp * (1 + dim) * nqp * 8 * 3  # values + gradients, ~3 copies
    return max(256, CHUNK_BYTES // per_element)


def assemble(mesh, element, form, intorder: int, kappa=None, jobs: int = 1) -> sp.csr_array:
    """The global matrix of `form` on `mesh` (scikit-fem), assembled chunk by chunk.

    kappa: optional per-element coefficient (the form reads it as w.kappa). jobs > 1 forks that
    many processes (each numpy operation is single-threaded; the chunks are independent).
    """
    import skfem
    dofs = skfem.assembly.Dofs(mesh, element)  # once, shared by every chunk
    n = dofs.N
    mesh.mapping  # cached on the mesh before any fork
    chunk = _chunk_elements(mesh, element, intorder)
    bounds = [(lo, min(lo + chunk, mesh.nelements)) for lo in range(0, mesh.nelements, chunk)]
    _ASSEMBLY.update(mesh=mesh, element=element, form=form, intorder=intorder, dofs=dofs,
                     kappa=None if kappa is None else np.asarray(kappa, dtype=np.float64))
    try:
        if jobs > 1 and len(bounds) > 1:
            context = multiprocessing.get_context("fork")
            with concurrent.futures.ProcessPoolExecutor(min(jobs, len(bounds)), mp_context=context) as pool:
                parts = list(pool.map(_assemble_chunk, bounds))
        else:
            parts = [_assemble_chunk(b) for b in bounds]
    finally:
        _ASSEMBLY.clear()
    rows = np.concatenate([p[0] for p in parts])
    cols = np.concatenate([p[1] for p in parts])
    data = np.concatenate([p[2] for p in parts])
    del parts
    a = sp.csr_array((data, (rows, cols)), shape=(n, n))  # sums the chunks' shared entries
    del rows, cols, data
    a.sum_duplicates()
    return a


def _tidy(a: sp.csr_array) -> tuple[sp.csr_array, int]:
    """Exactly symmetric (the lower triangle mirrored, as the file will hold it) without rounding
    entries; returns the matrix and how many stored entries were dropped as rounding."""
    a = sp.csr_array(a)
    a.sum_duplicates()
    diag = np.abs(a.diagonal())
    coo = sp.tril(a, format="coo")
    keep = (coo.row == coo.col) | (np.abs(coo.data) > ROUNDOFF * np.sqrt(diag[coo.row] * diag[coo.col]))
    dropped = int((~keep).sum())
    low = sp.coo_array((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=a.shape)
    del coo, keep
    strict = sp.tril(low, k=-1)
    full = (low + strict.T).tocsr()
    full.sort_indices()
    return full, 2 * dropped  # entries of the full matrix


def _restrict(a: sp.csr_array, keep: np.ndarray) -> sp.csr_array:
    """A[keep][:, keep]: the Dirichlet elimination (the kept dofs in their order)."""
    return sp.csr_array(a)[keep][:, keep].tocsr()


def _resolution(problem: Problem, rows: float) -> int:
    """The resolution whose row count is nearest `rows` (ties to the smaller)."""
    if not rows >= 1:
        raise ValueError(f"rows must be a positive number, got {rows}")
    if rows > 2**31 - 1:  # scikit-fem's and cg-solve's 32-bit indices
        raise ValueError(f"rows must be below 2^31, got {rows:g}")
    m = problem.min_resolution
    while problem.rows(m + 1) <= rows:
        m += 1
    if abs(problem.rows(m + 1) - rows) < abs(problem.rows(m) - rows):
        m += 1
    return m


# ----------------------------------------------------------------------------------------------
# Elasticity (Q1, plane strain in 2D): node-interleaved dofs, clamped nodes removed.

def _elasticity(dimension: int, lengths, cells, nu: float, youngs: float, jobs: int, free: bool):
    import skfem
    from skfem.models.elasticity import lame_parameters, linear_elasticity
    axes = [np.linspace(0.0, length, c + 1) for length, c in zip(lengths, cells)]
    if dimension == 3:
        mesh, element, intorder = skfem.MeshHex.init_tensor(*axes), skfem.ElementVector(skfem.ElementHex1()), 3
    else:
        mesh, element, intorder = skfem.MeshQuad.init_tensor(*axes), skfem.ElementVector(skfem.ElementQuad1()), 3
    # lame_parameters is the 3D relation; in 2D it gives plane strain (the harder case: lambda/mu
    # = 2 nu / (1 - 2 nu) grows towards incompressibility)
    a = assemble(mesh, element, linear_elasticity(*lame_parameters(youngs, nu)), intorder, jobs=jobs)
    # ElementVector numbers node i's components d*i .. d*i+d-1 (Dofs: nodal_dofs in Fortran order)
    coords = mesh.p.T.copy()
    if free:
        return a, coords
    clamped = np.isclose(coords[:, 0], 0.0)
    nodes = np.flatnonzero(~clamped)
    dofs = (dimension * nodes[:, None] + np.arange(dimension)).ravel()
    return _restrict(a, dofs), coords[nodes]


def _build_elasticity3d(m, seed, jobs, free):
    a, coords = _elasticity(3, (4.0, 1.0, 1.0), (4 * m, m, m), 0.3, 1.0, jobs, free)
    return a, coords, {"cells": [4 * m, m, m]}


def _build_elasticity2d(m, seed, jobs, free):
    a, coords = _elasticity(2, (1.0, 1.0), (m, m), 0.3, 1.0, jobs, free)
    return a, coords, {"cells": [m, m]}


def _build_beam2d(m, seed, jobs, free):
    a, coords = _elasticity(2, (10.0, 1.0), (10 * m, m), 0.45, 1.0, jobs, free)
    return a, coords, {"cells": [10 * m, m]}


# ----------------------------------------------------------------------------------------------
# Scalar diffusion.

def _diffusion_form():
    from skfem import BilinearForm
    from skfem.helpers import dot, grad

    @BilinearForm
    def diffusion(u, v, w):
        return w.kappa * dot(grad(u), grad(v)) if "kappa" in w else dot(grad(u), grad(v))
    return diffusion


def _interior(a, points):
    """Eliminate the dofs at `points` (d x dofs) on the unit cube's or square's surface
    (u = 0 there); the lattices put their boundary points at exactly 0 and 1."""
    return _restrict(a, np.flatnonzero(np.all((points > 0.0) & (points < 1.0), axis=0)))


def _build_jumps3d(m, seed, jobs, free):
    import skfem
    axis = np.linspace(0.0, 1.0, m + 1)
    mesh = skfem.MeshHex.init_tensor(axis, axis, axis)
    blocks = 8
    rng = np.random.default_rng(seed)
    high = rng.random((blocks, blocks, blocks)) < 0.5
    # each element takes its subcube's coefficient (by centroid; the interfaces follow element faces
    # when m is a multiple of 8, else they step)
    centre = mesh.p[:, mesh.t].mean(axis=1)
    ijk = np.minimum((centre * blocks).astype(np.int64), blocks - 1)
    kappa = np.where(high[ijk[0], ijk[1], ijk[2]], 1e6, 1.0)
    a = assemble(mesh, skfem.ElementHex1(), _diffusion_form(), 3, kappa=kappa, jobs=jobs)
    return _interior(a, mesh.p), None, {
        "cells": [m, m, m], "subcubes": blocks, "high_fraction": float(high.mean())}


def _build_layers2d(m, seed, jobs, free):
    import skfem
    axis = np.linspace(0.0, 1.0, m + 1)
    mesh = skfem.MeshQuad.init_tensor(axis, axis)
    layers = 16
    centre_y = mesh.p[1, mesh.t].mean(axis=0)
    kappa = np.where(np.minimum((centre_y * layers).astype(np.int64), layers - 1) % 2 == 1, 1e6, 1.0)
    a = assemble(mesh, skfem.ElementQuad1(), _diffusion_form(), 3, kappa=kappa, jobs=jobs)
    return _interior(a, mesh.p), None, {"cells": [m, m], "layers": layers}


def _build_aniso2d(m, seed, jobs, free):
    from pyamg.gallery import diffusion_stencil_2d, stencil_grid
    stencil = diffusion_stencil_2d(epsilon=1e-3, theta=math.pi / 8, type="FE")
    # stencil_grid leaves out the neighbours beyond the grid: u = 0 on a surrounding ring of nodes
    a = stencil_grid(stencil, (m, m), dtype=np.float64, format="csr")
    return a, None, {"grid": [m, m]}


def _build_p2tets(m, seed, jobs, free):
    import skfem
    axis = np.linspace(0.0, 1.0, m + 1)
    mesh = skfem.MeshTet.init_tensor(axis, axis, axis)
    element = skfem.ElementTetP2()
    a = assemble(mesh, element, _diffusion_form(), 2, jobs=jobs)
    # P2 dofs: the vertices, then one per edge in mesh.edges' order (scikit-fem's Dofs); a dof is on
    # the boundary where its point (vertex, edge midpoint) is on the cube's surface
    return _interior(a, np.hstack([mesh.p, mesh.p[:, mesh.edges].mean(axis=1)])), None, {"cells": [m, m, m], "tetrahedra": int(mesh.nelements)}


def unstructured_cube(m: int, seed: int = SEED, jitter: float = 0.15, refine: int = 1):
    """Points and tetrahedra of p1unstructured's mesh (scikit-fem MeshTet); returns (mesh, flat).

    A body-centred-cubic lattice (cube corners of spacing 1/m and cube centres) has a unique
    Delaunay tetrahedralisation of well-shaped tetrahedra; moving each interior point by up to
    `jitter` of the spacing makes the connectivity irregular (node degrees 11-17) while keeping
    the shapes of a mesh generator's output. Boundary points stay on the lattice (so the boundary
    is the cube's); the `flat` tetrahedra qhull leaves on the faces are dropped (zero volume,
    nothing to integrate). Then `refine` uniform refinements (each tetrahedron into 8): qhull's
    time grows faster than the points (2M points took 458 s on the GPU machine's host), so the
    Delaunay step stays near 1/8 of the rows.
    """
    import scipy.spatial
    import skfem
    corners = np.linspace(0.0, 1.0, m + 1)
    centres = (np.arange(m) + 0.5) / m
    points = np.vstack([np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
                        for g in (corners, centres)])
    # lattice order, z fastest: neighbours stay close in memory
    points = points[np.lexsort((points[:, 2], points[:, 1], points[:, 0]))]
    inner = np.all((points > 0.0) & (points < 1.0), axis=1)
    rng = np.random.default_rng(seed)
    points[inner] += rng.uniform(-jitter / m, jitter / m, size=(int(inner.sum()), 3))
    tets = scipy.spatial.Delaunay(points).simplices
    e1, e2, e3 = (points[tets[:, k]] - points[tets[:, 0]] for k in (1, 2, 3))
    volume = np.einsum("ij,ij->i", e1, np.cross(e2, e3)) / 6.0
    del e1, e2, e3
    flat = np.abs(volume) <= 1e-10 / m**3
    mesh = skfem.MeshTet(points.T.copy(), tets[~flat].T.astype(np.int32).copy())
    if refine:
        mesh = mesh.refined(refine)  # new points at edge midpoints: on a face where their edge is
    return mesh, int(flat.sum())


def tet_quality(mesh) -> np.ndarray:
    """6 sqrt(2) |V| / (longest edge)^3 per tetrahedron: 1 for the regular one, 0 for a flat one."""
    p, t = mesh.p.T, mesh.t.T
    v = p[t]
    e1, e2, e3 = v[:, 1] - v[:, 0], v[:, 2] - v[:, 0], v[:, 3] - v[:, 0]
    volume = np.abs(np.einsum("ij,ij->i", e1, np.cross(e2, e3))) / 6.0
    longest = np.max([np.linalg.norm(v[:, i] - v[:, j], axis=1)
                      for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))], axis=0)
    return 6.0 * math.sqrt(2.0) * volume / longest**3


def _build_p1unstructured(m, seed, jobs, free):
    import skfem
    mesh, flat = unstructured_cube(m, seed)
    a = assemble(mesh, skfem.ElementTetP1(), _diffusion_form(), 1, jobs=jobs)
    quality = tet_quality(mesh)
    return _interior(a, mesh.p), None, {
        "bcc_cells": m, "jitter": 0.15, "refinements": 1, "tetrahedra": int(mesh.nelements), "flat_dropped": flat,
        "quality_min": float(quality.min()), "quality_median": float(np.median(quality))}


PROBLEMS: dict[str, Problem] = {p.name: p for p in [
    Problem("elasticity3d", 3, 3, "3D linear elasticity, Q1 hexahedra, cantilever box 4:1:1 clamped at x=0",
            {"E": 1.0, "nu": 0.3, "box": [4, 1, 1], "clamped": "x=0"}, 1,
            lambda m: 3 * 4 * m * (m + 1) ** 2, _build_elasticity3d),
    Problem("elasticity2d", 2, 2, "2D linear elasticity (plane strain), Q1 quadrilaterals, unit square clamped at x=0",
            {"E": 1.0, "nu": 0.3, "box": [1, 1], "clamped": "x=0"}, 1,
            lambda m: 2 * m * (m + 1), _build_elasticity2d),
    Problem("beam2d", 2, 2, "2D linear elasticity (plane strain), Q1 quadrilaterals, thin beam 10:1 clamped at x=0",
            {"E": 1.0, "nu": 0.45, "box": [10, 1], "clamped": "x=0"}, 1,
            lambda m: 2 * 10 * m * (m + 1), _build_beam2d),
    Problem("jumps3d", 3, 1, "3D diffusion, Q1 hexahedra on the unit cube, k = 1 or 1e6 on 8^3 random subcubes, u=0 on the boundary",
            {"k": [1.0, 1e6], "subcubes": 8, "pattern": "random, p=0.5"}, 2,
            lambda m: (m - 1) ** 3, _build_jumps3d),
    Problem("layers2d", 2, 1, "2D diffusion, Q1 quadrilaterals on the unit square, 16 horizontal layers alternating k = 1 and 1e6, u=0 on the boundary",
            {"k": [1.0, 1e6], "layers": 16}, 2,
            lambda m: (m - 1) ** 2, _build_layers2d),
    Problem("aniso2d", 2, 1, "2D rotated anisotropic diffusion, bilinear FE stencil (pyamg gallery), epsilon 1e-3, theta pi/8",
            {"epsilon": 1e-3, "theta": "pi/8", "stencil": "pyamg diffusion_stencil_2d FE"}, 2,
            lambda m: m * m, _build_aniso2d),
    Problem("p2tets", 3, 1, "3D Poisson, P2 tetrahedra (6 a cube cell) on the unit cube, u=0 on the boundary",
            {"element": "P2", "tetrahedra_per_cell": 6}, 1,
            lambda m: (2 * m - 1) ** 3, _build_p2tets),
    Problem("p1unstructured", 3, 1, "3D Poisson, P1 tetrahedra on an unstructured mesh of the unit cube (Delaunay of jittered BCC points, refined once), u=0 on the boundary",
            {"element": "P1", "points": "body-centred cubic, interior moved up to 0.15 spacing",
             "mesher": "scipy.spatial.Delaunay (qhull), then one uniform refinement (scikit-fem)"}, 2,
            # fitted (m = 3..26, within 1%): 16 m^3 interior nodes less a boundary layer
            lambda m: round(16 * m**3 - 10.5 * m**2), _build_p1unstructured, exact_rows=False),
]}


def _peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM) in MB."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _reset_peak_rss() -> None:
    """Start the peak over (Linux: 5 > clear_refs), so each problem reports its own."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def generate(name: str, rows: float, seed: int = SEED, jobs: int = 1, free: bool = False):
    """Build problem `name` with about `rows` rows; returns (A, coords, block_size, info).

    A: scipy CSR, symmetric (exactly), SPD. coords: (nodes, d) float array for elasticity
    (node i's dofs are rows d*i .. d*i+d-1), None otherwise. free=True (elasticity only) skips
    the clamping: the free body's stiffness, whose null space is the rigid body modes.
    """
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; known: {', '.join(PROBLEMS)}")
    problem = PROBLEMS[name]
    if free and not problem.elasticity:
        raise ValueError(f"free=True is for the elasticity problems, not {name}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    m = _resolution(problem, rows)
    _reset_peak_rss()
    start = time.perf_counter()
    a, coords, extra = problem.build(m, seed, jobs, free)
    a, dropped = _tidy(a)
    seconds = time.perf_counter() - start
    if coords is not None and coords.shape[0] * problem.block_size != a.shape[0]:
        raise AssertionError(f"{name}: {coords.shape[0]} nodes x {problem.block_size} != {a.shape[0]} rows")
    info = {
        "name": name,
        "description": problem.description,
        "rows": int(a.shape[0]),
        "nnz": int(a.nnz),
        "stored_entries": int((a.nnz + a.shape[0]) // 2),
        "block_size": problem.block_size,
        "dimension": problem.dimension,
        "nodes": None if coords is None else int(coords.shape[0]),
        "free_body": free,
        "requested_rows": float(rows),
        "resolution": m,
        "parameters": {**problem.parameters, **extra},
        "roundoff_entries_dropped": dropped,
        "seed": seed,
        "generation_seconds": round(seconds, 3),
        "jobs": jobs,
        # this process's alone: with jobs > 1 each worker adds its chunks' arrays (~CHUNK_BYTES)
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "versions": _versions(),
    }
    return a, coords, problem.block_size, info


def _versions() -> dict:
    import scipy
    out = {"numpy": np.__version__, "scipy": scipy.__version__}
    for module in ("skfem", "pyamg", "fast_matrix_market"):
        try:
            out[module] = __import__(module).__version__
        except (ImportError, AttributeError):
            pass
    return out


def rigid_body_modes(coords: np.ndarray) -> np.ndarray:
    """The rigid body modes of a body with these node coordinates, node-interleaved dofs.

    coords: (nodes, d), d = 2 or 3. Returns (nodes*d, 3) in 2D (x and y translations, the
    rotation (-y, x)) or (nodes*d, 6) in 3D (translations, then (-y, x, 0), (0, -z, y),
    (z, 0, -x)); row d*i + c is node i's component c, as in the generated matrices.
    """
    coords = np.asarray(coords, dtype=np.float64)
    if coords.ndim != 2 or coords.shape[1] not in (2, 3):
        raise ValueError(f"coords must be (nodes, 2) or (nodes, 3), got shape {coords.shape}")
    n, d = coords.shape
    if d == 2:
        x, y = coords.T
        modes = np.zeros((n, 2, 3))
        modes[:, 0, 0] = 1.0
        modes[:, 1, 1] = 1.0
        modes[:, 0, 2], modes[:, 1, 2] = -y, x
    else:
        x, y, z = coords.T
        modes = np.zeros((n, 3, 6))
        modes[:, 0, 0] = modes[:, 1, 1] = modes[:, 2, 2] = 1.0
        modes[:, 0, 3], modes[:, 1, 3] = -y, x
        modes[:, 1, 4], modes[:, 2, 4] = -z, y
        modes[:, 2, 5], modes[:, 0, 5] = -x, z
    return modes.reshape(n * d, -1)


# ----------------------------------------------------------------------------------------------
# Files.

def _mmwrite(path: pathlib.Path, matrix, symmetric: bool, comment: str) -> None:
    """Matrix Market, written to a temporary beside `path` and renamed (whole or not at all)."""
    tmp = path.with_name(path.name + ".part")
    try:
        try:
            import fast_matrix_market as fmm
            fmm.mmwrite(str(tmp), matrix, comment=comment, symmetry="symmetric" if symmetric else "general")
        except ImportError:  # (a file object: scipy adds .mtx to a name without it)
            import scipy.io
            with open(tmp, "wb") as f:
                scipy.io.mmwrite(f, matrix, comment=comment, symmetry="symmetric" if symmetric else "general")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write(out_dir, a, coords, info) -> dict:
    """Write <name>.mtx (the lower triangle, symmetric), <name>.coords.mtx, <name>.json."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = info["name"]
    start = time.perf_counter()
    comment = f" clcg scripts/fem_problems.py: {info['description']}; rows {info['rows']}, seed {info['seed']}"
    # only one triangle goes in a symmetric file (the writers store what they are given)
    _mmwrite(out / f"{name}.mtx", sp.tril(a, format="coo"), True, comment)
    files = [f"{name}.mtx"]
    if coords is not None:
        _mmwrite(out / f"{name}.coords.mtx", np.ascontiguousarray(coords), False,
                 f" node coordinates of {name}.mtx: node i's dofs are rows {coords.shape[1]}*i..{coords.shape[1]}*i+{coords.shape[1] - 1}")
        files.append(f"{name}.coords.mtx")
    info = dict(info, write_seconds=round(time.perf_counter() - start, 3), files=files,
                peak_rss_mb=round(_peak_rss_mb(), 1))
    tmp = out / f"{name}.json.part"
    tmp.write_text(json.dumps(info, indent=1) + "\n")
    os.replace(tmp, out / f"{name}.json")
    return info


def _rows_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value >= 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"rows must be at least 1, got {text}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Problems:\n" + "\n".join(f"  {p.name:15s} {p.description}" for p in PROBLEMS.values()))
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--problem", action="append", help="a problem name, or several separated by commas; repeatable")
    which.add_argument("--all", action="store_true", help="every problem")
    which.add_argument("--list", action="store_true", help="list the problems and exit")
    parser.add_argument("--rows", type=_rows_arg, default=1e4, help="about this many rows (default 1e4)")
    parser.add_argument("--out", type=pathlib.Path, help="output folder (made if missing)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1),
                        help="processes assembling element chunks (default: the cores, at most 16)")
    args = parser.parse_args(argv)
    if args.list:
        for p in PROBLEMS.values():
            print(f"{p.name:15s} {p.description}")
        return 0
    if args.out is None:
        parser.error("--out is required")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    names = list(PROBLEMS) if args.all else [n for item in args.problem for n in item.split(",") if n]
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown:
        parser.error(f"unknown problem(s) {', '.join(unknown)}; known: {', '.join(PROBLEMS)}")
    for name in names:
        a, coords, _, info = generate(name, args.rows, seed=args.seed, jobs=args.jobs)
        info = write(args.out, a, coords, info)
        del a, coords
        print(f"{name:15s} rows {info['rows']:>9d}  nnz {info['nnz']:>10d}  generate {info['generation_seconds']:7.2f} s"
              f"  write {info['write_seconds']:6.2f} s  peak {info['peak_rss_mb']:8.0f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
