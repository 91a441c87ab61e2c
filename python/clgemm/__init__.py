"""clgemm: portable, autotuned OpenCL GEMM from Python.

    gemm(a, b, c=None, alpha=1, beta=0, trans_a=False, trans_b=False, out=None)

computes C = alpha * op(A) * op(B) + beta * C on NumPy arrays and anything NumPy reads in place
(the buffer protocol, __array_interface__), through the library's host API on
clgemm_create_default's device, returning the array written (out when given: c is then only
read), or on pyopencl.array.Array objects (on
the arrays' queue, no copies; waits for the arrays' events and returns the call's
pyopencl.Event, which is also added to c.events). trans_* may be False/True or 'N', 'T', 'C'
('C': conjugate transpose, complex types only). Row-major (C-ordered) and column-major
(Fortran-ordered) arrays, and slices of either, are used in place; other layouts are copied.

8-bit types (NumPy arrays): np.int8 A and B give an np.int32 C (exact, wrapping modulo 2^32;
alpha and beta integers). FP8: A and B of ml_dtypes' float8_e4m3fn / float8_e5m2 when
ml_dtypes is installed, or np.uint8 arrays of the 8-bit codes with dtype="e4m3" or "e5m2";
C is np.float32 (the default), np.float16 or ml_dtypes.bfloat16, and scale_a= / scale_b= are
the per-tensor scales (folded into alpha). to_fp8 / from_fp8 convert host data (saturating).

    tune(precision="s", shapes=None, budget_s=60, quick=False, ...)

runs the autotuner on the default device and stores the results in the tuning database."""
import atexit
import ctypes
import operator
import threading

import numpy as np

from . import _lib
from ._lib import COL_MAJOR, ROW_MAJOR

__version__ = "0.1.0"
__all__ = ["gemm", "tune", "Error", "types", "to_fp8", "from_fp8"]


class Error(RuntimeError):
    """A clgemm call failed; .status is the clgemm_status (an OpenCL error code if negative
    and above -1000)."""

    def __init__(self, status, what):
        super().__init__("%s: %s (status %d)" % (what, _lib.message(status), status))
        self.status = status


_TYPES = {np.dtype(np.float32): "s", np.dtype(np.float64): "d", np.dtype(np.complex64): "c",
          np.dtype(np.complex128): "z", np.dtype(np.float16): "h", np.dtype(np.int8): "i8"}
# C's dtype where it is not A's.
_C_DTYPE = {"i8": np.dtype(np.int32)}

# FP8: the formats by name, ml_dtypes' dtypes for them (if installed), and C's dtypes.
_FP8 = {"e4m3": _lib.E4M3, "e5m2": _lib.E5M2}
_FP8_DTYPES = {}
_FP8_C = {np.dtype(np.float32): _lib.SINGLE, np.dtype(np.float16): _lib.HALF}
try:
    import ml_dtypes
    _FP8_DTYPES = {np.dtype(ml_dtypes.float8_e4m3fn): "e4m3",
                   np.dtype(ml_dtypes.float8_e5m2): "e5m2"}
    _FP8_C[np.dtype(ml_dtypes.bfloat16)] = _lib.BFLOAT16
except ImportError:
    pass


def types():
    """The NumPy dtypes this library build supports ('h': float16 on device arrays only)."""
    return [str(dt) for dt, letter in _TYPES.items() if _lib.GEMM[letter][0] is not None]


_lock = threading.Lock()
_default = None
_handles = {}  # pyopencl context pointer -> handle created on one of its queues


def _check(status, what):
    if status != 0:
        raise Error(status, what)


def _default_handle():
    global _default
    with _lock:
        if _default is None:
            h = _lib.c_handle()
            _check(_lib.create_default(ctypes.byref(h)), "clgemm_create_default")
            _default = h
        return _default


def _handle_for_queue(queue):
    key = queue.context.int_ptr
    with _lock:
        if key not in _handles:
            h = _lib.c_handle()
            _check(_lib.create(ctypes.byref(h), ctypes.c_void_p(queue.int_ptr)), "clgemm_create")
            _handles[key] = h
        return _handles[key]


@atexit.register
def _release():
    global _default
    with _lock:
        for h in list(_handles.values()) + ([_default] if _default else []):
            _lib.destroy(h)
        _handles.clear()
        _default = None


def _layout(shape, strides, itemsize):
    """(layout, ld) in which memory with these strides holds the matrix itself, or None."""
    rows, cols = shape
    s0, s1 = strides

    def ld_ok(stride, need):
        return stride > 0 and stride % itemsize == 0 and stride // itemsize >= need

    if (cols <= 1 or s1 == itemsize) and (rows <= 1 or ld_ok(s0, cols)):
        return ROW_MAJOR, (s0 // itemsize if rows > 1 else max(cols, 1))
    if (rows <= 1 or s0 == itemsize) and (cols <= 1 or ld_ok(s1, rows)):
        return COL_MAJOR, (s1 // itemsize if cols > 1 else max(rows, 1))
    return None


def _trans_code(t, name, complex_type):
    code = {False: "N", True: "T", "N": "N", "n": "N", "T": "T", "t": "T", "C": "C", "c": "C"}
    if t not in code:
        raise ValueError("%s must be False, True, 'N', 'T' or 'C'" % name)
    t = code[t]
    if t == "C" and not complex_type:
        t = "T"  # as in BLAS: the conjugate of a real matrix is itself
    return t


_CODES = {"N": _lib.NO_TRANS, "T": _lib.TRANS, "C": _lib.CONJ_TRANS}
_FLIP = {"N": "T", "T": "N"}


def _operand(shape, strides, itemsize, layout, t):
    """How to pass an operand stored with these strides to a call in `layout`: (trans, ld), or
    None when it must be copied. Memory holding X in the other layout holds X^T in this one,
    so the transpose flag flips (impossible for 'C', which would need a conjugate alone)."""
    if 0 in shape:  # nothing is read: any layout, the smallest valid ld
        return t, max(shape[1] if layout == ROW_MAJOR else shape[0], 1)
    own = _layout(shape, strides, itemsize)
    if own is None:
        return None
    if own[0] == layout:
        return t, own[1]
    if t == "C":
        return None
    return _FLIP[t], own[1]


def _scalar(letter, x):
    scalar = _lib.GEMM[letter][2]
    if letter in "cz":
        x = complex(x)
        return scalar(x.real, x.imag)
    if letter == "i8":  # INT8 takes int32 alpha and beta, never a rounded float
        if x != int(x) or not -2**31 <= int(x) < 2**31:
            raise ValueError("INT8 alpha and beta are int32 values, not %r" % (x,))
        return scalar(int(x))
    return scalar(x)


def _shapes(a, b, ta, tb):
    m, k = a.shape if ta == "N" else a.shape[::-1]
    k2, n = b.shape if tb == "N" else b.shape[::-1]
    if k != k2:
        raise ValueError("inner dimensions differ: op(a) is %dx%d (k = %d) but op(b) is %dx%d "
                         "(k = %d); op(a) needs as many columns as op(b) has rows"
                         % (m, k, k, k2, n, k2))
    return m, n, k


def _fp8_name(fmt):
    if fmt not in _FP8:
        raise ValueError("FP8 format must be 'e4m3' or 'e5m2', not %r" % (fmt,))
    return _FP8[fmt]


def to_fp8(x, fmt):
    """The FP8 codes (np.uint8, same shape) of x (converted to float32 first), rounded to
    nearest even and saturated to the largest finite value (infinities too); NaN stays NaN."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    codes = np.empty(x.shape, dtype=np.uint8)
    _check(_lib.fp8_from_float(_fp8_name(fmt), x.ctypes.data, codes.ctypes.data, x.size),
           "clgemm_fp8_from_float")
    return codes


def from_fp8(codes, fmt):
    """The exact float32 values of FP8 codes (np.uint8 or an ml_dtypes FP8 array)."""
    codes = np.ascontiguousarray(codes)
    if codes.itemsize != 1:
        raise TypeError("FP8 codes are one byte each, not %s" % codes.dtype)
    values = np.empty(codes.shape, dtype=np.float32)
    _check(_lib.fp8_to_float(_fp8_name(fmt), codes.ctypes.data, values.ctypes.data, codes.size),
           "clgemm_fp8_to_float")
    return values


def gemm(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, out=None, dtype=None,
         scale_a=1.0, scale_b=1.0):
    """C = alpha op(a) op(b) + beta c. a, b: NumPy arrays or anything NumPy reads without a copy
    of its own making (the buffer protocol, __array_interface__), or pyopencl arrays. The result
    goes to out when given (c is then only read, and left as it was), else into c, else into a
    new array; the array written is returned (pyopencl: the call's Event). np.int8 a and b give
    an np.int32 C (exact, modulo 2^32; integer alpha and beta). FP8 a and b: ml_dtypes arrays,
    or np.uint8 codes with dtype="e4m3" / "e5m2"; C float32 (default), float16 or ml_dtypes
    bfloat16; scale_a and scale_b are the per-tensor scales, folded into alpha (NumPy only)."""
    for name, x in (("alpha", alpha), ("beta", beta)):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, complex, np.number)):
            raise TypeError("%s must be a number, not %s" % (name, type(x).__name__))
    fmt = dtype
    if fmt is None and hasattr(a, "dtype"):
        fmt = _FP8_DTYPES.get(np.dtype(a.dtype))
    if fmt is not None:
        _fp8_name(fmt)
        alpha = float(alpha) * float(scale_a) * float(scale_b)
    elif scale_a != 1 or scale_b != 1:
        raise ValueError("scale_a and scale_b are for FP8 inputs")
    try:
        import pyopencl.array as cl_array
        device = any(isinstance(x, cl_array.Array) for x in (a, b, c, out))
    except ImportError:
        device = False
    if out is not None and c is not None and out is not c and device:
        raise ValueError("out= with pyopencl arrays must be c itself (or c left out)")
    if device and fmt is not None:
        raise TypeError("FP8 GEMM takes NumPy arrays (host data), not pyopencl arrays")
    if device:
        return _gemm_device(a, b, out if out is not None else c, alpha, beta, trans_a, trans_b)
    return _gemm_host(a, b, c, alpha, beta, trans_a, trans_b, out, fmt)


def _writable(x, name):
    """x as a NumPy array on its own memory (x itself for an ndarray), which must be writable."""
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except Exception as e:
            raise TypeError("%s must be an array (buffer protocol or __array_interface__): %s"
                            % (name, e)) from None
        if arr.dtype == object or not (hasattr(x, "__array_interface__") or
                                       hasattr(x, "__array__") or _has_buffer(x)):
            raise TypeError("%s must be an array, not %s" % (name, type(x).__name__))
    if not arr.flags.writeable:
        raise ValueError("%s is read-only" % name)
    return arr


def _has_buffer(x):
    try:
        memoryview(x)
        return True
    except TypeError:
        return False


def _readable(x, name):
    if isinstance(x, np.ndarray):
        return x
    try:
        arr = np.asarray(x)
    except Exception as e:
        raise TypeError("%s must be an array: %s" % (name, e)) from None
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise TypeError("%s must be a numeric array, not %s" % (name, type(x).__name__))
    return arr


def _letter(dtype, host):
    letter = _TYPES.get(np.dtype(dtype))
    if letter is None or _lib.GEMM[letter][0] is None or (host and _lib.GEMM[letter][1] is None):
        raise TypeError("clgemm: no GEMM for %s here (supported: %s)" % (dtype, ", ".join(types())))
    return letter


def _dtypes(*arrays):
    return ", ".join(str(x.dtype) for x in arrays if x is not None)


def _gemm_host(a, b, c, alpha, beta, trans_a, trans_b, out=None, fmt=None):
    a, b = _readable(a, "a"), _readable(b, "b")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("a and b must be 2-D (a is %d-D, b %d-D)" % (a.ndim, b.ndim))
    # With out= the result goes there; another c is then only read (copied in once every
    # argument has passed its checks).
    source = c if out is not None and c is not None and out is not c and beta != 0 else None
    if out is not None and c is None and beta != 0:
        raise ValueError("beta != 0 needs c (out= only receives the result)")
    if out is not None:
        c = out
    user_c = c
    if c is not None:
        c = _writable(c, "out" if out is not None else "c")
    if fmt is not None:  # FP8 codes: np.uint8, or ml_dtypes' arrays of that format
        for name, x in (("a", a), ("b", b)):
            if x.dtype != np.uint8 and _FP8_DTYPES.get(x.dtype) != fmt:
                raise TypeError("%s must hold %s codes (np.uint8 or ml_dtypes), not %s"
                                % (name, fmt, x.dtype))
        a, b = a.view(np.uint8), b.view(np.uint8)
        letter, c_dtype = None, np.dtype(np.float32) if c is None else c.dtype
        if c_dtype not in _FP8_C:
            raise TypeError("FP8 C must be float32, float16 or ml_dtypes.bfloat16, not %s"
                            % c_dtype)
    else:
        letter = _letter(a.dtype, host=True)
        c_dtype = _C_DTYPE.get(letter, a.dtype)
        if a.dtype != b.dtype or (c is not None and c.dtype != c_dtype):
            raise TypeError("a and b must have one dtype, and c %s (given: %s)"
                            % (c_dtype, _dtypes(a, b, c)))
    complex_type = letter in ("c", "z")
    ta = _trans_code(trans_a, "trans_a", complex_type)
    tb = _trans_code(trans_b, "trans_b", complex_type)
    m, n, k = _shapes(a, b, ta, tb)
    if c is None:
        if beta != 0:
            raise ValueError("beta != 0 needs c")
        c = np.empty((m, n), dtype=c_dtype)
    if c.ndim != 2 or c.shape != (m, n):
        raise ValueError("c must be %dx%d, not %s" % (m, n, "x".join(map(str, c.shape))))
    # A and B are read only after C is written (c copied into out, then the product): each
    # that shares memory with the output is copied before anything is written.
    a = a.copy() if np.shares_memory(a, c) else a
    b = b.copy() if np.shares_memory(b, c) else b
    if source is not None:
        src = _readable(source, "c")
        if src.shape != c.shape:
            raise ValueError("out and c must have one shape (%s, %s)" % (c.shape, src.shape))
        if src.dtype != c.dtype:
            raise TypeError("out and c must have one dtype (%s, %s)" % (c.dtype, src.dtype))
        c[...] = src  # out = c, then computed in place
    if m == 0 or n == 0:
        return c if user_c is None else user_c
    # C in place when its layout allows it, else a row-major copy that is written back.
    out = c if _layout(c.shape, c.strides, c.itemsize) else np.ascontiguousarray(c)
    layout, ldc = _layout(out.shape, out.strides, out.itemsize)
    args = []
    for x, t in ((a, ta), (b, tb)):
        how = _operand(x.shape, x.strides, x.itemsize, layout, t)
        if how is None:
            x = np.ascontiguousarray(x) if layout == ROW_MAJOR else np.asfortranarray(x)
            how = (t, _layout(x.shape, x.strides, x.itemsize)[1])
        args.append((x, how))
    (a, (ta2, lda)), (b, (tb2, ldb)) = args
    if fmt is not None:
        al, be = ctypes.c_float(alpha), ctypes.c_float(beta)
        st = _lib.gemm_ex_host(_default_handle(), layout, _CODES[ta2], _CODES[tb2], m, n, k,
                               ctypes.byref(al), a.ctypes.data, lda, b.ctypes.data, ldb,
                               ctypes.byref(be), out.ctypes.data, ldc, _FP8[fmt],
                               _FP8_C[c.dtype], 0)
        _check(st, "clgemm_gemm_ex_host (%s)" % fmt)
    else:
        host = _lib.GEMM[letter][1]
        st = host(_default_handle(), layout, _CODES[ta2], _CODES[tb2], m, n, k,
                  _scalar(letter, alpha), a.ctypes.data, lda, b.ctypes.data, ldb,
                  _scalar(letter, beta), out.ctypes.data, ldc)
        _check(st, "clgemm_%sgemm_host" % letter)
    if out is not c:
        c[...] = out
    return c if user_c is None else user_c


def _gemm_device(a, b, c, alpha, beta, trans_a, trans_b):
    import pyopencl as cl
    import pyopencl.array as cl_array
    for name, x in (("a", a), ("b", b), ("c", c)):
        if not isinstance(x, cl_array.Array):
            raise TypeError("%s must be a pyopencl.array.Array like the others (c is needed: "
                            "the call returns its event)" % name)
        if x.ndim != 2:
            raise ValueError("%s must be 2-D" % name)
    letter = _letter(a.dtype, host=False)
    if a.dtype != b.dtype or c.dtype != _C_DTYPE.get(letter, a.dtype):
        raise TypeError("a and b must have one dtype, and c %s (given: %s)"
                        % (_C_DTYPE.get(letter, a.dtype), _dtypes(a, b, c)))
    if a.context.int_ptr != c.context.int_ptr or b.context.int_ptr != c.context.int_ptr:
        raise ValueError("a, b and c must belong to one context")
    complex_type = letter in "cz"
    ta = _trans_code(trans_a, "trans_a", complex_type)
    tb = _trans_code(trans_b, "trans_b", complex_type)
    m, n, k = _shapes(a, b, ta, tb)
    if c.shape != (m, n):
        raise ValueError("c must be %dx%d (op(a) op(b)'s shape), not %s"
                         % (m, n, "x".join(str(d) for d in c.shape)))
    lc = _layout(c.shape, c.strides, c.dtype.itemsize)
    if lc is None:
        raise ValueError("c must have rows or columns contiguous")
    layout, ldc = lc
    passes = []
    for name, x, t in (("a", a, ta), ("b", b, tb)):
        how = _operand(x.shape, x.strides, x.dtype.itemsize, layout, t)
        if how is None:
            raise ValueError("%s: layout not usable with c's (make it contiguous)" % name)
        passes.append(how)
    for name, x in (("a", a), ("b", b), ("c", c)):
        if x.offset % x.dtype.itemsize:
            raise ValueError("%s's offset is not a whole number of elements" % name)
    queue = c.queue or a.queue
    handle = _handle_for_queue(queue)
    waits = [e for x in (a, b, c) for e in x.events]
    wait = (ctypes.c_void_p * max(len(waits), 1))(*[e.int_ptr for e in waits])
    event = ctypes.c_void_p()
    buf = _lib.GEMM[letter][0]

    def mem(x):
        return ctypes.c_void_p(x.base_data.int_ptr) if x.size else None

    st = buf(handle, layout, _CODES[passes[0][0]], _CODES[passes[1][0]], m, n, k,
             _scalar(letter, alpha), mem(a), a.offset // a.dtype.itemsize, passes[0][1], mem(b),
             b.offset // b.dtype.itemsize, passes[1][1], _scalar(letter, beta), mem(c),
             c.offset // c.dtype.itemsize, ldc, ctypes.c_void_p(queue.int_ptr), len(waits),
             wait if waits else None, ctypes.byref(event))
    _check(st, "clgemm_%sgemm" % letter)
    if not event.value:
        return None
    ev = cl.Event.from_int_ptr(event.value, retain=False)
    c.add_event(ev)
    return ev


_TUNE_TYPES = {"s": 0, "d": 1, "c": 2, "z": 3, "h": 4, "bf16": 5, "i8": 6, "e4m3": 8, "e5m2": 9}
_TRANS = {"N": _lib.NO_TRANS, "T": _lib.TRANS, "C": _lib.CONJ_TRANS}


def _size_arg(x, name):
    """x as an integer that size_t holds: ctypes would silently keep only its low 64 bits, so
    2**64 + 8 would tune (and save) 8, and -1 would become the largest size."""
    try:
        v = operator.index(x)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (name, type(x).__name__)) from None
    if not 0 <= v < 2 ** (8 * ctypes.sizeof(_lib.c_size)):
        raise ValueError("%s must be a non-negative integer that size_t holds, not %d" % (name, v))
    return v


def tune(precision="s", shapes=None, budget_s=60.0, quick=False, max_evals=0, seed=0,
         save=True, path=None, trans="NN", wide_c=False, batch=1):
    """Tunes `shapes` ((m, n, k) tuples; None: the device's defaults) on the default device
    within budget_s seconds and, if save, merges the results into the tuning database at
    path (None: the default one). precision is the type of A and B (s d c z h bf16 i8 e4m3
    e5m2; C of i8 is int32, of e4m3 / e5m2 FP32), trans the transposes of the column-major
    calls timed ("NN", "NT", ...; C: conjugate, complex only), wide_c asks for FP32 C with
    h / bf16 and BF16 C with e4m3 / e5m2, batch > 1 times strided-batched calls of that
    many matrices (stored for the batch's class). Returns one dict a shape."""
    h = _default_handle()
    prec = _TUNE_TYPES[precision]
    if shapes is None:
        count = _lib.tune_default_shapes(h, int(quick), None, 0)
        arr = (_lib.TuneShape * count)()
        _lib.tune_default_shapes(h, int(quick), arr, count)
    else:
        shapes = [tuple(_size_arg(v, "a shape's m, n and k") for v in s) for s in shapes]
        arr = (_lib.TuneShape * len(shapes))(*[_lib.TuneShape(*s) for s in shapes])
    opts = _lib.TuneOptions()
    _lib.tune_options_init(ctypes.byref(opts))
    opts.precision, opts.shapes, opts.num_shapes = prec, arr, len(arr)
    opts.budget_s, opts.quick, opts.seed = budget_s, int(quick), seed
    opts.max_evals = _size_arg(max_evals, "max_evals")
    if len(trans) != 2 or any(t not in _TRANS for t in trans):
        raise ValueError("trans takes two of N, T, C, not %r" % (trans,))
    opts.trans_a, opts.trans_b, opts.wide_c = _TRANS[trans[0]], _TRANS[trans[1]], int(wide_c)
    opts.batch = _size_arg(batch, "batch")
    results = (_lib.TuneResult * len(arr))()
    _check(_lib.tune(h, ctypes.byref(opts), results), "clgemm_tune")
    if save:
        _check(_lib.tune_save(h, path.encode() if path else None, results, len(arr)),
               "clgemm_tune_save")
    out = []
    for r in results:
        cfg = _lib.config_params(r.config)
        name = _lib.family_name(r.config.family)
        out.append({"shape": (r.shape.m, r.shape.n, r.shape.k), "status": r.status,
                    "complete": bool(r.complete), "family": name.decode() if name else None,
                    "params": cfg, "gflops": r.gflops, "default_gflops": r.default_gflops,
                    "evaluated": r.evaluated, "failed": r.failed, "wrong": r.wrong,
                    "batch": r.batch})
    return out
