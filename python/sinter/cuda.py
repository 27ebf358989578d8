# Part of the Sinter project.
"""Running CUDA artifacts (manifest.json + kernels.cubin) on GPU tensors.

    prog = sinter.load("out/")              # made by sinterc --target=cuda:sm_90a
    y = prog.run("main", x, w)              # torch (or any DLPack) CUDA tensors

Needs libSinterRuntime.so (found in $SINTER_LIB_DIR, an installed wheel's
sinter/_lib, <repo>/build/lib, or on the loader path) and torch for tensors; the runtime
itself needs only the CUDA driver -- no MLIR, no CUDA toolkit. Matmuls run
through cuBLASLt when the runtime can open it (torch's copy, once torch is
imported), else through their fallback kernels: prog.library_counts() and
cublaslt_status() say which.
"""

import ctypes
import functools
import os

from . import _manifest, _paths
from .errors import ArgumentError, FunctionNotFoundError, LoadError, SinterError
from .runtime import check_scalar_range

_TORCH_DTYPES = ("float32", "float16", "bfloat16", "float64", "int32",
                 "int64", "bool")
_SCALAR_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double,
                  "int32": ctypes.c_int32, "int64": ctypes.c_int64,
                  "bool": ctypes.c_bool}
_ALIGNMENT = 16  # kernels use 16-byte vector accesses


class CudaError(SinterError):
    """A CUDA driver call failed; the message names the call and kernel."""


def _runtime_candidates():
    for directory in _paths.library_dirs():
        yield os.path.join(directory, "libSinterRuntime.so")
    yield "libSinterRuntime.so"  # the dynamic loader's search path


_lib = None


def runtime_library():
    """The loaded libSinterRuntime (ctypes.CDLL)."""
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for path in _runtime_candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise LoadError("cannot find libSinterRuntime.so (set SINTER_LIB_DIR "
                        "to the directory holding it): " + "; ".join(errors))
    lib.sinter_rt_last_error.restype = ctypes.c_char_p
    lib.sinter_rt_cuda_available.restype = ctypes.c_int
    lib.sinter_rt_load.argtypes = [ctypes.c_char_p, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_void_p)]
    lib.sinter_rt_unload.argtypes = [ctypes.c_void_p]
    lib.sinter_rt_run.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.c_size_t, ctypes.c_void_p]
    lib.sinter_rt_synchronize.argtypes = [ctypes.c_void_p]
    if hasattr(lib, "sinter_rt_library_counts"):  # runtimes since format 2
        lib.sinter_rt_cublaslt_available.restype = ctypes.c_int
        lib.sinter_rt_cublaslt_status.restype = ctypes.c_char_p
        lib.sinter_rt_library_counts.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_char_p)]
    _lib = lib
    return lib


def cublaslt_status():
    """(available, text): whether the runtime can open cuBLASLt for the
    library calls of an artifact (its "cublas_gemm" launches), and which
    library it opened or why none ($SINTER_CUBLASLT names one, "off" turns
    them off; without it the recorded fallback kernels run)."""
    lib = runtime_library()
    if not hasattr(lib, "sinter_rt_cublaslt_status"):
        return False, "this libSinterRuntime has no library calls"
    return (bool(lib.sinter_rt_cublaslt_available()),
            lib.sinter_rt_cublaslt_status().decode())


def cuda_available():
    """Whether the CUDA driver loads and reports a device."""
    try:
        return bool(runtime_library().sinter_rt_cuda_available())
    except LoadError:
        return False


def _check(rc, exc=CudaError):
    if rc != 0:
        msg = runtime_library().sinter_rt_last_error().decode()
        if rc == 3:
            raise ArgumentError(msg)
        if rc == 1:
            raise LoadError(msg)
        raise exc(msg)


@functools.lru_cache(maxsize=None)
def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the environment
        raise ArgumentError("running CUDA artifacts needs torch") from None
    return torch


def _as_tensor(value):
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return value
    if hasattr(value, "__dlpack__"):
        return torch.from_dlpack(value)
    raise ArgumentError("expected a CUDA tensor (torch or DLPack), got %s"
                        % type(value).__name__)


class _CallPlan:
    """CudaFunction._plan's answer."""

    def __init__(self, expected, tensors, scalars, dtypes, shapes, outputs):
        self.expected = expected
        self.tensors = tensors
        self.scalars = scalars
        self.dtypes = dtypes
        self.shapes = shapes
        self.outputs = outputs


class CudaFunction:
    """One function of a CUDA artifact."""

    def __init__(self, program, spec):
        self._program = program
        self.name = spec["name"]
        self.arguments = spec["arguments"]
        self.inputs = [a for a in self.arguments if a["role"] == "input"]
        self.outputs = [a for a in self.arguments if a["role"] == "output"]
        self.launches = spec.get("launches", [])
        self._fast = None  # _CallPlan, made on first use (_plan)
        # (device, stream, outputs) made ahead for the next call
        # (spare_outputs), or None.
        self._spare = None

    def __repr__(self):
        sig = ", ".join("%s: %s%s" % (a["name"], a["dtype"], a["shape"])
                        for a in self.inputs)
        return "<sinter CUDA function %s(%s), %d launch(es)>" % (
            self.name, sig, len(self.launches))

    def _check_tensor(self, index, spec, t, device):
        # The common case first, with no message built: a training step
        # passes ~1000 tensors (the optimizer's four per parameter).
        dtype, shape = self._plan().expected[index]
        if (t.is_cuda and (device is None or t.device == device)
                and t.dtype == dtype and t.shape == shape
                and t.is_contiguous()
                and (t.data_ptr() % _ALIGNMENT == 0 or not t.numel())):
            return
        torch = _torch()
        where = "%s: argument %d (%r)" % (self.name, index, spec["name"])
        if not t.is_cuda:
            raise ArgumentError("%s: expected a CUDA tensor, got one on %s"
                                % (where, t.device))
        if device is not None and t.device != device:
            raise ArgumentError("%s: on %s, but other arguments are on %s"
                                % (where, t.device, device))
        want = getattr(torch, spec["dtype"])
        if t.dtype != want:
            raise ArgumentError("%s: expected dtype %s, got %s"
                                % (where, spec["dtype"],
                                   str(t.dtype).replace("torch.", "")))
        if tuple(t.shape) != tuple(spec["shape"]):
            raise ArgumentError("%s: expected shape %s, got %s"
                                % (where, tuple(spec["shape"]),
                                   tuple(t.shape)))
        if not t.is_contiguous():
            raise ArgumentError("%s: must be contiguous (call .contiguous())"
                                % where)
        if t.numel() and t.data_ptr() % _ALIGNMENT:
            raise ArgumentError("%s: data must be %d-byte aligned"
                                % (where, _ALIGNMENT))

    def _scalar(self, index, spec, value):
        """The ctypes value of scalar input `index`, checked (ctypes would
        silently wrap an integer that does not fit)."""
        where = "%s: argument %d (%r)" % (self.name, index, spec["name"])
        ctype = _SCALAR_CTYPES.get(spec["dtype"])
        if ctype is None:
            raise ArgumentError("%s: scalars of dtype %s are not supported"
                                % (where, spec["dtype"]))
        out_of_range = check_scalar_range(spec["dtype"], value)
        if out_of_range:
            raise ArgumentError("%s: %s" % (where, out_of_range))
        if spec["dtype"] != "bool" and isinstance(value, bool):
            value = int(value)
        try:
            return ctype(value)
        except TypeError:
            raise ArgumentError("%s: expected a scalar of dtype %s, got %s"
                                % (where, spec["dtype"],
                                   type(value).__name__)) from None

    def _plan(self):
        """What every call checks, made on first use (torch is imported
        lazily): per argument (inputs, then outputs) the torch dtype and
        shape it must have (None for a scalar), the positions of the tensor
        and scalar inputs, and each output's shape and dtype, or the
        position of the input it is updated in place into."""
        if self._fast is None:
            torch = _torch()
            expected = [None if a["kind"] == "scalar" else
                        (getattr(torch, a["dtype"]), tuple(a["shape"]))
                        for a in self.inputs + self.outputs]
            tensors = [i for i, s in enumerate(self.inputs)
                       if s["kind"] != "scalar"]
            position = {self.inputs[i]["name"]: i for i in tensors}
            n = len(self.inputs)
            self._fast = _CallPlan(
                expected=expected,
                tensors=tensors,
                scalars=[i for i, s in enumerate(self.inputs)
                         if s["kind"] == "scalar"],
                dtypes=[expected[i][0] for i in tensors],
                shapes=[expected[i][1] for i in tensors],
                outputs=[(position[s["alias_of"]], None, None)
                         if "alias_of" in s else
                         (None, expected[n + j][1], expected[n + j][0])
                         for j, s in enumerate(self.outputs)])
        return self._fast

    def spare_outputs(self, device):
        """Allocates the outputs of the next call on `device` now, on the
        current stream: the next call on that stream takes them instead of
        allocating its own (a caller that knows when memory is free and
        the GPU busy: sinter.torch's training forwards, _spare_outputs.py).
        May run on another thread than the calls. Nothing is made while
        the stream is captured into a CUDA graph: memory of the graph's
        pool would be handed to a call outside it."""
        torch = _torch()
        if torch.cuda.is_current_stream_capturing():
            return
        stream = torch.cuda.current_stream(device).cuda_stream
        outs = [None if alias is not None else
                torch.empty(shape, dtype=dtype, device=device)
                for alias, shape, dtype in self._plan().outputs]
        self._spare = (device, stream, outs)

    def release_spare(self):
        """Drops the outputs spare_outputs made, if the next call has not
        taken them (their model went away)."""
        self._spare = None

    def _take_spare(self, device, stream):
        """The outputs spare_outputs made for a call on `device` and
        `stream` (a CUDA stream handle, None: the current one), or None.
        A call captured into a CUDA graph takes none (its outputs come from
        the graph's pool, fixed for its replays) and drops the set (nothing
        outside the graph would take it)."""
        spare, self._spare = self._spare, None
        if _torch().cuda.is_current_stream_capturing():
            return None
        if spare is None or spare[0] != device:
            return None
        if stream is None:
            stream = _torch().cuda.current_stream(device).cuda_stream
        return spare[2] if spare[1] == stream else None

    def _prepare_fast(self, args, stream=None):
        """The common call -- torch CUDA tensors of the right dtypes and
        shapes, contiguous, 16-byte aligned, on one device; outputs made
        here -- checked a list at a time (a training step passes ~1000
        tensors). None when any check fails: _prepare then checks tensor by
        tensor and says which argument is wrong, and how."""
        plan = self._plan()
        torch = _torch()
        if len(args) != len(self.inputs):
            return None
        ts = [args[i] for i in plan.tensors] if plan.scalars else args
        try:
            if ([t.dtype for t in ts] != plan.dtypes
                    or [t.shape for t in ts] != plan.shapes
                    or not all([t.is_cuda and t.is_contiguous()
                                for t in ts])):
                return None
            ordinals = {t.get_device() for t in ts}
            ptrs = [t.data_ptr() for t in ts]
        except AttributeError:  # not torch tensors (DLPack objects)
            return None
        if len(ordinals) > 1 or any([p % _ALIGNMENT for p in ptrs]):
            return None
        if ts:
            device = ts[0].device
        else:
            device = torch.device("cuda", torch.cuda.current_device())
        keep = list(args)
        scalars = []
        if plan.scalars:
            slot = dict(zip(plan.tensors, ptrs))
            for i in plan.scalars:
                c = self._scalar(i, self.inputs[i], args[i])
                scalars.append(c)
                slot[i] = ctypes.addressof(c)
            ptrs = [slot[i] for i in range(len(args))]
            keep += scalars
        spare = self._take_spare(device, stream) if self._spare else None
        if spare is not None:
            outs = [args[alias] if alias is not None else made
                    for (alias, _, _), made in zip(plan.outputs, spare)]
        else:
            empty = torch.empty
            outs = [args[alias] if alias is not None else
                    empty(shape, dtype=dtype, device=device)
                    for alias, shape, dtype in plan.outputs]
        ptrs += [o.data_ptr() for o in outs]
        array = (ctypes.c_void_p * len(ptrs))(*ptrs)
        return array, keep, outs, device, scalars

    def _prepare(self, args, out, stream=None):
        """Validates the arguments; returns (pointer list, kept objects,
        output tensors, device, scalar slots)."""
        if out is None:
            fast = self._prepare_fast(args, stream)
            if fast is not None:
                return fast
        torch = _torch()
        if len(args) != len(self.inputs):
            raise ArgumentError("%s takes %d inputs (%s), got %d" % (
                self.name, len(self.inputs),
                ", ".join(a["name"] for a in self.inputs), len(args)))
        pointers = []
        keep = []
        scalars = []
        device = None
        for i, (spec, value) in enumerate(zip(self.inputs, args)):
            if spec["kind"] == "scalar":
                c = self._scalar(i, spec, value)
                keep.append(c)
                scalars.append(c)
                pointers.append(ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
                continue
            t = _as_tensor(value)
            self._check_tensor(i, spec, t, device)
            device = t.device
            keep.append(t)
            pointers.append(ctypes.c_void_p(t.data_ptr()))
        if device is None:
            device = torch.device("cuda", torch.cuda.current_device())
        by_name = {spec["name"]: t for spec, t in zip(self.inputs, keep)
                   if spec["kind"] != "scalar"}
        if out is None:
            # Outputs updated in place (AdamW) are their input tensors.
            outs = [keep[alias] if alias is not None else
                    torch.empty(shape, dtype=dtype, device=device)
                    for alias, shape, dtype in self._plan().outputs]
        else:
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(outs) != len(self.outputs):
                raise ArgumentError("%s has %d outputs, got %d in out=" % (
                    self.name, len(self.outputs), len(outs)))
            for j, (spec, t) in enumerate(zip(self.outputs, outs)):
                if "alias_of" in spec:
                    # Updated in place: the output is the input tensor.
                    if t is not None and t is not by_name[spec["alias_of"]]:
                        raise ArgumentError(
                            "%s: output %d is written in place into input %r;"
                            " pass None (or that tensor) for it" % (
                                self.name, j, spec["alias_of"]))
                    outs[j] = by_name[spec["alias_of"]]
                    continue
                self._check_tensor(len(self.inputs) + j, spec, t, device)
        pointers += [ctypes.c_void_p(t.data_ptr()) for t in outs]
        array = (ctypes.c_void_p * len(pointers))(*pointers)
        return array, keep, outs, device, scalars

    def _launch(self, array, device, stream):
        torch = _torch()
        if stream is None:
            stream = torch.cuda.current_stream(device).cuda_stream
        with torch.cuda.device(device):
            _check(runtime_library().sinter_rt_run(
                self._program._handle, self.name.encode(), array,
                len(array), ctypes.c_void_p(stream)))

    def __call__(self, *args, out=None, stream=None):
        array, keep, outs, device, _ = self._prepare(
            args, out, getattr(stream, "cuda_stream", stream))
        self._launch(array, device, stream)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def bind(self, *args, out=None):
        """Validates `args` once and returns a BoundCall that reruns the
        function on the same tensors with no per-call checks -- for a
        training loop, where an optimizer step sees the same parameter
        tensors every time (like a CUDA graph's static inputs)."""
        return BoundCall(self, *self._prepare(args, out))


class BoundCall:
    """A function bound to fixed tensors; scalars may change per call."""

    def __init__(self, function, array, keep, outs, device, scalars):
        self._function = function
        self._array = array
        self._keep = keep
        self._device = device
        self._scalars = scalars
        self.outputs = outs[0] if len(outs) == 1 else tuple(outs)

    def __call__(self, *scalars, stream=None):
        """Runs again; `scalars`, when given, replace the scalar inputs in
        order (e.g. the learning rate and step of an optimizer)."""
        if scalars:
            if len(scalars) != len(self._scalars):
                raise ArgumentError("%s has %d scalar inputs, got %d" % (
                    self._function.name, len(self._scalars), len(scalars)))
            specs = [(i, spec) for i, spec in enumerate(
                self._function.inputs) if spec["kind"] == "scalar"]
            for slot, (i, spec), value in zip(self._scalars, specs, scalars):
                slot.value = self._function._scalar(i, spec, value).value
        self._function._launch(self._array, self._device, stream)
        return self.outputs


class CudaProgram:
    """A loaded CUDA artifact."""

    def __init__(self, directory, device=0):
        self.directory = directory
        # Checked here too (the runtime checks everything again, the
        # launches and the cubin included), so that what this class reads
        # of the functions is well formed.
        self.manifest, _ = _manifest.read_manifest(directory)
        _manifest.check(self.manifest, "cuda_manifest",
                        os.path.join(directory, _manifest.MANIFEST_FILE))
        self.target = self.manifest["target"]
        handle = ctypes.c_void_p()
        _check(runtime_library().sinter_rt_load(directory.encode(), device,
                                                ctypes.byref(handle)),
               LoadError)
        self._handle = handle
        self.functions = {f["name"]: CudaFunction(self, f)
                          for f in self.manifest["functions"]}

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise FunctionNotFoundError(
                "no function %r in %s (it has: %s)" % (
                    name, self.directory, ", ".join(self.functions))) from None

    def run(self, name, *args, out=None, stream=None):
        """Runs function `name` on CUDA tensors; returns the output tensor
        (or a tuple). `out=` supplies preallocated outputs."""
        return self[name](*args, out=out, stream=stream)

    def library_counts(self):
        """How this program's library calls (cuBLASLt GEMMs) have run since
        it was loaded: {"library_calls": n, "fallback_launches": n,
        "last_fallback": why the last fallback kernel ran, or ""}."""
        lib = runtime_library()
        calls, fallbacks = ctypes.c_uint64(), ctypes.c_uint64()
        why = ctypes.c_char_p()
        _check(lib.sinter_rt_library_counts(self._handle, ctypes.byref(calls),
                                            ctypes.byref(fallbacks),
                                            ctypes.byref(why)))
        return {"library_calls": calls.value,
                "fallback_launches": fallbacks.value,
                "last_fallback": (why.value or b"").decode()}

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _lib is not None:
            _lib.sinter_rt_unload(handle)
            self._handle = None
