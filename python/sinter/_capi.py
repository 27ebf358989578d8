# Part of the Sinter project.
"""Loading of libSinterCAPI.so (the compiler's C API) through ctypes.

Only compiling needs this library; running an artifact does not.
"""

import ctypes
import hashlib
import os
import threading

from . import _paths
from .errors import CompileError, OptionError, SinterError

# sinter_compile's status codes (include/sinter-c/Sinter.h).
_ERROR_OPTIONS = 2

_LIB_NAME = "libSinterCAPI.so"
_lock = threading.Lock()
_lib = None


def library_path():
    """The path of the libSinterCAPI.so that compile() uses."""
    path, tried = _paths.find_library(_LIB_NAME)
    if path:
        return path
    raise SinterError(
        "cannot find %s (looked at: %s); build Sinter (`make build`) or set "
        "$SINTER_LIB_DIR to the directory holding it"
        % (_LIB_NAME, ", ".join(tried)))


def capi():
    """The loaded C API, with its function prototypes declared."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = library_path()
        _paths.use_bundled_cuda_toolkit()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise SinterError("cannot load %s: %s" % (path, e)) from None
        char_pp = ctypes.POINTER(ctypes.c_void_p)
        lib.sinter_compile.argtypes = [
            ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
            ctypes.c_char_p, ctypes.c_char_p, char_pp]
        lib.sinter_compile.restype = ctypes.c_int
        lib.sinter_free_string.argtypes = [ctypes.c_void_p]
        lib.sinter_free_string.restype = None
        lib.sinter_version.argtypes = []
        lib.sinter_version.restype = ctypes.c_char_p
        _lib = lib
        return lib


def option_string(options):
    """sinter_compile's option string for keyword options: `name_like_this`
    is the option name-like-this of `sinterc --help`; a bool, an int or a
    str value (None: the default)."""
    parts = []
    for key, value in options.items():
        name = key.replace("_", "-")
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, str):
            if '"' in value or not value:
                raise OptionError("option %s: %r cannot be passed (an empty "
                                  "string or one with '\"')" % (key, value))
            text = '"%s"' % value if any(c.isspace() for c in value) \
                else value
        else:
            raise OptionError("option %s: expected a bool, an int or a str, "
                              "got %s" % (key, type(value).__name__))
        parts.append("%s=%s" % (name, text))
    return " ".join(parts)


def compile_to_dir(ir_text, out_dir, source_name="<input>", options=""):
    """Compiles MLIR text into the artifact directory `out_dir` with the
    option string `options` (sinter_compile's)."""
    if isinstance(ir_text, str):
        ir = ir_text.encode("utf-8")
    elif isinstance(ir_text, (bytes, bytearray)):
        ir = bytes(ir_text)
    else:
        raise TypeError("ir_text must be str or bytes, not %s"
                        % type(ir_text).__name__)
    lib = capi()
    error = ctypes.c_void_p()
    rc = lib.sinter_compile(ir, len(ir), source_name.encode("utf-8"),
                            os.fsencode(out_dir), options.encode("utf-8"),
                            ctypes.byref(error))
    if rc != 0:
        message = "compilation failed"
        if error.value:
            message = ctypes.string_at(error.value).decode("utf-8", "replace")
            lib.sinter_free_string(error)
        if rc == _ERROR_OPTIONS:
            raise OptionError(message)
        raise CompileError(message)


def version():
    """The version string of the compiler library."""
    return capi().sinter_version().decode()



_build_id = None


def build_id():
    """The version and a digest of the compiler library's bytes: two builds
    of one version differ here, so that what one compiled is not taken for
    what the other would (the torch cache's `compiled_by` stamp)."""
    global _build_id
    if _build_id is None:
        h = hashlib.sha256()
        with open(library_path(), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 22), b""):
                h.update(chunk)
        _build_id = "%s+%s" % (version(), h.hexdigest()[:16])
    return _build_id
