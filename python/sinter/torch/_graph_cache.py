# Part of the Sinter project.
"""torch.compile(backend="sinter")'s warm start without AOTAutograd: what
AOTAutograd made of a Dynamo graph -- its forward and backward, their
runtime wrappers, Sinter's programs (_output_code.py) -- saved on disk by
the graph and loaded by the next process that traces the same graph.

Dynamo still traces in every process (its guards are its own, in memory);
AOTAutograd's joint trace, partition and Sinter's partitioning are
skipped. torch's own AOTAutograd cache cannot be used: its key leaves out
the backend (compilers, decompositions, partitioner), so an inductor entry
could be taken for Sinter's. This one is keyed by the graph's code and
constants, its inputs' metadata, the grad and autocast modes, torch's and
AOTAutograd's configuration, and Sinter's build and Python sources.
"""

import contextlib
import functools
import hashlib
import logging
import os
import shutil
import tempfile
import time

import torch
import torch._functorch.config as functorch_config

from . import _cache
from ._output_code import bundled, first_line, incomplete_count

log = logging.getLogger("sinter.torch")

# Where torch (inductor, AOTAutograd, Dynamo's profiles) keeps its caches.
_TORCH_CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
# What AOTAutograd is asked to do while it compiles a graph to be saved
# (as torch's ahead-of-time compile asks): bundle the compiled graphs into
# its result, and lower the backward at once.
_BUNDLE = {"bundled_autograd_cache": True, "force_autograd_cache": True,
           "bypass_autograd_cache_key": True,
           "force_non_lazy_backward_lowering": True}


@functools.lru_cache(maxsize=None)
def sources_digest():
    """A digest of sinter.torch's Python sources (how graphs are routed,
    partitioned and run), computed once per process."""
    h = hashlib.sha256()
    root = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            with open(os.path.join(root, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def tensor_meta(t):
    """What a tensor contributes to a key: its shape, strides, dtype,
    device, grad flag and whether it is a parameter."""
    return ("tensor", tuple(t.shape), tuple(t.stride()), str(t.dtype),
            str(t.device), t.requires_grad,
            isinstance(t, torch.nn.Parameter))


def has_dynamic_shapes(example_inputs):
    """Whether a graph's example inputs hold a symbolic size (Dynamo made
    the graph dynamic)."""
    return any(isinstance(v, torch.SymInt) or (
        isinstance(v, torch.Tensor) and any(
            isinstance(d, torch.SymInt) for d in v.shape))
        for v in example_inputs)


def trace_modes():
    """The global modes a trace depends on that Dynamo's guards do not
    check: grad mode and each device's autocast state."""
    modes = [torch.is_grad_enabled()]
    for device in ("cpu", "cuda"):
        enabled = torch.is_autocast_enabled(device)
        modes.append((device, enabled, str(torch.get_autocast_dtype(device))
                      if enabled else None))
    return tuple(modes)


@contextlib.contextmanager
def private_torch_cache():
    """torch's cache directory pointed at a temporary one while a graph is
    compiled to be saved: AOTAutograd writes each such compile into its
    own cache (under a random key when, as here, the graph has no stable
    one: megabytes per compile, never read), and no entry of another
    backend's there can be taken for Sinter's."""
    old = os.environ.get(_TORCH_CACHE_ENV)
    tmp = tempfile.mkdtemp(prefix="sinter-aot-")
    os.environ[_TORCH_CACHE_ENV] = tmp
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(_TORCH_CACHE_ENV, None)
        else:
            os.environ[_TORCH_CACHE_ENV] = old
        shutil.rmtree(tmp, ignore_errors=True)


def graph_key(gm, example_inputs):
    """The key of what AOTAutograd makes of `gm` for `example_inputs`, or
    None where the graph holds what a key cannot describe (a tensor
    constant, a submodule, a dynamic shape)."""
    h = hashlib.sha256()
    for node in gm.graph.nodes:
        if node.op in ("get_attr", "call_module"):
            return None
    if has_dynamic_shapes(example_inputs):
        return None
    parts = [torch.__version__, _cache.compiler_version() or "",
             sources_digest(), gm.code,
             [tensor_meta(v) if isinstance(v, torch.Tensor)
              else (type(v).__name__, repr(v)) for v in example_inputs],
             trace_modes(),
             sorted(functorch_config.save_config_portable().items(),
                    key=lambda kv: kv[0])]
    h.update(repr(parts).encode())
    return "graph-" + h.hexdigest()[:32]


def _path(key):
    return os.path.join(_cache.cache_dir(), "graphs", key + ".aot")


def load(key):
    """AOTAutograd's saved result for `key`, or None."""
    from torch._dynamo.aot_compile_types import \
        BundledAOTAutogradSerializableCallable as Bundled
    path = _path(key)
    if not os.path.exists(path):
        return None
    t0 = time.time()
    try:
        with open(path, "rb") as f:
            compiled = Bundled.deserialize_compile_artifacts(f.read())
    except Exception as e:  # noqa: BLE001 -- logged, compiled again
        log.warning("sinter: %s does not load (%s); compiling again", path,
                    first_line(e))
        return None
    log.info("sinter: Dynamo's graph loaded from %s in %.2f s (AOTAutograd "
             "skipped)", path, time.time() - t0)
    return compiled


def compile_and_save(key, compile_fn):
    """`compile_fn()` (AOTAutograd over the backend's compilers) with its
    result bundled, saved under `key`; a result that does not serialize
    is only logged."""
    before = incomplete_count()
    with functorch_config.patch(_BUNDLE), private_torch_cache():
        compiled = compile_fn()
    path = _path(key)
    try:
        wrapped = bundled(compiled)
        data = type(wrapped).serialize_compile_artifacts(wrapped)
        if incomplete_count() != before:  # the forward's, once compiled
            log.info("sinter: Dynamo's graph not saved: some of its "
                     "partitions run in torch (above)")
            return compiled
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except Exception as e:  # noqa: BLE001 -- logged, the graph still runs
        log.warning("sinter: Dynamo's graph compiled but not saved (%s)",
                    first_line(e))
    return compiled
