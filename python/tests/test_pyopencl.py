"""pyopencl interop: a Solver on the caller's queue solves pyopencl vectors in place.

The proof that x makes no host round trip: b and x live in buffers made with
CL_MEM_HOST_NO_ACCESS, which OpenCL forbids the host to read or write (PoCL and NVIDIA refuse
clEnqueueRead/WriteBuffer on them with CL_INVALID_OPERATION, checked first below); the solve
still succeeds, and its x, copied on the device to a readable buffer, is the host path's x bit
for bit."""
import numpy as np
import pytest

import clcg
from conftest import poisson2d, random_spd

cl = pytest.importorskip("pyopencl", reason="pyopencl is not installed (scripts/test installs it from PyPI)")
cl_array = pytest.importorskip("pyopencl.array")


@pytest.fixture(scope="module")
def queue():
    """A pyopencl queue on the device clcg picks by default (CLCG_DEVICE; PoCL in CI)."""
    name = clcg._clcg.default_device()["name"]
    for platform in cl.get_platforms():
        for device in platform.get_devices():
            if device.name == name:
                return cl.CommandQueue(cl.Context([device]))
    pytest.fail(f"pyopencl does not list clcg's device {name!r}")


def no_host_access(queue, n, dtype, init=None):
    """A pyopencl array whose buffer the host may not read or write."""
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.HOST_NO_ACCESS
    buffer = cl.Buffer(queue.context, flags, max(n, 1) * np.dtype(dtype).itemsize)
    array = cl_array.Array(queue, (n,), dtype, data=buffer)
    if init is not None:  # through a readable staging array and a device-side copy
        cl.enqueue_copy(queue, buffer, cl_array.to_device(queue, init.astype(dtype)).data)
    return array


def to_host(array):
    """Copies a (possibly host-inaccessible) device vector to a readable one on the device, then reads it."""
    readable = cl_array.empty(array.queue, array.shape, array.dtype)
    cl.enqueue_copy(array.queue, readable.data, array.base_data, byte_count=array.nbytes, src_offset=array.offset)
    return readable.get()


def test_the_device_refuses_host_access_to_such_buffers(queue):
    hidden = no_host_access(queue, 8, np.float64)
    with pytest.raises(cl.LogicError):
        cl.enqueue_copy(queue, np.zeros(8), hidden.data).wait()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_b_and_x_never_leave_the_device(queue, dtype):
    A = poisson2d(23).astype(dtype)  # n = 529: not a multiple of any work-group size
    n = A.shape[0]
    b_host = (A @ np.random.default_rng(3).standard_normal(n)).astype(dtype)
    precision = "float" if dtype == np.float32 else "double"
    solver = clcg.Solver(A, precond="jacobi", precision=precision, queue=queue)
    b = no_host_access(queue, n, dtype, b_host)
    x = no_host_access(queue, n, dtype)
    result = solver.solve(b, rtol=1e-6, out=x)
    assert result.x is x and result.converged
    on_host = solver.solve(b_host, rtol=1e-6)  # the same solver through host memory
    assert result.iterations == on_host.iterations
    np.testing.assert_array_equal(to_host(x), on_host.x)
    # the recursive residual met 1e-6; the true one may drift by rounding (float32: ~1e-7 * cond)
    x64, A64, b64 = to_host(x).astype(np.float64), A.astype(np.float64), b_host.astype(np.float64)
    assert np.linalg.norm(b64 - A64 @ x64) <= (2e-6 if dtype == np.float64 else 1e-4) * np.linalg.norm(b64)


def test_cg_returns_a_pyopencl_x_on_b_s_queue(queue):
    A = random_spd(301, seed=11)
    b_host = np.random.default_rng(4).standard_normal(301)
    x, info = clcg.cg(A, cl_array.to_device(queue, b_host), rtol=1e-10)
    assert info == 0 and isinstance(x, cl_array.Array) and x.context == queue.context
    x_host, info_host = clcg.cg(A, b_host, rtol=1e-10)  # clcg's own context on the same device
    np.testing.assert_array_equal(x.get(), x_host)


def test_x0_may_be_out_itself_or_a_host_vector(queue):
    A = poisson2d(17)
    n = A.shape[0]
    x_true = np.linspace(-1, 1, n)
    solver = clcg.Solver(A, precond="none", queue=queue)
    b = cl_array.to_device(queue, A @ x_true)
    warm = cl_array.to_device(queue, x_true)
    result = solver.solve(b, x0=warm, out=warm, rtol=1e-8)  # in place, from the answer: no step needed
    assert result.x is warm and result.iterations == 0
    cold = solver.solve(b, rtol=1e-8)
    from_host_guess = solver.solve(b, x0=np.zeros(n), rtol=1e-8)
    assert from_host_guess.iterations == cold.iterations
    np.testing.assert_array_equal(from_host_guess.x.get(), cold.x.get())


def test_a_slice_at_an_offset_is_solved_and_the_zero_b_gives_zero(queue):
    A = poisson2d(9)
    n = A.shape[0]
    long_b = cl_array.to_device(queue, np.concatenate([np.full(5, 7.0), A @ np.ones(n)]))
    solver = clcg.Solver(A, queue=queue)
    result = solver.solve(long_b[5:], rtol=1e-12)
    np.testing.assert_allclose(result.x.get(), np.ones(n), rtol=1e-9)
    zero = solver.solve(cl_array.zeros(queue, n, np.float64))
    assert zero.converged and zero.iterations == 0 and not zero.x.get().any()


def test_the_callback_sees_each_iterate_as_numpy(queue):
    A = poisson2d(8)
    seen = []
    solver = clcg.Solver(A, precond="none", variant="textbook", queue=queue)
    result = solver.solve(cl_array.to_device(queue, np.ones(64)), rtol=1e-8, callback=seen.append)
    assert len(seen) == result.iterations and isinstance(seen[-1], np.ndarray)
    np.testing.assert_array_equal(seen[-1], result.x.get())


def test_bad_device_vectors_are_refused_by_name(queue):
    A = poisson2d(6)
    solver = clcg.Solver(A, queue=queue)
    b = cl_array.to_device(queue, np.ones(36))
    with pytest.raises(ValueError, match="queue=b.queue"):
        clcg.Solver(A).solve(b)  # made on clcg's own context
    with pytest.raises(TypeError, match="dtype float32"):
        solver.solve(b.astype(np.float32))
    with pytest.raises(ValueError, match="b has shape \\(35,\\)"):
        solver.solve(b[:35])
    with pytest.raises(ValueError, match="out starts at an offset"):
        solver.solve(b, out=cl_array.empty(queue, 40, np.float64)[4:])
    with pytest.raises(ValueError, match="NaN or Inf"):
        solver.solve(cl_array.to_device(queue, np.full(36, np.nan)))
    with pytest.raises(TypeError, match="out must be a pyopencl array"):
        solver.solve(b, out=np.zeros(36))
    other = cl.CommandQueue(cl.Context(queue.context.devices))
    with pytest.raises(ValueError, match="another OpenCL context"):
        solver.solve(cl_array.to_device(other, np.ones(36)))
    with pytest.raises(ValueError, match="not both"):
        clcg.Solver(A, queue=queue, context=queue.context)
    with pytest.raises(ValueError, match="not both"):
        clcg.Solver(A, queue=queue, device="cpu")
    with pytest.raises(TypeError, match="pyopencl.CommandQueue"):
        clcg.Solver(A, queue="gpu")


def test_out_of_order_queues_are_refused(queue):
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    try:
        ooo = cl.CommandQueue(queue.context, properties=props)
    except cl.Error:
        pytest.skip("this device has no out-of-order queues")
    with pytest.raises(ValueError, match="in-order"):
        clcg.Solver(poisson2d(4), queue=ooo)


def test_a_context_gets_its_own_queue(queue):
    solver = clcg.Solver(poisson2d(5), context=queue.context)
    assert solver.queue.context == queue.context
    x = solver.solve(cl_array.to_device(solver.queue, np.ones(25)), rtol=1e-12).x
    np.testing.assert_allclose(poisson2d(5) @ x.get(), np.ones(25), rtol=1e-10)


@pytest.mark.parametrize("n", [0, 1, 1000, 4099])
def test_reduce_over_device_arrays_matches_numpy(queue, n):
    rng = np.random.default_rng(n)
    x_host, y_host = rng.standard_normal(n + 3), rng.standard_normal(n + 3)
    x = cl_array.to_device(queue, x_host)[3:]  # at an offset
    y = cl_array.to_device(queue, y_host)[3:]
    assert clcg.reduce(x, op="sum") == pytest.approx(float(np.sum(x_host[3:], dtype=np.longdouble)), abs=1e-12 * max(n, 1))
    assert clcg.reduce(x, y, op="dot") == pytest.approx(float(np.dot(x_host[3:], y_host[3:])), abs=1e-12 * max(n, 1))
    if n:
        assert clcg.reduce(x, op="argmax") == int(np.argmax(x_host[3:]))
        x32 = x.astype(np.float32)
        assert clcg.reduce(x32, op="max") == float(np.max(x_host[3:].astype(np.float32)))
    with pytest.raises(TypeError, match="y must be one too"):
        clcg.reduce(x, y_host[3:], op="dot")
