# Part of the Sinter project.
"""What the backend hands AOTAutograd for a forward or backward graph: an
OutputCode, the form torch 2.11's AOTAutograd can serialize with its
runtime wrappers (BundledAOTAutogradResult), so that a compiled model can
be saved whole -- Dynamo's guards and bytecode, AOTAutograd's autograd
function and Sinter's programs -- and loaded in another process without
tracing again (precompile.py). Pickling the graph pickles its Sinter
partitions as their artifacts' files (backend._Compiled)."""

import torch
from torch._inductor.output_code import OutputCode


class CompiledGraph(OutputCode):
    """A partitioned graph: Sinter's programs and the torch code around
    them, called with AOTAutograd's boxed convention (one list of
    arguments, which the call empties so that the inputs can be freed
    early)."""

    def __init__(self, gm):
        self.gm = gm
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

    def __call__(self, args):
        values = list(args)
        args.clear()
        return self.gm(*values)

    def prepare_for_serialization(self):
        """Nothing to drop: the graph and its programs pickle as they are."""

    def post_compile(self, example_inputs, constants, graph_kwargs):
        """Nothing to redo on load: _Compiled loaded its program."""

    def set_triton_bundle(self, triton_bundle):
        """Sinter compiles no Triton kernels."""


def serializable(compiled_fn):
    """AOTAutograd's compiled function, wrapped for torch's ahead-of-time
    compile (which sets bundled_autograd_cache while it traces) as the
    serializable callable it expects from an AOTAutograd backend; as it is
    otherwise."""
    if not torch._functorch.config.bundled_autograd_cache:
        return compiled_fn
    from torch._dynamo.aot_compile_types import \
        BundledAOTAutogradSerializableCallable
    return BundledAOTAutogradSerializableCallable(compiled_fn)
