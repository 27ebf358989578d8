# Part of the Sinter project.
"""What the backend hands AOTAutograd for a forward or backward graph: an
OutputCode, the form torch 2.11's AOTAutograd can serialize with its
runtime wrappers (BundledAOTAutogradResult), so that a compiled model can
be saved whole -- Dynamo's guards and bytecode, AOTAutograd's autograd
function and Sinter's programs -- and loaded in another process without
tracing again (precompile.py). Pickling the graph pickles its Sinter
partitions as their artifacts' files (backend._Compiled)."""

import threading

import torch
from torch._inductor.output_code import OutputCode


class CompiledGraph(OutputCode):
    """A partitioned graph: Sinter's programs and the torch code around
    them, called with AOTAutograd's boxed convention (one list of
    arguments, which the call empties so that the inputs can be freed
    early). With `finish`, the programs are compiled and put into the
    graph by `finish` on a background thread, which the first call (and
    pickling) waits for: a forward's compile then overlaps AOTAutograd's
    work on the backward where it compiles the backward at once (ahead of
    time)."""

    def __init__(self, gm, finish=None):
        self.gm = gm
        self._thread = self._error = None
        if finish is not None:
            self._thread = threading.Thread(target=self._finish,
                                            args=(finish,), daemon=True)
            self._thread.start()
        # A pickled GraphModule is rebuilt by tracing its code with the
        # tracer that made it; make_fx's (an inference graph's) would run
        # the Sinter partitions instead of keeping them as calls. torch.fx's
        # own tracer keeps every submodule a leaf.
        for module in gm.modules():
            if isinstance(module, torch.fx.GraphModule):
                module._tracer_cls = None
        # An attribute of the instance: Dynamo wraps a backward in
        # torch._dynamo.disable, which copies the instance's __dict__ only.
        self._boxed_call = True

    def _finish(self, finish):
        try:
            finish()
        except BaseException as e:  # noqa: BLE001 -- raised by wait()
            self._error = e

    def wait(self):
        """Waits for the background compile (if any); raises what failed
        there."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error

    def __call__(self, args):
        if self._thread is not None:
            self.wait()
        values = list(args)
        args.clear()
        return self.gm(*values)

    def __getstate__(self):
        self.wait()
        return dict(self.__dict__)

    def prepare_for_serialization(self):
        """Waits for the programs; the graph and they pickle as they are."""
        self.wait()

    def post_compile(self, example_inputs, constants, graph_kwargs):
        """Nothing to redo on load: _Compiled loaded its program."""

    def set_triton_bundle(self, triton_bundle):
        """Sinter compiles no Triton kernels."""


def first_line(error):
    """An exception's first line for a log line (its type's name when it
    says nothing)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


_incomplete = [0]
_incomplete_lock = threading.Lock()


def mark_incomplete():
    """Records that a partition was left to torch by a failure (a missing
    artifact, an import or compile error) or by ahead-of-time mode: a
    graph compiled meanwhile must not be saved, or a later process would
    run that partition in torch too."""
    with _incomplete_lock:
        _incomplete[0] += 1


def incomplete_count():
    """How many partitions this process has left to torch (above)."""
    with _incomplete_lock:
        return _incomplete[0]


def bundled(compiled_fn):
    """AOTAutograd's compiled function, compiled with bundling on (torch's
    ahead-of-time compile, the graph cache), as the serializable callable
    torch saves and loads."""
    from torch._dynamo.aot_compile_types import \
        BundledAOTAutogradSerializableCallable
    return BundledAOTAutogradSerializableCallable(compiled_fn)
