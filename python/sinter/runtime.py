# Part of the Sinter project.
"""Loading and calling CPU artifacts (kernels.so + manifest.json).

Needs numpy and ctypes only: no MLIR, no compiler library.

Each function `f` of an artifact is the C entry point `_mlir_ciface_f`,
whose parameters are, in order, the inputs then one output per result:
a memref parameter is a pointer to a descriptor

    struct { T *allocated; T *aligned; int64_t offset;
             int64_t sizes[rank]; int64_t strides[rank]; }   /* elements */

and a scalar parameter is passed by value.
"""

import ctypes
import itertools
import os
import shutil
import tempfile

import numpy as np

from . import _manifest
from .errors import ArgumentError, FunctionNotFoundError, LoadError

MANIFEST_FORMAT_VERSION = _manifest.CPU_FORMAT_VERSION

try:  # bfloat16 arrays come from ml_dtypes when it is installed.
    import ml_dtypes as _ml_dtypes
    _BFLOAT16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None
    _BFLOAT16 = None

_NUMPY_DTYPES = {
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
}

_SCALAR_CTYPES = {
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "bool": ctypes.c_bool,
}

_descriptor_types = {}


def numpy_dtype(name):
    """The numpy dtype of a manifest dtype name."""
    if name == "bfloat16":
        if _BFLOAT16 is None:
            raise ArgumentError(
                "bfloat16 arguments need the ml_dtypes package "
                "(pip install ml_dtypes)")
        return _BFLOAT16
    try:
        return _NUMPY_DTYPES[name]
    except KeyError:
        raise LoadError("unsupported dtype %r in manifest" % name) from None


def _descriptor_type(rank):
    """The ctypes struct of a ranked memref descriptor."""
    if rank not in _descriptor_types:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank > 0:
            fields += [("sizes", ctypes.c_int64 * rank),
                       ("strides", ctypes.c_int64 * rank)]
        _descriptor_types[rank] = type(
            "MemRefDescriptor%d" % rank, (ctypes.Structure,),
            {"_fields_": fields})
    return _descriptor_types[rank]


def _descriptor(array):
    """A descriptor viewing the C-contiguous numpy `array`."""
    desc = _descriptor_type(array.ndim)()
    pointer = array.ctypes.data
    desc.allocated = pointer
    desc.aligned = pointer
    desc.offset = 0
    if array.ndim:
        stride = 1
        for dim in reversed(range(array.ndim)):
            desc.sizes[dim] = array.shape[dim]
            desc.strides[dim] = stride
            stride *= array.shape[dim]
    return desc


def _poison(array):
    """Fills a fresh output buffer with values no kernel computes by
    accident, so that an element the kernel forgets to write is visible."""
    if array.dtype.kind == "f" or array.dtype == _BFLOAT16:
        array.fill(np.nan)
    elif array.dtype.kind == "b":
        array.fill(True)
    else:
        # (reshape: a 0-d array's dtype cannot change in place; the 1-d view
        # of a fresh, contiguous buffer shares its memory)
        array.reshape(-1).view(np.uint8).fill(0xA5)


class Argument:
    """One parameter of a compiled function (see the manifest)."""

    def __init__(self, entry):
        # The manifest was checked against the schema (sinter._manifest).
        self.index = entry["index"]
        self.name = entry["name"]
        self.role = entry["role"]
        self.kind = entry["kind"]
        self.dtype_name = entry["dtype"]
        self.shape = tuple(entry["shape"])
        if self.kind == "scalar" and self.dtype_name not in _SCALAR_CTYPES:
            raise LoadError("argument %r: unsupported scalar dtype %r"
                            % (self.name, self.dtype_name))

    def __repr__(self):
        return "Argument(%d, %r, %s, %s%s)" % (
            self.index, self.name, self.role, self.dtype_name,
            "" if self.kind == "scalar" else ", shape=%s" % (self.shape,))


def check_scalar_range(dtype_name, value):
    """An error message when the Python integer `value` does not fit the
    integer dtype `dtype_name` (ctypes would silently wrap it), else None."""
    bits = {"int32": 32, "int64": 64}.get(dtype_name)
    if bits is None or isinstance(value, bool) or not isinstance(
            value, (int, np.integer)):
        return None
    value = int(value)
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if low <= value <= high:
        return None
    return "%d does not fit %s (%d to %d)" % (value, dtype_name, low, high)


def _as_array(value):
    """A numpy view of `value` (ndarray, DLPack or array-like object)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError, ValueError) as e:
            if not hasattr(value, "__array__"):
                raise ArgumentError(
                    "cannot read it through DLPack (%s); the CPU target "
                    "needs host memory" % e) from None
    if hasattr(value, "__array__"):
        return np.asarray(value)
    raise ArgumentError("expected a numpy array or an object with "
                        "__dlpack__ or __array__, got %s"
                        % type(value).__name__)


class Function:
    """A compiled function; call it with numpy (or DLPack) arrays."""

    def __init__(self, program, entry):
        self.program = program
        self.name = entry["name"]
        self.symbol = entry["symbol"]
        self.arguments = [Argument(a) for a in entry["arguments"]]
        self.inputs = [a for a in self.arguments if a.role == "input"]
        self.outputs = [a for a in self.arguments if a.role == "output"]
        _check_entry_point(entry, program.manifest, program.manifest_path)
        try:
            self._entry = getattr(program._library, self.symbol)
        except AttributeError:
            raise LoadError("%s does not define %s (manifest and library "
                            "disagree)" % (program.library_path,
                                           self.symbol)) from None
        self._entry.restype = None
        self._entry.argtypes = [
            _SCALAR_CTYPES[a.dtype_name] if a.kind == "scalar"
            else ctypes.c_void_p for a in self.arguments]

    def __repr__(self):
        return "Function(%s(%s) -> (%s))" % (
            self.name, ", ".join(a.name for a in self.inputs),
            ", ".join(a.name for a in self.outputs))

    def _error(self, arg, message):
        return ArgumentError("%s: argument %d (%r): %s"
                             % (self.name, arg.index, arg.name, message))

    def _check_input(self, arg, value):
        if arg.kind == "scalar":
            out_of_range = check_scalar_range(arg.dtype_name, value)
            if out_of_range:
                raise self._error(arg, out_of_range)
            if isinstance(value, np.ndarray) and value.shape != ():
                raise self._error(arg, "expected a scalar, got an array of "
                                  "shape %s" % (value.shape,))
            if not isinstance(value, (int, float, bool, np.generic,
                                      np.ndarray)):
                raise self._error(arg, "expected a %s scalar, got %s"
                                  % (arg.dtype_name, type(value).__name__))
            scalar = np.asarray(value)
            expected = numpy_dtype(arg.dtype_name)
            if not np.can_cast(scalar.dtype, expected, casting="same_kind") \
                    and not isinstance(value, (int, float, bool)):
                raise self._error(arg, "expected dtype %s, got %s"
                                  % (arg.dtype_name, scalar.dtype))
            if expected.kind in "iub" and isinstance(value, float):
                raise self._error(arg, "expected an integer %s scalar, got "
                                  "float %r" % (arg.dtype_name, value))
            return _SCALAR_CTYPES[arg.dtype_name](scalar.astype(expected)
                                                  .item())
        try:
            array = _as_array(value)
        except ArgumentError as e:
            raise self._error(arg, str(e)) from None
        expected = numpy_dtype(arg.dtype_name)
        if array.dtype != expected:
            raise self._error(arg, "expected dtype %s, got %s"
                              % (arg.dtype_name, array.dtype))
        if tuple(array.shape) != arg.shape:
            raise self._error(arg, "expected shape %s, got %s"
                              % (arg.shape, tuple(array.shape)))
        if not array.flags["C_CONTIGUOUS"]:
            raise self._error(arg, "the array is not C-contiguous (pass "
                              "numpy.ascontiguousarray(x))")
        if array.ctypes.data % array.dtype.alignment:
            raise self._error(arg, "the array data is not aligned to its "
                              "element size")
        return array

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise ArgumentError(
                "%s: expected %d argument%s (%s), got %d"
                % (self.name, len(self.inputs),
                   "" if len(self.inputs) == 1 else "s",
                   ", ".join(a.name for a in self.inputs), len(args)))
        keep_alive = []
        call_args = []
        for arg, value in zip(self.inputs, args):
            checked = self._check_input(arg, value)
            if isinstance(checked, np.ndarray):
                desc = _descriptor(checked)
                keep_alive += [checked, desc]
                call_args.append(ctypes.addressof(desc))
            else:
                call_args.append(checked)
        results = []
        for arg in self.outputs:
            out = np.empty(arg.shape, dtype=numpy_dtype(arg.dtype_name))
            _poison(out)
            desc = _descriptor(out)
            keep_alive.append(desc)
            results.append(out)
            call_args.append(ctypes.addressof(desc))
        self._entry(*call_args)
        del keep_alive
        if len(results) == 1:
            return results[0]
        return tuple(results)


class Program:
    """A loaded artifact: a set of functions by name."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.manifest_path = os.path.join(self.path, _manifest.MANIFEST_FILE)
        self.manifest, digests = _manifest.read_manifest(self.path)
        target = self.manifest.get("target")
        if target != "cpu":
            raise LoadError("%s: an artifact for target %r cannot run on the "
                            "host CPU" % (self.manifest_path, target))
        _manifest.check(self.manifest, "cpu_manifest", self.manifest_path)
        for entry in self.manifest["functions"]:
            _check_entry_point(entry, self.manifest, self.manifest_path)
        self.library_path = os.path.join(self.path,
                                         self.manifest["library"])
        library = _manifest.read_verified(self.path, digests,
                                          self.manifest["library"])
        self._library = _load_library(self.library_path, library)
        _check_manifest_digest(self._library, self.library_path,
                               digests[_manifest.MANIFEST_FILE])
        self.functions = {}
        for entry in self.manifest["functions"]:
            function = Function(self, entry)
            self.functions[function.name] = function

    def __repr__(self):
        return "Program(%r, functions=%s)" % (self.path,
                                              sorted(self.functions))

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise FunctionNotFoundError(
                "no function %r in %s (it has: %s)"
                % (name, self.path, ", ".join(sorted(self.functions))
                   or "none")) from None

    def run(self, name, *args):
        """Calls function `name` with numpy arrays (or DLPack / array-like
        objects, or Python scalars for scalar parameters); returns the
        result array, or a tuple of them for several results."""
        return self[name](*args)


_loads = itertools.count()


def _load_library(path, data):
    """dlopen of exactly the verified bytes `data` of `path`, from a private
    copy under a name never used before in this process: the file cannot
    change between its check and its load, and the dynamic loader, which
    hands back an already loaded library of the same name, never returns
    the code of an earlier artifact at that path. Where the temporary
    directory does not allow that (mounted noexec), `path` itself is
    opened; the manifest digest that kernels.so records still refuses an
    earlier artifact's library."""
    directory = tempfile.mkdtemp(prefix="sinter-load-")
    copy = os.path.join(directory, "kernels.%d.%d.so"
                        % (os.getpid(), next(_loads)))
    try:
        with open(copy, "wb") as f:
            f.write(data)
        return ctypes.CDLL(copy)
    except OSError as e:
        first = e
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise LoadError("cannot load %s: %s (and from a private copy: %s)"
                        % (path, e, first)) from None


def _check_entry_point(entry, manifest, manifest_path):
    """Only an entry point the compiler exported, under its one name, is
    ever looked up: never an arbitrary symbol of the library or of what it
    links (libc's abort)."""
    expected = _manifest.CPU_SYMBOL_PREFIX + entry["name"]
    if (entry["symbol"] != expected
            or entry["symbol"] not in manifest["entry_points"]):
        raise LoadError("%s: function %r: symbol %r is not the entry point "
                        "%r among the artifact's entry_points"
                        % (manifest_path, entry["name"], entry["symbol"],
                           expected))


def _check_manifest_digest(library, path, manifest_digest):
    """kernels.so says which manifest it was compiled with (the SHA-256 the
    compiler embedded as CPU_MANIFEST_DIGEST_SYMBOL): a manifest edited
    after compilation, even with its SHA256SUMS entry redone, or one from
    another artifact, is refused -- its shapes could make a kernel write
    past a buffer."""
    try:
        recorded = (ctypes.c_char * 65).in_dll(
            library, _manifest.CPU_MANIFEST_DIGEST_SYMBOL).value
    except ValueError:
        raise LoadError("%s does not say which manifest it was compiled "
                        "with (no %s)" % (
                            path, _manifest.CPU_MANIFEST_DIGEST_SYMBOL)) \
            from None
    if recorded.decode("ascii", "replace") != manifest_digest:
        raise LoadError("%s: %s is not the manifest %s was compiled with "
                        "(SHA-256 %s, kernels.so records %s): refusing to "
                        "run kernels with buffers described by another "
                        "manifest" % (os.path.dirname(path),
                                      _manifest.MANIFEST_FILE,
                                      os.path.basename(path),
                                      manifest_digest,
                                      recorded.decode("ascii", "replace")))


def load(path):
    """Loads the artifact directory `path`: a CPU artifact (manifest.json +
    kernels.so) as a Program, a CUDA artifact (manifest.json +
    kernels.cubin) as a sinter.cuda.CudaProgram. Every file is verified
    against the artifact's SHA256SUMS first; a missing, corrupt or
    mismatched artifact raises LoadError."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise LoadError("sinter.load expects the path of an artifact "
                        "directory, not %s" % type(path).__name__)
    path = os.fsdecode(path)
    manifest, _ = _manifest.read_manifest(os.path.abspath(path))
    target = manifest.get("target")
    if isinstance(target, str) and target.startswith("cuda"):
        from . import cuda
        return cuda.CudaProgram(os.path.abspath(path))
    return Program(path)
