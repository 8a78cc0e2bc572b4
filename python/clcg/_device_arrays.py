"""pyopencl interop: vectors that already live on the device stay there.

A Solver made with queue= (or context=) runs on the caller's own OpenCL context and queue;
pyopencl arrays given to it as b, x0 or out are used in place (their buffers are handed to the
C++ solver), so b never leaves the device and x is never read back. pyopencl is not a
dependency: nothing here imports it unless the caller passed pyopencl objects.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from . import _clcg


def is_device_array(v) -> bool:
    """A pyopencl.array.Array (pyopencl is imported whenever one exists)."""
    module = sys.modules.get("pyopencl.array")
    return module is not None and isinstance(v, module.Array)


def caller_queue(queue=None, context=None):
    """The caller's pyopencl queue (a new one on the first device of `context` when only that is
    given), or None when neither is given."""
    if queue is not None and context is not None:
        raise ValueError("pass queue= or context=, not both (a queue knows its context)")
    if queue is None and context is None:
        return None
    import pyopencl as cl

    if context is not None:
        if not isinstance(context, cl.Context):
            raise TypeError(f"context must be a pyopencl.Context, got {type(context).__name__}")
        return cl.CommandQueue(context)
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue must be a pyopencl.CommandQueue, got {type(queue).__name__}")
    return queue


def checked_vector(v, n, dtype, name, context_handle, *, may_copy=True):
    """v as a contiguous pyopencl array of n elements of dtype at offset 0 on the solver's context
    (a slice at an offset is copied on the device when may_copy); its pending events waited for."""
    if v.context.int_ptr != context_handle:
        raise ValueError(f"{name} is a pyopencl array on another OpenCL context than the solver's; "
                         "make the Solver with that array's queue (queue=)")
    if v.dtype != dtype:
        raise TypeError(f"{name} has dtype {v.dtype} but the solver works in {np.dtype(dtype)}; convert it "
                        f"on the device ({name}.astype(numpy.{np.dtype(dtype).name}))")
    if v.ndim == 2 and v.shape[1] == 1:
        v = v.reshape(v.shape[0])
    if v.shape != (n,):
        raise ValueError(f"{name} has shape {v.shape} but A is {n} x {n}: {name} needs {n} elements")
    if not v.flags.forc:
        raise ValueError(f"{name} is a strided pyopencl array; clcg needs contiguous device vectors")
    v.finish()
    if v.offset:
        if not may_copy:
            raise ValueError(f"{name} starts at an offset in its buffer; clcg writes x into a buffer from its start")
        v = v.copy()
    return v


def device_norm(v, queue) -> float:
    """||v||_2 on the device (the reduction module's sum of squares); only partials come back."""
    f32 = v.dtype == np.float32
    sumsq = _clcg.reduce_on_device(v.base_data.int_ptr, v.offset // v.dtype.itemsize, None, 0, v.size, f32,
                                   "sumsq", queue.int_ptr)
    return math.sqrt(sumsq) if math.isfinite(sumsq) else math.inf


def copy_into(dst, src, queue):
    """dst[:] = src: a device-to-device copy for a pyopencl src, an upload for a host array."""
    import pyopencl as cl

    if is_device_array(src):
        cl.enqueue_copy(queue, dst.base_data, src.base_data, byte_count=dst.nbytes, src_offset=src.offset,
                        dst_offset=dst.offset)
    else:
        dst.set(np.ascontiguousarray(src, dtype=dst.dtype), queue=queue)


def empty_vector(queue, n, dtype):
    import pyopencl.array as cl_array

    return cl_array.empty(queue, n, dtype)


def reduce_device_arrays(x, y, op):
    """clcg.reduce over pyopencl arrays, on x's queue; y (for 'dot') on the same context."""
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x has dtype {x.dtype}; clcg reduces float32 or float64 device arrays")
    if not x.flags.forc:
        raise ValueError("x is a strided pyopencl array; clcg reduces contiguous device vectors")
    y_handle, y_offset = None, 0
    if y is not None:
        if not is_device_array(y):
            raise TypeError("x is a pyopencl array, so y must be one too (on the same context)")
        if y.context.int_ptr != x.context.int_ptr:
            raise ValueError("x and y are on different OpenCL contexts")
        if y.dtype != x.dtype or y.size != x.size or not y.flags.forc:
            raise ValueError(f"y must be a contiguous {x.dtype} array of {x.size} elements like x")
        y.finish()
        y_handle, y_offset = y.base_data.int_ptr, y.offset // y.dtype.itemsize
    if x.queue is None:
        raise ValueError("x has no queue; give it one (x.with_queue(queue))")
    x.finish()
    return _clcg.reduce_on_device(x.base_data.int_ptr, x.offset // x.dtype.itemsize, y_handle, y_offset, x.size,
                                  x.dtype == np.float32, op, x.queue.int_ptr)
