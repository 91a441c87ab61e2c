"""test_clgemm.py: the Python package on PoCL: NumPy arrays through the host API and pyopencl
arrays on their own queue, in both layouts, slices, transposes, beta in place over NaN-free
and NaN-poisoned C, aliasing, bad input, the tuner, and the ctypes mirror of clgemm.h.
Results against a float64 (complex128) NumPy reference with a tolerance scaled by k."""
import ctypes
import os
import re

import numpy as np
import pytest

import clgemm
from clgemm import _lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Unit roundoff of each type (float16: its storage; the arithmetic is float32).
EPS = {np.float32: 6e-8, np.float64: 1.2e-16, np.complex64: 6e-8, np.complex128: 1.2e-16,
       np.float16: 4.9e-4}
COMPLEX = (np.complex64, np.complex128)


def rand(shape, dtype, rng, order="C"):
    x = rng.uniform(-1, 1, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, size=shape)
    x = x.astype(dtype)
    return np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)


def operands(m, n, k, ta, tb, dtype, rng, orders):
    """Random A, B (stored transposed where ta, tb say) and C for an m x n x k product, in the
    memory orders orders[0], orders[1], orders[2] ("C" or "F")."""
    a = rand((k, m) if ta else (m, k), dtype, rng, orders[0])
    b = rand((n, k) if tb else (k, n), dtype, rng, orders[1])
    c = rand((m, n), dtype, rng, orders[2])
    return a, b, c


def op(x, t):
    return x.conj().T if t == "C" else x.T if t else x


def reference(a, b, c0, alpha, beta, ta, tb):
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    r = alpha * (op(a, ta).astype(wide) @ op(b, tb).astype(wide))
    return r + beta * c0.astype(wide) if beta != 0 else r


def assert_close(got, want, k, dtype):
    tol = 4 * k * EPS[dtype] * (1 + np.abs(want).max())
    assert not np.isnan(got).any()
    err = np.abs(got - want).max()
    assert err <= tol, "max error %g above %g" % (err, tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("orders", ["CCC", "FFF", "CFC", "FCF"])
def test_host_layouts(dtype, ta, tb, orders):
    m, n, k = 37, 29, 45
    a, b, c = operands(m, n, k, ta, tb, dtype, np.random.default_rng(1), orders)
    c0 = c.copy()
    out = clgemm.gemm(a, b, c, alpha=0.5, beta=-1.5, trans_a=ta, trans_b=tb)
    assert out is c
    assert_close(c, reference(a, b, c0, 0.5, -1.5, ta, tb), k, dtype)


def test_types_found():
    """This build has complex, FP16 and INT8 GEMM: the package must find their symbols."""
    assert set(clgemm.types()) == {"float32", "float64", "complex64", "complex128", "float16",
                                   "int8"}
    for letter in ["s", "d", "c", "z", "h", "i8"]:
        assert all(fn is not None for fn in _lib.GEMM[letter][:2]), letter
    for fn in (_lib.gemm_ex_host, _lib.fp8_from_float, _lib.fp8_to_float, _lib.type_size):
        assert fn is not None


def test_type_size_is_numpy_itemsize():
    """clgemm_type_size agrees with NumPy's item sizes of the types the package maps."""
    codes = {"s": 0, "d": 1, "c": 2, "z": 3, "h": _lib.HALF, "i8": _lib.INT8}
    for dtype, letter in clgemm._TYPES.items():
        assert _lib.type_size(codes[letter]) == dtype.itemsize, letter
    assert _lib.type_size(_lib.E4M3) == 1 and _lib.type_size(_lib.BFLOAT16) == 2
    assert _lib.type_size(-1) == 0


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float16])
@pytest.mark.parametrize("ta", [False, True, "C"])
@pytest.mark.parametrize("tb", [False, True, "C"])
@pytest.mark.parametrize("orders", ["CCC", "FCF"])
def test_host_complex_and_half(dtype, ta, tb, orders):
    m, n, k = 21, 18, 27
    a, b, c = operands(m, n, k, ta, tb, dtype, np.random.default_rng(7), orders)
    c0 = c.copy()
    alpha, beta = (0.5 - 0.25j, -1.5 + 0.5j) if dtype in COMPLEX else (0.5, -1.5)
    ra, rb = [t if dtype in COMPLEX else bool(t) for t in (ta, tb)]  # 'C' is 'T' on reals
    assert clgemm.gemm(a, b, c, alpha=alpha, beta=beta, trans_a=ta, trans_b=tb) is c
    assert_close(c, reference(a, b, c0, alpha, beta, ra, rb), k, dtype)


def test_host_new_c_and_nan_poison():
    rng = np.random.default_rng(2)
    a, b = rand((64, 33), np.float32, rng), rand((33, 70), np.float32, rng)
    assert_close(clgemm.gemm(a, b), reference(a, b, None, 1, 0, False, False), 33, np.float32)
    c = np.full((64, 70), np.nan, np.float32)
    clgemm.gemm(a, b, c, beta=0)  # beta == 0: C is never read
    assert_close(c, reference(a, b, None, 1, 0, False, False), 33, np.float32)


def test_host_slices_and_strided_copies():
    rng = np.random.default_rng(3)
    big_a = rand((80, 90), np.float64, rng)
    big_b = rand((90, 70), np.float64, rng, "F")
    a = big_a[5:45, 10:60]            # row-major slice: lda 90
    b = big_b[3:53, ::2]              # columns every other: copied
    big_c = rand((100, 100), np.float64, rng)
    before = big_c.copy()
    c = big_c[10:50, 20:90:2]         # strided C: computed aside, written back
    want = reference(a, b, c.copy(), 2.0, 0.5, False, False)
    clgemm.gemm(a, b, c, alpha=2.0, beta=0.5)
    assert_close(big_c[10:50, 20:90:2], want, 50, np.float64)
    mask = np.ones_like(big_c, bool)
    mask[10:50, 20:90:2] = False
    assert (big_c[mask] == before[mask]).all(), "elements outside C changed"


def test_host_aliasing():
    rng = np.random.default_rng(4)
    a = rand((30, 30), np.float64, rng)
    want = reference(a, a, a.copy(), 1.0, 1.0, False, True)
    clgemm.gemm(a, a, a, beta=1.0, trans_b=True)  # C is also A and B
    assert_close(a, want, 30, np.float64)


def _alias_case(name, rng):
    """(a, b, c, out) where out shares memory with a, b or c as the case's name says."""
    big = rand((12, 12), np.float64, rng)
    x, w = rand((6, 6), np.float64, rng), rand((6, 6), np.float64, rng)
    c = rand((6, 6), np.float64, rng)
    bias = rand((6,), np.float64, rng)
    return {
        "out_is_a": lambda: (x, w, c, x),
        "out_is_b": lambda: (x, w, c, w),
        "out_is_a_c_broadcast": lambda: (x, w, np.broadcast_to(bias, (6, 6)), x),
        "out_is_b_transposed": lambda: (x, w, c, w.T),
        "out_is_a_and_c": lambda: (x, w, x, x),
        "out_overlaps_a": lambda: (big[0:6, 0:6], w, c, big[2:8, 1:7]),
        "out_overlaps_b": lambda: (x, big[3:9, 3:9], c, big[0:6, 5:11]),
        "out_overlaps_c": lambda: (x, w, big[0:6, 0:6], big[1:7, 1:7]),
        "out_strided_in_a": lambda: (big[0:12:2, 0:6], w, c, big[0:12:2, 1:7]),
        "all_in_one_buffer": lambda: (big[0:6, 0:6], big[3:9, 2:8], big[6:12, 6:12],
                                      big[4:10, 4:10]),
        "out_is_a_float32": lambda: (x.astype(np.float32), w.astype(np.float32),
                                     c.astype(np.float32), None),
    }[name]()


@pytest.mark.parametrize("case", ["out_is_a", "out_is_b", "out_is_a_c_broadcast",
                                  "out_is_b_transposed", "out_is_a_and_c", "out_overlaps_a",
                                  "out_overlaps_b", "out_overlaps_c", "out_strided_in_a",
                                  "all_in_one_buffer", "out_is_a_float32"])
def test_host_out_sharing_memory(case):
    """out= sharing memory with a, b or c (whole, partial views, broadcast c) still gives
    alpha a b + beta c as they were before the call."""
    rng = np.random.default_rng(36)
    a, b, c, out = _alias_case(case, rng)
    if out is None:
        out = a
    assert np.shares_memory(out, a) or np.shares_memory(out, b) or np.shares_memory(out, c)
    want = reference(a.copy(), b.copy(), c.copy(), 2.0, 0.5, False, False)
    assert clgemm.gemm(a, b, c, alpha=2.0, beta=0.5, out=out) is out
    assert_close(out, want, 6, out.dtype.type)


def test_host_bad_input():
    a = np.ones((3, 4), np.float32)
    # Each message names what is wrong: here the inner dimensions, 4 against 5.
    with pytest.raises(ValueError, match=r"inner dimensions differ: .*\(k = 4\).*\(k = 5\)"):
        clgemm.gemm(a, np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match=r"c must be 3x2, not 2x2"):
        clgemm.gemm(a, np.ones((4, 2), np.float32), np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"a is 1-D, b 2-D"):
        clgemm.gemm(np.ones(3, np.float32), np.ones((4, 2), np.float32))
    with pytest.raises(TypeError, match="float32, float64"):
        clgemm.gemm(a, np.ones((4, 2), np.float64))
    with pytest.raises(TypeError):
        clgemm.gemm(np.ones((3, 4), np.int32), np.ones((4, 2), np.int32))
    with pytest.raises(ValueError):
        clgemm.gemm(a, np.ones((4, 2), np.float32), beta=1.0)
    c = np.zeros((3, 2), np.float32)
    c.flags.writeable = False
    with pytest.raises(ValueError):
        clgemm.gemm(a, np.ones((4, 2), np.float32), c)
    with pytest.raises(ValueError):
        clgemm.gemm(a, np.ones((4, 2), np.float32), trans_a="X")


def test_host_c_must_be_an_array():
    # C is written in place, so a list (or anything else) cannot take the result: a TypeError
    # that says so, not an AttributeError from inside the package.
    a, b = np.ones((7, 3), np.float32), np.ones((3, 6), np.float32)
    for c in ([[0] * 6] * 7, ((0,) * 6,) * 7, 5.0, "c"):
        with pytest.raises(TypeError, match="c must be an array"):
            clgemm.gemm(a, b, c)


def test_empty_and_k_zero():
    c = np.ones((3, 0), np.float32)
    assert clgemm.gemm(np.ones((3, 4), np.float32), np.ones((4, 0), np.float32), c) is c
    c = np.full((3, 2), 2.0, np.float64)
    clgemm.gemm(np.ones((3, 0)), np.ones((0, 2)), c, beta=3.0)  # k = 0: C = beta C
    assert (c == 6.0).all()


def test_config_mirrors_header():
    """_lib.Config must be clgemm_config: a family and CLGEMM_MAX_PARAMS ints."""
    header = open(os.path.join(ROOT, "include", "clgemm.h")).read()
    assert int(re.search(r"#define CLGEMM_MAX_PARAMS (\d+)", header).group(1)) == _lib.MAX_PARAMS
    assert ctypes.sizeof(_lib.Config) == 4 * (1 + _lib.MAX_PARAMS)


def test_tune_structs_mirror_header():
    """The tuner's structs end with the fields added in 0.2, in the header's order (the library
    writes whole structs: a shorter mirror would be overrun)."""
    header = open(os.path.join(ROOT, "include", "clgemm.h")).read()
    for name, struct in (("clgemm_tune_options", _lib.TuneOptions),
                         ("clgemm_tune_result", _lib.TuneResult)):
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), header, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        assert re.search(r"int wide_c;\s*clgemm_transpose trans_a, trans_b;\s*size_t batch;\s*$",
                         body), name
        assert [f[0] for f in struct._fields_[-4:]] == ["wide_c", "trans_a", "trans_b", "batch"], name


def test_tune_small(tmp_path):
    db = tmp_path / "tuning.json"
    results = clgemm.tune("s", shapes=[(64, 64, 64)], budget_s=20, quick=True, max_evals=2,
                          path=str(db))
    assert len(results) == 1 and results[0]["shape"] == (64, 64, 64)
    assert results[0]["status"] == 0 and results[0]["gflops"] > 0
    assert db.exists() and "64" in db.read_text()


@pytest.mark.parametrize("kw", [{"shapes": [(2 ** 64 + 8, 8, 8)]}, {"shapes": [(8, -1, 8)]},
                                {"shapes": [(8, 8, 8)], "batch": 2 ** 64 + 2},
                                {"shapes": [(8, 8, 8)], "max_evals": -1}])
def test_tune_refuses_sizes_that_size_t_cannot_hold(tmp_path, kw):
    """ctypes keeps only the low 64 bits of an int: 2**64 + 8 was tuned, and saved, as 8."""
    db = tmp_path / "tuning.json"
    with pytest.raises(ValueError, match="size_t"):
        clgemm.tune("s", budget_s=5, path=str(db), **kw)
    assert not db.exists()


# ---- pyopencl arrays ---------------------------------------------------------------------------

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


@pytest.fixture(scope="module")
def queue():
    try:
        platform = cl.get_platforms()[0]
        device = platform.get_devices()[0]
    except (cl.Error, IndexError) as e:
        pytest.skip("no OpenCL device: %s" % e)
    return cl.CommandQueue(cl.Context([device]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.float16])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True),
                                   ("C", False), (True, "C")])
def test_device_arrays(queue, dtype, ta, tb):
    rng = np.random.default_rng(5)
    m, n, k = 40, 24, 33
    if "C" in (ta, tb) and dtype not in COMPLEX:
        pytest.skip("'C' on a real type is 'T', tested above")
    a = rand((k, m) if ta else (m, k), dtype, rng)
    b = rand((k, n) if not tb else (n, k), dtype, rng, "F")
    if tb == "C":
        b = np.ascontiguousarray(b)  # 'C' needs B in C's layout: no flip of a conjugate
    c = np.full((m, n), np.nan, dtype)
    alpha = 1.5 - 0.5j if dtype in COMPLEX else 1.5
    da, db, dc = (cl_array.to_device(queue, x) for x in (a, b, c))
    ev = clgemm.gemm(da, db, dc, alpha=alpha, trans_a=ta, trans_b=tb)
    assert isinstance(ev, cl.Event) and ev in dc.events
    ev.wait()
    assert ev.command_execution_status == cl.command_execution_status.COMPLETE
    assert_close(dc.get(), reference(a, b, None, alpha, 0, ta, tb), k, dtype)


def test_device_offsets_and_transposed_views(queue):
    rng = np.random.default_rng(6)
    big = rand((50, 60), np.float32, rng)
    dbig = cl_array.to_device(queue, big)
    a = dbig[5:25, 7:37]                 # offset into the buffer, ld 60
    b_host = rand((20, 30), np.float32, rng)
    db = cl_array.to_device(queue, b_host).T   # a transposed view: column-major 30 x 20
    c_host = rand((20, 20), np.float32, rng)
    dc = cl_array.to_device(queue, c_host)
    clgemm.gemm(a, db, dc, alpha=1.0, beta=2.0).wait()
    want = reference(big[5:25, 7:37], b_host.T, c_host, 1.0, 2.0, False, False)
    assert_close(dc.get(), want, 30, np.float32)
    assert (dbig.get() == big).all()


def test_device_bad_input(queue):
    da = cl_array.zeros(queue, (4, 4), np.float32)
    with pytest.raises(TypeError):
        clgemm.gemm(da, da)  # no c: nothing to return the event for
    with pytest.raises(TypeError):
        clgemm.gemm(da, np.zeros((4, 4), np.float32), da)
    with pytest.raises(ValueError):
        clgemm.gemm(da, cl_array.zeros(queue, (5, 4), np.float32), da)


def test_wheel_loads_its_own_library():
    """CI's wheel check (CLGEMM_EXPECT_WHEEL=1, a fresh virtual environment, no build tree): the
    package is the installed wheel's, not the source tree's, and it loaded the C library built
    into it."""
    if os.environ.get("CLGEMM_EXPECT_WHEEL") != "1":
        pytest.skip("only in the wheel check")
    package = os.path.dirname(os.path.abspath(clgemm.__file__))
    assert not package.startswith(ROOT + os.sep), package
    assert _lib.lib._name == os.path.join(package, "libclgemm.so")


def test_clgemm_library_overrides():
    """CLGEMM_LIBRARY wins over the bundled and the installed library: a wrong path is an
    ImportError that names the variable."""
    import subprocess
    import sys
    env = dict(os.environ, CLGEMM_LIBRARY="/nonexistent/libclgemm.so")
    r = subprocess.run([sys.executable, "-c", "import clgemm"], env=env, capture_output=True,
                       text=True, cwd=os.path.dirname(os.path.dirname(clgemm.__file__)))
    assert r.returncode != 0 and "CLGEMM_LIBRARY" in r.stderr and "/nonexistent" in r.stderr


class _Interface:
    """An object that is an array only through __array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_host_array_likes():
    """Buffer-protocol and __array_interface__ objects, for a and b and as c written in place."""
    rng = np.random.default_rng(8)
    a, b = rand((6, 5), np.float32, rng), rand((5, 4), np.float32, rng)
    want = reference(a, b, None, 1.0, 0.0, False, False)
    raw = bytearray(6 * 4 * 4)
    c = memoryview(raw).cast("B").cast("f", (6, 4))
    assert clgemm.gemm(memoryview(a), _Interface(b), c) is c
    assert_close(np.frombuffer(raw, np.float32).reshape(6, 4), want, 5, np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    target = np.full((6, 4), np.nan)
    c_like = _Interface(target)
    assert clgemm.gemm(a64.tolist(), b64, c_like) is c_like  # a nested list is array-like too
    assert_close(target, reference(a64, b64, None, 1.0, 0.0, False, False), 5, np.float64)


def test_host_out():
    """out= receives the result; c is only read (left as it was) when out is another array."""
    rng = np.random.default_rng(9)
    a, b, c = rand((7, 3), np.float64, rng), rand((3, 5), np.float64, rng), rand((7, 5), np.float64,
                                                                                   rng)
    c0 = c.copy()
    out = np.full((7, 5), np.nan)
    assert clgemm.gemm(a, b, c, alpha=2.0, beta=0.5, out=out) is out
    assert_close(out, reference(a, b, c0.copy(), 2.0, 0.5, False, False), 3, np.float64)
    assert (c == c0).all(), "c was written although out was given"
    out2 = np.full((7, 5), np.nan)
    assert clgemm.gemm(a, b, out=out2) is out2
    assert_close(out2, reference(a, b, None, 1.0, 0.0, False, False), 3, np.float64)
    with pytest.raises(ValueError):
        clgemm.gemm(a, b, c, beta=1.0, out=np.zeros((5, 7)))
    with pytest.raises(TypeError):
        clgemm.gemm(a, b, c, beta=1.0, out=np.zeros((7, 5), np.float32))
    with pytest.raises(ValueError):
        clgemm.gemm(a, b, out=np.zeros((7, 4)))
    with pytest.raises(ValueError):
        clgemm.gemm(a, b, beta=1.0, out=out2)  # beta needs a c to read
    bad_out = np.full((7, 5), 3.0)
    with pytest.raises(ValueError):  # a and b disagree: out must stay as it was
        clgemm.gemm(a, np.ones((4, 5)), c, beta=1.0, out=bad_out)
    assert (bad_out == 3.0).all(), "out written before the checks"


def test_host_wrong_kinds_of_input():
    """Every wrong kind of argument is a TypeError or ValueError, and touches nothing."""
    a, b = np.ones((3, 4), np.float32), np.ones((4, 2), np.float32)
    c = np.full((3, 2), 7.0, np.float32)
    for bad in (None, "abc", object(), {"a": 1}):
        with pytest.raises(TypeError):
            clgemm.gemm(bad, b)
        with pytest.raises(TypeError):
            clgemm.gemm(a, b, bad if bad is not None else object())
    for bad in ("2", None, True, [1.0]):
        with pytest.raises(TypeError):
            clgemm.gemm(a, b, c, alpha=bad)
        with pytest.raises(TypeError):
            clgemm.gemm(a, b, c, beta=bad)
    with pytest.raises(ValueError):
        clgemm.gemm(np.ones((2, 3, 4), np.float32), b)
    with pytest.raises(ValueError):
        clgemm.gemm(a, b, memoryview(bytes(24)).cast("f", (3, 2)))  # read-only buffer
    assert (c == 7.0).all()


# ---- 8-bit types ------------------------------------------------------------------------------

def test_int8_exact_and_wrapping():
    """np.int8 A and B give an np.int32 C, exactly, wrapping modulo 2^32 as int64 arithmetic
    taken modulo 2^32 (alpha * sum + beta * C past the int32 range)."""
    rng = np.random.default_rng(8)
    m, n, k = 23, 17, 301
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    b = np.asfortranarray(rng.integers(-128, 128, size=(k, n), dtype=np.int8))
    c = rng.integers(-2**31, 2**31, size=(m, n), dtype=np.int64).astype(np.int32)
    c0 = c.copy()
    alpha, beta = 123456789, -987654321
    out = clgemm.gemm(a, b, c, alpha=alpha, beta=beta)
    assert out is c and out.dtype == np.int32
    exact = alpha * (a.astype(np.int64) @ b.astype(np.int64)) + beta * c0.astype(np.int64)
    want = ((exact + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert (c == want).all()
    assert (exact != want).any()  # the case wrapped
    made = clgemm.gemm(a, b)
    assert made.dtype == np.int32
    assert (made == (a.astype(np.int64) @ b.astype(np.int64))).all()


def test_int8_bad_input():
    a = np.ones((2, 3), dtype=np.int8)
    with pytest.raises(ValueError):
        clgemm.gemm(a, a.T, alpha=0.5)  # INT8 scalars are integers
    with pytest.raises(ValueError):
        clgemm.gemm(a, a.T, alpha=2**31)
    with pytest.raises(TypeError):
        clgemm.gemm(a, a.T, np.zeros((2, 2), dtype=np.int8), beta=1)  # C is int32


def test_fp8_conversions():
    """to_fp8 saturates (infinities too) and keeps NaN; from_fp8 of all 256 codes gives the
    values of the OCP formats; and back again."""
    codes = np.arange(256, dtype=np.uint8)
    for fmt, top, nans in (("e4m3", 448.0, 2), ("e5m2", 57344.0, 6)):
        v = clgemm.from_fp8(codes, fmt)
        assert np.isnan(v).sum() == nans
        assert np.nanmax(v[np.isfinite(v)]) == top
        sat = clgemm.to_fp8(np.array([1e9, -np.inf, np.inf, np.nan], dtype=np.float32), fmt)
        assert list(clgemm.from_fp8(sat[:3], fmt)) == [top, -top, top]
        assert np.isnan(clgemm.from_fp8(sat[3:], fmt)).all()
        finite = np.isfinite(v)
        assert (clgemm.to_fp8(v[finite], fmt) == codes[finite]).all()
    assert clgemm.from_fp8(np.array([0x38], dtype=np.uint8), "e4m3")[0] == 1.0
    with pytest.raises(ValueError):
        clgemm.to_fp8([1.0], "e3m4")


def test_fp8_gemm_codes_with_scales():
    """FP8 A and B as np.uint8 codes with dtype=, scales folded into alpha; FP32 and FP16 C
    against the product of the decoded inputs, within the k-scaled FP32 bound."""
    rng = np.random.default_rng(9)
    m, n, k = 19, 13, 57
    # One program per format: E4M3 into FP32, E5M2 into FP16 (PoCL builds each for seconds).
    for fmt, c_dtype in (("e4m3", np.float32), ("e5m2", np.float16)):
        a = clgemm.to_fp8(rng.uniform(-4, 4, size=(m, k)), fmt)
        b = clgemm.to_fp8(rng.uniform(-4, 4, size=(n, k)), fmt)
        da, db = clgemm.from_fp8(a, fmt).astype(np.float64), clgemm.from_fp8(b, fmt)
        want = 0.75 * 0.5 * 2.0 * (da @ db.T.astype(np.float64))
        bound = (k + 2) * 2.0**-24 * 0.75 * (np.abs(da) @ np.abs(db.T).astype(np.float64))
        if c_dtype == np.float32:
            got = clgemm.gemm(a, b, alpha=0.75, trans_b=True, dtype=fmt, scale_a=0.5, scale_b=2.0)
            assert got.dtype == np.float32
            assert (np.abs(got - want) <= bound).all()
        else:
            c = np.full((m, n), np.nan, dtype=c_dtype)
            clgemm.gemm(a, b, c, alpha=0.75, trans_b=True, dtype=fmt, scale_a=0.5, scale_b=2.0)
            err = np.abs(c.astype(np.float64) - want)
            assert (err <= bound + 2.0**-11 * (np.abs(want) + bound) + 2.0**-25).all()
    with pytest.raises(TypeError):
        clgemm.gemm(np.zeros((2, 2), dtype=np.float32), np.zeros((2, 2), dtype=np.uint8),
                    dtype="e4m3")
    with pytest.raises(TypeError):
        clgemm.gemm(a, b, np.zeros((m, n), dtype=np.float64), trans_b=True, dtype="e5m2")
    with pytest.raises(ValueError):
        clgemm.gemm(np.ones((2, 2)), np.ones((2, 2)), scale_a=2.0)
