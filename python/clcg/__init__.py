"""clcg: conjugate gradient on an OpenCL device, from Python.

    import clcg
    x, info = clcg.cg(A, b, rtol=1e-8)                 # scipy.sparse.linalg.cg's signature
    solver = clcg.Solver(A, precond="auto")            # set up once ...
    result = solver.solve(b)                           # ... solve many times
    clcg.reduce(x, op="sum"); clcg.reduce(x, y, op="dot")
    clcg.devices()
    solver = clcg.Solver(A, queue=q); x_cl = solver.solve(b_cl).x   # pyopencl arrays stay on the device

docs/USAGE.md ("Python") describes the package; this module checks and converts the inputs
and gives them SciPy's shape; clcg._clcg runs them on the device.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _clcg
from . import _device_arrays as dev
from ._inputs import as_csr, as_vector, precision_of, refuse_if_asymmetric

__all__ = ["cg", "Solver", "SolveResult", "devices", "reduce", "DeviceError", "PRECONDITIONERS", "__version__"]
__version__ = _clcg.__version__

DeviceError = _clcg.DeviceError
DeviceError.__doc__ = "An OpenCL or device error (no device, out of device memory, a failed build)."

PRECONDITIONERS = ("auto", "jacobi", "chebyshev", "ic0", "amg", "cholesky", "none")
VARIANTS = ("auto", "fused", "textbook", "pipelined", "single")


def devices() -> list[dict]:
    """Every OpenCL device clcg sees: index (for device=), name, platform, type, fp64, memory."""
    return _clcg.devices()


def _device_args(device) -> tuple[str, str]:
    """device=None (CLCG_DEVICE / CLCG_PLATFORM, else auto), 'gpu', 'cpu', an index from devices(),
    or a (device, platform substring) pair."""
    if device is None:
        return "", ""
    if isinstance(device, tuple) and len(device) == 2:
        return str(device[0]), str(device[1])
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        return str(int(device)), ""
    if isinstance(device, str):
        return device, ""
    raise TypeError(f"device must be None, 'auto', 'gpu', 'cpu', an index or (device, platform), got {device!r}")


def _choice(name: str, value, allowed) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


@dataclass
class SolveResult:
    """One right-hand side's solve. status: 'converged', 'max_iterations', 'breakdown', 'non_finite'.
    info: SciPy's code (0 converged, > 0 the iterations done without converging, < 0 breakdown).
    residual: the true ||b - A x|| / ||b|| (recomputed on the device, in double where it has fp64);
    history: the recursive relative residual after each step. solve_seconds: the C++ solve
    (upload of b, CG, read-back of x), without the binding's checks."""

    x: object  # np.ndarray, or a pyopencl.array.Array when b was one
    status: str
    info: int
    iterations: int
    residual: float
    recursive_residual: float
    history: np.ndarray
    message: str
    solve_seconds: float
    setup_seconds: float
    converged: bool = field(init=False)

    def __post_init__(self):
        self.converged = self.status == "converged"


class Solver:
    """CG for one matrix, set up once on the device (A uploaded, the preconditioner set up, the
    kernels built), then .solve(b) any number of times.

    precond: 'auto' (the CLI's planner: a small matrix with a cheap factor is solved directly on the
        host), 'jacobi', 'chebyshev', 'ic0', 'amg', 'cholesky' (exact: a sparse factor on the host) or 'none'.
    variant: 'auto', 'fused', 'textbook', 'pipelined' or 'single' (docs/USAGE.md).
    precision: 'double' or 'float': what the device solves in.
    precond_precision: 'auto', 'float' or 'double': what Chebyshev, IC(0) and AMG apply in.
    device: None (CLCG_DEVICE / CLCG_PLATFORM, else the first GPU), 'gpu', 'cpu', an index
    from clcg.devices(), or (device, platform substring).
    check_symmetry: refuse a matrix that is not symmetric (relative 1e-12), as cg-solve does.
    near_nullspace: AMG's near-null space, an (n, k) array of k vectors A nearly annihilates
        (k = 1 .. 16), kept exactly by the coarse levels; coordinates: (nodes, d) node coordinates
        (d = 1 .. 3, node i's unknowns on rows d i .. d i + d - 1) from which the rigid body modes
        of elasticity are built; block_size: unknowns a node, aggregated together (default: d
        with coordinates, else 1; alone, one constant vector a component). They set up AMG:
        precond 'amg' or 'auto'.
    queue / context: a pyopencl CommandQueue (in-order) or Context to run on instead of device=;
    then b, x0 and out may be pyopencl arrays on that context, used in place on the device.

    A CSR with sorted rows, int32 indices and float64 values is read in place (no copy); keep it
    unchanged while the Solver lives (.update(A) for new values). setup_seconds: upload +
    preconditioner + kernels; upload_seconds: host-to-device copies so far (A, then b and x0 of
    each host solve).
    """

    def __init__(self, A, *, precond="auto", variant="auto", precision="double", precond_precision="auto",
                 device=None, check_symmetry=True, queue=None, context=None, near_nullspace=None, coordinates=None,
                 block_size=None):
        _choice("precond", precond, PRECONDITIONERS)
        _choice("variant", variant, VARIANTS)
        _choice("precision", precision, ("double", "float"))
        _choice("precond_precision", precond_precision, ("auto", "float", "double"))
        if precision == "float" and precond_precision == "double":
            raise ValueError("precond_precision='double' needs precision='double'")
        self.queue = dev.caller_queue(queue, context)
        self._check_symmetry = check_symmetry
        if self.queue is not None and device is not None:
            raise ValueError("pass device= or queue=/context=, not both (the queue names its device)")
        # In a double solve the device checks the symmetry of the uploaded matrix (no host pass).
        check_on_device = check_symmetry and precision == "double"
        csr = as_csr(A, check_symmetry=check_symmetry and not check_on_device)
        self.shape = csr.shape
        self.dtype = np.dtype(np.float32 if precision == "float" else np.float64)
        amg = _amg_near_nullspace(csr.shape[0], precond, near_nullspace, coordinates, block_size)
        self._native = _clcg.Solver(csr.indptr, csr.indices, csr.data, csr.shape[0], precond, variant, precision,
                                    precond_precision, *_device_args(device),
                                    0 if self.queue is None else self.queue.int_ptr, *amg)
        if check_on_device:
            refuse_if_asymmetric(*self._native.symmetry())
        self.setup_seconds = self._native.setup_seconds
        self.preconditioner = self._native.preconditioner
        self.preconditioner_precision = self._native.preconditioner_precision or None
        self.variant = self._native.variant
        self.device = self._native.device
        self._norm_a = None

    @property
    def upload_seconds(self):
        return self._native.upload_seconds

    @property
    def update_seconds(self):
        """Seconds the last .update(A) took (values uploaded, preconditioner refreshed)."""
        return self._native.update_seconds

    def update(self, A):
        """New values of A on the pattern the Solver was set up with (time stepping, Newton):
        the same shape, indptr and indices, new data; ValueError names the first difference.
        Only the values are uploaded; the preconditioner keeps what depends on the pattern (AMG
        its aggregates and its products' patterns, the direct method its analysis) and
        recomputes the rest, much faster than a new Solver(A). A is read in place from now on."""
        check_on_device = self._check_symmetry and self.dtype == np.float64
        csr = as_csr(A, check_symmetry=self._check_symmetry and not check_on_device)
        if csr.shape != self.shape:
            raise ValueError(f"update: A is {csr.shape[0]} x {csr.shape[1]}, the Solver's {self.shape[0]} x "
                             f"{self.shape[1]}: new values need the same pattern")
        self._native.update_values(csr.indptr, csr.indices, csr.data)  # ValueError: another pattern
        if check_on_device:
            refuse_if_asymmetric(*self._native.symmetry())
        self.preconditioner_precision = self._native.preconditioner_precision or None
        self._norm_a = None
        return self

    def solve(self, b, x0=None, *, rtol=1e-8, atol=0.0, maxiter=None, callback=None, out=None):
        """Solves A x = b to ||b - A x|| <= max(rtol ||b||, atol) (recursive residual), at most
        maxiter steps (default 10 n). b of shape (n,) gives a SolveResult; (n, k) a list of k,
        one per column, with A set up once. callback(xk) after each step copies x back each time
        (a numpy array). A pyopencl b (Solver made with queue=/context=) gives a pyopencl x: out,
        or a new array; x0 may be out itself (solved in place) or any vector."""
        n = self.shape[0]
        if dev.is_device_array(b) or out is not None:
            return self._solve_on_device(b, x0, out, rtol, atol, maxiter, callback)
        b_array = np.asarray(b) if not hasattr(b, "toarray") else b.toarray()
        if b_array.ndim == 2 and b_array.shape[1] != 1:
            x0_columns = None if x0 is None else np.asarray(x0)
            if x0_columns is not None and x0_columns.shape != b_array.shape:
                raise ValueError(f"x0 has shape {x0_columns.shape} but b has shape {b_array.shape}")
            return [self.solve(b_array[:, j], None if x0_columns is None else x0_columns[:, j], rtol=rtol, atol=atol,
                               maxiter=maxiter, callback=callback) for j in range(b_array.shape[1])]
        bv, norm_b = as_vector(b_array, n, self.dtype, "b")
        x0v = None if x0 is None else as_vector(x0, n, self.dtype, "x0")[0]
        tolerance, maxiter = self._limits(norm_b, rtol, atol, maxiter, callback)
        if norm_b == 0.0:  # SciPy: x = 0 solves b = 0 exactly
            return self._zero_result(np.zeros(n, dtype=self.dtype))
        return self._result(self._native.solve(bv, x0v, tolerance, maxiter, callback))

    def _solve_on_device(self, b, x0, out, rtol, atol, maxiter, callback):
        """b, out: pyopencl arrays on the solver's context; x0: a pyopencl or host vector."""
        if self.queue is None:
            raise ValueError("pyopencl arrays need a Solver made on their queue: clcg.Solver(A, queue=b.queue)")
        if not dev.is_device_array(b):
            raise TypeError(f"out= is a device result, so b must be a pyopencl array too, got {type(b).__name__}")
        n, context = self.shape[0], self._native.context_handle
        b = dev.checked_vector(b, n, self.dtype, "b", context)
        if out is None:
            x = dev.empty_vector(self.queue, n, self.dtype)
        elif not dev.is_device_array(out):
            raise TypeError(f"out must be a pyopencl array, got {type(out).__name__}")
        else:
            x = dev.checked_vector(out, n, self.dtype, "out", context, may_copy=False)
        if x0 is not None and x0 is not out:
            if dev.is_device_array(x0):
                x0 = dev.checked_vector(x0, n, self.dtype, "x0", context)
            else:
                x0 = as_vector(x0, n, self.dtype, "x0")[0]
            dev.copy_into(x, x0, self.queue)
        norm_b = dev.device_norm(b, self.queue)
        if not np.isfinite(norm_b):
            raise ValueError("b has a NaN or Inf (its norm on the device is not finite)")
        tolerance, maxiter = self._limits(norm_b, rtol, atol, maxiter, callback)
        if norm_b == 0.0:
            x.fill(0, queue=self.queue)
            x.finish()
            return self._zero_result(x)
        return self._result(self._native.solve_on_device(b.base_data.int_ptr, x.base_data.int_ptr, x0 is not None,
                                                         tolerance, maxiter, callback), x)

    def _limits(self, norm_b, rtol, atol, maxiter, callback):
        """(the relative tolerance, the step limit) after checking the arguments."""
        rtol, atol = float(rtol), float(atol)
        if not (rtol >= 0 and atol >= 0):
            raise ValueError(f"rtol and atol must be >= 0, got rtol={rtol}, atol={atol}")
        if maxiter is None:
            maxiter = 10 * self.shape[0]
        if int(maxiter) != maxiter or maxiter < 0:
            raise ValueError(f"maxiter must be a whole number >= 0, got {maxiter!r}")
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable: callback(xk)")
        return (max(rtol, atol / norm_b) if norm_b > 0 else rtol), int(maxiter)

    def _zero_result(self, zero):
        return SolveResult(zero, "converged", 0, 0, 0.0, 0.0, np.zeros(0), "b = 0: x = 0", 0.0, self.setup_seconds)

    def _result(self, native, x=None):
        status = native["status"]
        info = 0 if status == "converged" else (native["iterations"] if status == "max_iterations" else -1)
        return SolveResult(native["x"] if x is None else x, status, info, native["iterations"],
                           native["true_residual"], native["recursive_residual"], native["history"],
                           native["message"], native["host_seconds"], self.setup_seconds)


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None, check_symmetry=True,
       device=None, near_nullspace=None, coordinates=None, block_size=None):
    """scipy.sparse.linalg.cg on an OpenCL device: returns (x, info), info 0 converged, > 0 the
    iterations done without converging (maxiter), < 0 breakdown (A or M not positive definite,
    NaN/Inf). M: None (plain CG, as SciPy), or a preconditioner name: 'jacobi', 'chebyshev',
    'ic0', 'amg', 'cholesky', 'auto'. A LinearOperator or matrix as M is refused (it runs on the host).
    The device solves in A's precision (float32 stays float32, everything else float64).
    callback(xk) is called after each step as in SciPy; it copies x back from the device
    each time (and runs the textbook variant, whose x is current after every step).
    A pyopencl b runs on b.queue and returns x as a pyopencl array (nothing read back).
    near_nullspace, coordinates, block_size: AMG's near-null space (Solver says how); with one
    of them M defaults to 'amg'."""
    amg_given = near_nullspace is not None or coordinates is not None or block_size is not None
    if M is None:
        precond = "amg" if amg_given else "none"
    elif isinstance(M, str):
        precond = _choice("M", M, PRECONDITIONERS)
    else:
        raise TypeError(f"M must be None or a preconditioner name ({', '.join(PRECONDITIONERS)}); a "
                        f"{type(M).__name__} runs on the host and cannot be applied on the device")
    queue = None
    if dev.is_device_array(b):
        if b.queue is None:
            raise ValueError("b is a pyopencl array without a queue; give it one (b.with_queue(queue))")
        queue = b.queue
    solver = Solver(A, precond=precond, variant="textbook" if callback is not None else "auto",
                    precision=precision_of(A), device=device, check_symmetry=check_symmetry, queue=queue,
                    near_nullspace=near_nullspace, coordinates=coordinates, block_size=block_size)
    result = solver.solve(b, x0, rtol=rtol, atol=atol, maxiter=maxiter, callback=callback)
    if isinstance(result, list):
        raise ValueError("b must be a vector of shape (n,) or (n, 1)")
    return result.x, result.info


def _amg_near_nullspace(n, precond, near_nullspace, coordinates, block_size):
    """(B, X, block size) as the binding takes them: 2-D float64 arrays, empty where not given,
    and 0 for no block size. ValueError for shapes that do not fit A's n rows."""
    empty = np.zeros((0, 0))
    if near_nullspace is None and coordinates is None and block_size is None:
        return empty, empty, 0
    if precond not in ("amg", "auto"):
        raise ValueError(f"near_nullspace, coordinates and block_size set up AMG: precond must be 'amg' or 'auto', "
                         f"not {precond!r}")
    if near_nullspace is not None and coordinates is not None:
        raise ValueError("near_nullspace and coordinates both give the near-null space; give one")

    def matrix(value, name):
        a = np.asarray(value.toarray() if hasattr(value, "toarray") else value)
        if a.ndim == 1:
            a = a.reshape(-1, 1)
        if a.ndim != 2 or a.dtype.kind not in "fiub" or a.shape[1] == 0:
            raise ValueError(f"{name} must be a 2-D real array with at least one column, got shape {a.shape} "
                             f"of {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            raise ValueError(f"{name} is not finite at row {bad[0][0]}, column {bad[0][1]} ({a[tuple(bad[0])]})")
        return a

    b = x = empty
    if near_nullspace is not None:
        b = matrix(near_nullspace, "near_nullspace")
        if b.shape[0] != n:
            raise ValueError(f"near_nullspace has {b.shape[0]} rows but A has {n}")
    if coordinates is not None:
        x = matrix(coordinates, "coordinates")
        if x.shape[0] * x.shape[1] != n:
            raise ValueError(f"coordinates give {x.shape[0]} nodes x {x.shape[1]} unknowns = {x.shape[0] * x.shape[1]} "
                             f"rows but A has {n}")
        if block_size is not None and block_size != x.shape[1]:
            raise ValueError(f"block_size={block_size} but coordinates have {x.shape[1]} columns: a node's unknowns "
                             f"are its displacements")
    if block_size is not None and (int(block_size) != block_size or not 1 <= block_size <= 16 or n % block_size):
        raise ValueError(f"block_size must be a whole number from 1 to 16 dividing A's {n} rows, got {block_size!r}")
    return b, x, 0 if block_size is None else int(block_size)


def reduce(x, y=None, *, op="sum", device=None):
    """The reduction module over numpy arrays: op 'sum', 'sumsq', 'min', 'max', 'argmin',
    'argmax' of x, or 'dot' of x and y. float32 stays float32 on the device (partials finished
    in double on the host); other real types go as float64. Returns a float, or an int index for
    argmin/argmax (ties: the lowest index). pyopencl arrays (float32/float64) are reduced where
    they are, on x's queue: only the per-group partials come back."""
    ops = ("sum", "dot", "sumsq", "min", "max", "argmin", "argmax")
    _choice("op", op, ops)
    if (op == "dot") != (y is not None):
        raise ValueError("op='dot' takes x and y; the other ops take x only")
    if dev.is_device_array(x):
        if x.size == 0 and op in ("min", "max", "argmin", "argmax"):
            raise ValueError(f"{op} of an empty array")
        return dev.reduce_device_arrays(x, y, op)
    xv = _reduction_input(x, "x")
    yv = None
    if y is not None:
        yv = _reduction_input(y, "y")
        if yv.shape != xv.shape:
            raise ValueError(f"x has {xv.size} elements but y has {yv.size}")
        if yv.dtype != xv.dtype:
            xv, yv = xv.astype(np.float64), yv.astype(np.float64)
    if xv.size == 0 and op in ("min", "max", "argmin", "argmax"):
        raise ValueError(f"{op} of an empty array")
    return _clcg.reduce(xv, yv, op, *_device_args(device))


def _reduction_input(v, name):
    a = np.asarray(v)
    if np.iscomplexobj(a):
        raise TypeError(f"{name} is complex; clcg reduces real arrays")
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{name} has dtype {a.dtype}; clcg reduces real numbers")
    a = a.ravel()
    return np.ascontiguousarray(a, dtype=np.float32 if a.dtype == np.float32 else np.float64)
