# Part of the Sinter project.
"""The forward's saved-only outputs without a GPU: which outputs of a
partition the forward returns only for the backward (_saved_only_outputs,
on a real partitioned FX graph), and the one-allocation layout of them
(_SavedSlab: views of the right shapes and dtypes, 16-byte aligned, not
overlapping; None for the program's other outputs)."""

import operator

import torch

from sinter.torch.backend import _SavedSlab, _saved_only_outputs

# A forward graph as the partitioner leaves it: one submodule `fused_0`
# with three outputs; the forward returns the first as the user's output
# (position 0) and, past it, the second and the first again as saved.
g = torch.fx.Graph()
x = g.placeholder("x")
call = g.call_module("fused_0", (x,))
outs = [g.call_function(operator.getitem, (call, k)) for k in range(3)]
g.output((outs[0], outs[1], outs[0], outs[2]))
root = torch.nn.Module()
root.add_module("fused_0", torch.nn.Identity())
gm = torch.fx.GraphModule(root, g)
# Output 0 is also the user's: only 1 and 2 are saved-only.
print("saved only:", sorted(_saved_only_outputs(gm, "fused_0", 1)))
print("outside a forward:", sorted(_saved_only_outputs(gm, "fused_0", None)))


class Fn:  # the manifest's outputs, as CudaFunction has them
    outputs = [{"dtype": "bfloat16", "shape": [3, 5]},
               {"dtype": "float32", "shape": [7]},
               {"dtype": "bfloat16", "shape": [2, 2, 3]},
               {"dtype": "float32", "shape": []}]


slab = _SavedSlab(Fn, {0, 1, 2}, torch.device("cpu"))
made = slab.outputs()
print("made:", [None if t is None else (str(t.dtype), tuple(t.shape))
                for t in made])
views = [t for t in made if t is not None]
print("aligned:", all(t.data_ptr() % 16 == 0 for t in views),
      "contiguous:", all(t.is_contiguous() for t in views))
spans = sorted((t.data_ptr(), t.data_ptr() + t.numel() * t.element_size())
               for t in views if t.dtype == torch.bfloat16)
print("disjoint:", all(a[1] <= b[0] for a, b in zip(spans, spans[1:])))
print("one allocation per dtype:",
      len({t.untyped_storage().data_ptr() for t in views}) == 2)
