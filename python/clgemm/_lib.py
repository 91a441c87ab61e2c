"""_lib: loads libclgemm with ctypes and declares the C functions of include/clgemm.h that
the package calls. The structs mirror the header; tests/python checks them against it."""
import ctypes
import ctypes.util
import os

ROW_MAJOR, COL_MAJOR = 101, 102
NO_TRANS, TRANS, CONJ_TRANS = 111, 112, 113
SINGLE, DOUBLE = 0, 1

c_size = ctypes.c_size_t
c_handle = ctypes.c_void_p
c_mem = ctypes.c_void_p


_HERE = os.path.dirname(os.path.abspath(__file__))


def _load():
    """CLGEMM_LIBRARY when set; else the library built into the package (a wheel, with the
    jansson it links loaded first from beside it: the loader then takes it by its soname); else
    an installed libclgemm.so.0."""
    path = os.environ.get("CLGEMM_LIBRARY")
    bundled = os.path.join(_HERE, "libclgemm.so")
    if path:
        candidates = [path]
    elif os.path.exists(bundled):
        jansson = os.path.join(_HERE, "libjansson.so.4")
        if os.path.exists(jansson):
            ctypes.CDLL(jansson, mode=ctypes.RTLD_GLOBAL)
        candidates = [bundled]
    else:
        candidates = ["libclgemm.so.0", ctypes.util.find_library("clgemm")]
    errors = []
    for name in candidates:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("clgemm: cannot load the C library (set CLGEMM_LIBRARY to the path of "
                      "libclgemm.so): " + "; ".join(errors or ["not found"]))


lib = _load()

# clgemm_config: a family and CLGEMM_MAX_PARAMS ints; parameters are read by name through the
# library (clgemm_family_param_name / clgemm_config_get), never by position.
MAX_PARAMS = 16


class Config(ctypes.Structure):
    _fields_ = [("family", ctypes.c_int), ("params", ctypes.c_int * MAX_PARAMS)]


class TuneShape(ctypes.Structure):
    _fields_ = [("m", c_size), ("n", c_size), ("k", c_size)]


PROGRESS = ctypes.CFUNCTYPE(None, c_size, c_size, ctypes.c_double, ctypes.c_double,
                            ctypes.c_void_p)


class TuneOptions(ctypes.Structure):
    _fields_ = [("precision", ctypes.c_int), ("shapes", ctypes.POINTER(TuneShape)),
                ("num_shapes", c_size), ("budget_s", ctypes.c_double), ("max_evals", c_size),
                ("quick", ctypes.c_int), ("seed", ctypes.c_uint), ("progress", PROGRESS),
                ("user", ctypes.c_void_p), ("cancel", ctypes.POINTER(ctypes.c_int)),
                ("wide_c", ctypes.c_int), ("trans_a", ctypes.c_int), ("trans_b", ctypes.c_int),
                ("batch", c_size)]


class TuneResult(ctypes.Structure):
    _fields_ = [("precision", ctypes.c_int), ("shape", TuneShape), ("status", ctypes.c_int),
                ("complete", ctypes.c_int), ("config", Config), ("gflops", ctypes.c_double),
                ("default_gflops", ctypes.c_double), ("seconds", ctypes.c_double),
                ("evaluated", c_size), ("failed", c_size), ("wrong", c_size),
                ("wide_c", ctypes.c_int), ("trans_a", ctypes.c_int), ("trans_b", ctypes.c_int),
                ("batch", c_size)]


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name, None)
    if fn is not None:
        fn.restype = restype
        fn.argtypes = list(argtypes)
    return fn


_int = ctypes.c_int
_ptr = ctypes.c_void_p
status_string = _declare("clgemm_status_string", ctypes.c_char_p, _int)
create = _declare("clgemm_create", _int, ctypes.POINTER(c_handle), ctypes.c_void_p)
create_default = _declare("clgemm_create_default", _int, ctypes.POINTER(c_handle))
destroy = _declare("clgemm_destroy", None, c_handle)
family_name = _declare("clgemm_family_name", ctypes.c_char_p, _int)
family_param_count = _declare("clgemm_family_param_count", _int, _int)
family_param_name = _declare("clgemm_family_param_name", ctypes.c_char_p, _int, _int)
config_get = _declare("clgemm_config_get", _int, ctypes.POINTER(Config), ctypes.c_char_p,
                      ctypes.POINTER(_int))


def config_params(config):
    """{NAME: value} of a Config's family, by the library's own parameter names."""
    out = {}
    for i in range(family_param_count(config.family)):
        name = family_param_name(config.family, i)
        value = _int()
        if config_get(ctypes.byref(config), name, ctypes.byref(value)) == 0:
            out[name.decode()] = value.value
    return out
get_config = _declare("clgemm_get_config", _int, c_handle, _int, c_size, c_size, c_size,
                      ctypes.POINTER(Config), ctypes.POINTER(ctypes.c_char_p))
tune_options_init = _declare("clgemm_tune_options_init", None, ctypes.POINTER(TuneOptions))
tune_default_shapes = _declare("clgemm_tune_default_shapes", c_size, c_handle, _int,
                               ctypes.POINTER(TuneShape), c_size)
tune = _declare("clgemm_tune", _int, c_handle, ctypes.POINTER(TuneOptions),
                ctypes.POINTER(TuneResult))
tune_save = _declare("clgemm_tune_save", _int, c_handle, ctypes.c_char_p,
                     ctypes.POINTER(TuneResult), c_size)

# GEMM entry points by type letter: (buffer function, host function, scalar ctypes type).
# Complex and half precision exist only in libraries that have them; the others are None.
_host_args = [c_handle, _int, _int, _int, c_size, c_size, c_size]
_buf_args = [c_handle, _int, _int, _int, c_size, c_size, c_size]


class Float2(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class Double2(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


def _gemm_pair(letter, scalar):
    buf = _declare("clgemm_%sgemm" % letter, _int, *_buf_args, scalar, c_mem, c_size, c_size,
                   c_mem, c_size, c_size, scalar, c_mem, c_size, c_size, ctypes.c_void_p,
                   ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
    host = _declare("clgemm_%sgemm_host" % letter, _int, *_host_args, scalar, _ptr, c_size,
                    _ptr, c_size, scalar, _ptr, c_size)
    return buf, host, scalar


GEMM = {
    "s": _gemm_pair("s", ctypes.c_float),
    "d": _gemm_pair("d", ctypes.c_double),
    "c": _gemm_pair("c", Float2),
    "z": _gemm_pair("z", Double2),
    "h": _gemm_pair("h", ctypes.c_float),  # FP16 storage, float alpha/beta
    "i8": _gemm_pair("i8", ctypes.c_int),  # INT8 A and B, INT32 C, int32 alpha/beta
}

# The general host entry point (FP8 goes through it) and the FP8 conversions. clgemm_precision
# values as in clgemm.h.
SINGLE, HALF, BFLOAT16, INT8, INT32, E4M3, E5M2 = 0, 4, 5, 6, 7, 8, 9
gemm_ex_host = _declare("clgemm_gemm_ex_host", _int, *_host_args, _ptr, _ptr, c_size, _ptr,
                        c_size, _ptr, _ptr, c_size, _int, _int, _int)
fp8_from_float = _declare("clgemm_fp8_from_float", _int, _int, _ptr, _ptr, c_size)
fp8_to_float = _declare("clgemm_fp8_to_float", _int, _int, _ptr, _ptr, c_size)
type_size = _declare("clgemm_type_size", c_size, _int)


def message(status):
    return status_string(status).decode()
