# Part of the Sinter project.
"""sinter.torch.compile(model): torch.compile(model, backend="sinter") whose
compiled forward is saved whole and loaded by the next process.

A second process of torch.compile(backend="sinter") finds Sinter's programs
in the cache, but Dynamo still traces the model and AOTAutograd still
derives and partitions its joint graph: ~3-4 s for GPT-2 before the first
step, against 0.05 s to load what they made. This wrapper compiles each
call signature's forward with torch 2.11's ahead-of-time compile (one full
graph: Dynamo's guards and bytecode, AOTAutograd's autograd function and
Sinter's programs, which pickle as their artifacts' files), saves it in
the cache directory, and loads it on the next process's first call:

    model = sinter.torch.compile(model)     # not yet compiled
    loss = model(idx, targets)              # loads, or compiles and saves

A saved forward is found by the model's class, its parameters' and the
call's tensors' shapes, dtypes and devices, the grad and autocast modes,
the modules' training flags, torch's version and Sinter's build and Python
sources. Before a saved one runs, the source of every function Dynamo
traced is checked against what was traced, and Dynamo's guards against the
call: if either differs it is compiled again (and logged). A model that
does not trace as one graph (a graph break) falls back to
torch.compile(backend="sinter"), with a log line saying why.
"""

import hashlib
import importlib
import inspect
import logging
import os
import re
import time

import torch

from . import _cache
from ._graph_cache import (private_torch_cache, sources_digest,
                           tensor_meta, trace_modes)
from ._output_code import first_line, incomplete_count

log = logging.getLogger("sinter.torch")

# How torch's AOTCompiledFunction says that its guards failed on a call.
_GUARDS_FAILED = "GuardManager check failed"
# Saved forwards kept per call signature (for different guards).
_VARIANTS = 8


def compile(model, cache_dir=None):  # noqa: A001 -- torch.compile's name
    """`model` (a torch.nn.Module) compiled by Sinter, its compiled forward
    saved in `cache_dir` (default: the programs' cache directory, `models`
    below it) and loaded from there by later processes."""
    return PrecompiledModule(model, cache_dir)


class PrecompiledModule(torch.nn.Module):
    """What sinter.torch.compile returns: calls the model's saved compiled
    forward for each call signature. Its parameters and state dict are the
    model's (under `_orig_mod.`, as torch.compile's OptimizedModule)."""

    def __init__(self, model, cache_dir=None):
        super().__init__()
        self._orig_mod = model
        self._cache_dir = cache_dir
        self._functions = {}

    def forward(self, *args, **kwargs):
        # Per call, what can change between calls of one model: the
        # arguments, the modes, the training flags (the parameters' shapes
        # are in the saved file's name and its guards, checked per call).
        call = (_value_meta(args), _value_meta(kwargs), trace_modes(),
                tuple(m.training for m in self._orig_mod.modules()))
        fns = self._functions.setdefault(call, [])
        failed = None
        for i, fn in enumerate(fns):
            try:
                out = fn(*args, **kwargs)
            except RuntimeError as e:
                # Dynamo's guards, checked before anything runs, failed on
                # what `call` does not see (an attribute the forward
                # reads): another compiled forward may be the one.
                if not str(e).startswith(_GUARDS_FAILED):
                    raise
                failed = e
                continue
            if i:
                fns.insert(0, fns.pop(i))  # the last used first
            return out
        if failed is not None:
            log.info("sinter: %s.forward: the guards of its compiled "
                     "forward fail on this call (%s)",
                     type(self._orig_mod).__qualname__, _failed_guard(failed))
        key = signature_key(self._orig_mod, args, kwargs)
        fns.insert(0, self._prepare(key, args, kwargs))
        return fns[0](*args, **kwargs)

    def _paths(self, key):
        """The files that may hold a signature's forward: one per set of
        guards it was compiled for (values the forward read, which the
        key does not see), at most _VARIANTS."""
        base = os.path.join(self._cache_dir or os.path.join(
            _cache.cache_dir(), "models"), key)
        return [base + ".pt2"] + ["%s.%d.pt2" % (base, i)
                                  for i in range(1, _VARIANTS)]

    def _prepare(self, key, args, kwargs):
        """The callable for one signature: a saved one valid for this call,
        else a new compile (saved for the next process)."""
        model = self._orig_mod
        name = type(model).__qualname__
        paths = self._paths(key)
        for path in paths:
            loaded = _load(path, name, model, args, kwargs)
            if loaded is not None:
                return lambda *a, **k: loaded(model, *a, **k)
        # The first free file (all taken: the first is replaced).
        path = next((p for p in paths if not os.path.exists(p)), paths[0])
        t0 = time.time()
        before = incomplete_count()
        try:
            compiled = _aot_compile(model, args, kwargs)
        except Exception as e:  # noqa: BLE001 -- logged, model still runs
            log.warning("sinter: %s.forward does not compile as one graph "
                        "ahead of time (%s); using torch.compile(backend="
                        "\"sinter\"), which traces in every process", name,
                        first_line(e))
            return torch.compile(model, backend="sinter", dynamic=False)
        if _save(compiled, path, name, before):
            log.info("sinter: %s.forward compiled in %.2f s, saved to %s",
                     name, time.time() - t0, path)
        return lambda *a, **k: compiled(model, *a, **k)


def _failed_guard(error):
    """The guard that failed, from the error of torch's
    AOTCompiledFunction ("L['self'].temperature == 1.0")."""
    text = str(error)
    match = re.search(r"verbose_code_parts=\[\s*([\"'])(.*?)\s*(#|\1)", text)
    return match.group(2) if match else " ".join(text.split())[:160]


def _value_meta(value):
    """What a call's argument contributes to its signature: a tensor its
    metadata, a container its elements', anything else its repr."""
    if isinstance(value, torch.Tensor):
        return tensor_meta(value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_value_meta(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _value_meta(v)) for k, v in sorted(value.items()))
    return repr(value)


def signature_key(model, args, kwargs):
    """The file name of the saved forward for this call of `model`."""
    cls = type(model)
    parts = [cls.__module__, cls.__qualname__, torch.__version__,
             _cache.compiler_version() or "", sources_digest(),
             _value_meta(args),
             _value_meta(kwargs), trace_modes(),
             tuple(m.training for m in model.modules())]
    parts += [(n, tensor_meta(t)) for n, t in model.named_parameters()]
    parts += [(n, tensor_meta(t)) for n, t in model.named_buffers()]
    for t in list(args) + list(kwargs.values()):
        if isinstance(t, torch.Tensor) and t.is_cuda:
            parts.append(torch.cuda.get_device_capability(t.device))
    h = hashlib.sha256(repr(parts).encode())
    return "%s-%s" % (cls.__qualname__, h.hexdigest()[:24])


def _aot_compile(model, args, kwargs):
    """The model's forward compiled by Sinter as one graph, ahead of time
    (torch 2.11: experimental, behind enable_aot_compile)."""
    from .backend import sinter_backend
    # torch 2.11 saves a parameter's .grad in the guards' state as a
    # placeholder that does not load ("assigned grad expected to be a
    # Tensor"): the gradients are put aside while the forward is traced.
    grads = {p: p.grad for p in model.parameters() if p.grad is not None}
    try:
        for p in grads:
            p.grad = None
        with torch._dynamo.config.patch(enable_aot_compile=True), \
                private_torch_cache():
            traced = torch.compile(model.forward, fullgraph=True,
                                   backend=sinter_backend, dynamic=False)
            return traced.aot_compile((args, kwargs))
    finally:
        for p, g in grads.items():
            p.grad = g


def _save(compiled, path, name, before):
    """Writes the compiled forward beside `path`, then renames it into
    place; returns whether it did. A forward that does not serialize, or
    one with partitions left to torch by a failure since `before`
    (incomplete_count), is only logged: it runs, the next process
    compiles again."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    try:
        compiled.save_compiled_function(tmp)  # waits for the programs
        if incomplete_count() != before:
            raise RuntimeError("some of its partitions run in torch (above)")
        os.replace(tmp, path)
        return True
    except Exception as e:  # noqa: BLE001 -- logged, model still runs
        if os.path.exists(tmp):
            os.remove(tmp)
        log.warning("sinter: %s.forward compiled but not saved (%s)", name,
                    first_line(e))
        return False


def _changed_source(compiled):
    """The first traced function whose source is no longer what Dynamo
    traced ("module:line"), or None."""
    from torch._dynamo.package import _hash_source
    for src in sorted(compiled.source_info().inlined_sources,
                      key=lambda s: (s.module, s.firstlineno)):
        try:
            lines = inspect.getsourcelines(importlib.import_module(
                src.module))[0][src.firstlineno - 1:src.lastlineno - 1]
        except (ImportError, OSError, TypeError):
            return "%s:%d" % (src.module, src.firstlineno)
        if _hash_source("".join(lines)) != src.checksum:
            return "%s:%d" % (src.module, src.firstlineno)
    return None


def _load(path, name, model, args, kwargs):
    """The saved forward at `path` when there is one and it is valid for
    this call: traced from today's source, its guards passing; else None
    (logged when one was there)."""
    if not os.path.exists(path):
        return None
    t0 = time.time()
    try:
        with open(path, "rb") as f:
            compiled = torch.compiler.load_compiled_function(f)
    except Exception as e:  # noqa: BLE001 -- logged, compiled again
        log.warning("sinter: %s does not load (%s); compiling again", path,
                    first_line(e))
        return None
    changed = _changed_source(compiled)
    if changed is not None:
        log.info("sinter: %s.forward: the source of %s changed since %s "
                 "was saved; compiling again", name, changed, path)
        return None
    try:
        guards_pass = compiled.guard_check(model, *args, **kwargs)
    except Exception:  # noqa: BLE001 -- e.g. an attribute gone
        guards_pass = False
    if not guards_pass:
        log.info("sinter: %s.forward: %s was saved for other values of "
                 "what its guards check", name, path)
        return None
    log.info("sinter: %s.forward loaded from %s in %.2f s", name, path,
             time.time() - t0)
    return compiled
