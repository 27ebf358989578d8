# Part of the Sinter project.
"""Compiled programs for the torch integration, cached in memory and on
disk.

The key of a program is the SHA-256 of the target and the IR text: the same
IR for the same chip is compiled once per machine (or once, anywhere, and
copied: a GPU node without the compiler loads what a build machine compiled
into the same cache directory). Beside each artifact, `compiled_by` names
the compiler's build (its version and a digest of its library); where the
compiler is present and its build differs, the program is compiled again. The directory is $SINTER_CACHE_DIR,
else ~/.cache/sinter. Processes sharing the directory (the ranks of a
distributed job) compile each program once: one compiles under a file
lock, the others wait and load it.
"""

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time

_programs = {}
log = logging.getLogger("sinter.torch")
_lock = threading.Lock()
_MANIFEST = "manifest.json"
_STAMP = "compiled_by"


def cache_dir():
    """Where compiled artifacts are kept ($SINTER_CACHE_DIR, else
    ~/.cache/sinter)."""
    return os.environ.get("SINTER_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "sinter")


def compiler_version():
    """The compiler's build, or None where there is no compiler."""
    try:
        from .. import _capi
        return _capi.build_id()
    except Exception:
        return None


def key_of(ir_text, target, fusion=False):
    h = hashlib.sha256()
    for part in (target, "fusion" if fusion else "", ir_text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _is_current(directory):
    """Whether `directory` holds an artifact this machine may use: one
    exists, and it was compiled by this compiler (any, without one)."""
    if not os.path.exists(os.path.join(directory, _MANIFEST)):
        return False
    version = compiler_version()
    if version is None:
        return True
    try:
        with open(os.path.join(directory, _STAMP)) as f:
            return f.read().strip() == version
    except OSError:
        return False


def _publish(final, fill, prefix):
    """Makes the directory `final` by `fill`ing a fresh directory beside it
    and renaming that into place (whatever was at `final` -- an older or
    incomplete artifact -- is replaced; another process may have done the
    same meanwhile: the first rename wins)."""
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        fill(tmp)
        if os.path.exists(final):
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:  # another process was first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _compile_into(ir_text, target, final, fusion=False):
    """Compiles into a fresh directory beside `final`, then renames it into
    place."""
    from .. import compile as sinter_compile
    from ..errors import LoadError

    def fill(tmp):
        try:
            sinter_compile(ir_text, target=target, fusion=fusion,
                           out_dir=tmp)
        except LoadError:
            # A CUDA artifact is not loadable by the CPU loader that
            # sinter.compile tries: it is written all the same.
            if not os.path.exists(os.path.join(tmp, _MANIFEST)):
                raise
        with open(os.path.join(tmp, _STAMP), "w") as f:
            f.write(compiler_version() or "")
    _publish(final, fill, ".compiling-")


@contextlib.contextmanager
def _exclusive(final):
    """Holds an exclusive lock on `final` across processes (an flock on
    `final`.lock): of several processes sharing a cache directory -- the
    ranks of a distributed job -- one compiles a program while the others
    wait for it and then load it, instead of each compiling its own."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    with open(final + ".lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _ensure_compiled(ir_text, target, final, fusion):
    """Compiles into `final` unless a current artifact is there (checked
    again under the lock); returns whether this process compiled it."""
    if _is_current(final):
        return False
    with _exclusive(final):
        if _is_current(final):  # another process compiled it meanwhile
            return False
        _compile_into(ir_text, target, final, fusion)
        return True


def precompile(ir_text, target, fusion=False):
    """Compiles `ir_text` for `target` into the cache without loading it
    (ahead of time, for a machine without the compiler)."""
    final = os.path.join(cache_dir(), key_of(ir_text, target, fusion))
    _ensure_compiled(ir_text, target, final, fusion)
    return final


def program(ir_text, target, fusion=False):
    """The loaded program of `ir_text` for `target` ('cpu' or
    'cuda:sm_90a'), compiled at most once per cache directory; `fusion`
    runs the fusion pipeline first (model graphs; the hooks' own IR is
    already made of sinter ops)."""
    key = (key_of(ir_text, target, fusion), target)
    with _lock:
        if key in _programs:
            return _programs[key]
        final = os.path.join(cache_dir(), key[0])
        t0 = time.time()
        try:
            compiled = _ensure_compiled(ir_text, target, final, fusion)
        except ImportError as e:
            raise RuntimeError(
                "sinter.torch: %s is not in the cache (%s) and the "
                "compiler is not available here (%s); compile it ahead "
                "of time on a machine with the compiler into the same "
                "SINTER_CACHE_DIR" % (key[0], cache_dir(), e)) from None
        if compiled:
            log.info("sinter: %s compiled for %s in %.2f s, kept in %s",
                     key[0], target, time.time() - t0, cache_dir())
        else:
            log.info("sinter: %s from the cache (%s)", key[0], cache_dir())
        if target == "cpu":
            from .. import load
            prog = load(final)
        else:
            from ..cuda import CudaProgram
            prog = CudaProgram(final)
        _programs[key] = prog
        return prog


def index_put(fx_key, ir_key):
    """Records that the FX graph of `fx_key` compiles to the artifact
    `ir_key` (so that a machine without torch-mlir finds it)."""
    directory = os.path.join(cache_dir(), "index")
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, ".%s.%d" % (fx_key, os.getpid()))
    with open(tmp, "w") as f:
        f.write(ir_key)
    os.replace(tmp, os.path.join(directory, fx_key))


def index_get(fx_key):
    try:
        with open(os.path.join(cache_dir(), "index", fx_key)) as f:
            return f.read().strip()
    except OSError:
        return None


def indexed_current(fx_key):
    """The artifact the index records for the FX graph of `fx_key`, when it
    is in the cache and current (compiled by this compiler); else None. A
    warm start loads it without importing the graph again."""
    ir_key = index_get(fx_key)
    if ir_key and _is_current(os.path.join(cache_dir(), ir_key)):
        return ir_key
    return None


def load_key(ir_key, target):
    """The loaded artifact `ir_key` of the cache (no compiler needed)."""
    with _lock:
        key = (ir_key, target)
        if key not in _programs:
            final = os.path.join(cache_dir(), ir_key)
            log.info("sinter: %s from the cache (%s)", ir_key, cache_dir())
            if target == "cpu":
                from .. import load
                _programs[key] = load(final)
            else:
                from ..cuda import CudaProgram
                _programs[key] = CudaProgram(final)
        return _programs[key]


def target_of(device):
    """The Sinter target of a torch device: 'cpu' or 'cuda:sm_XY' ('a' on
    sm_90, whose tuned kernels use the arch-specific features)."""
    import torch
    if device.type == "cpu":
        return "cpu"
    if device.type == "meta":
        return None
    if device.type != "cuda":
        raise ValueError("sinter.torch runs on CPU and CUDA tensors, not %s"
                         % device.type)
    major, minor = torch.cuda.get_device_capability(device)
    return "cuda:sm_%d%d%s" % (major, minor, "a" if major == 9 else "")


def artifact_files(ir_key):
    """The files of the cached artifact `ir_key`, {relative path: bytes}:
    what a saved compiled model carries so that it loads where the cache
    lacks it (precompile.py)."""
    root = os.path.join(cache_dir(), ir_key)
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    if _MANIFEST not in files:
        raise RuntimeError("sinter.torch: %s is not in the cache (%s)"
                           % (ir_key, cache_dir()))
    return files


def put_artifact(ir_key, files):
    """Writes an artifact carried by a saved compiled model into the cache
    unless one is there."""
    final = os.path.join(cache_dir(), ir_key)
    if os.path.exists(os.path.join(final, _MANIFEST)):
        return final

    def fill(tmp):
        for rel, data in files.items():
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    _publish(final, fill, ".unpacking-")
    return final
