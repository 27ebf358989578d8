# Which outputs of a training forward's partition allocate the next call's
# outputs when the last of them dies (python/sinter/torch/_spare_outputs.py):
# those the forward graph returns only for the backward -- never a user
# output, nor a value returned both to the user and to the backward. An
# inference graph (no partition function ran) watches nothing. The token
# the watched tensors share dies with the last of them, not before. The
# CUDA side (CudaFunction.spare_outputs) runs in the GPU step benchmark.
#
# REQUIRES: torch
# RUN: %python %s 2>&1 | FileCheck %s
# CHECK: user outputs: 2
# CHECK: backward-only partition outputs: [0]
# CHECK: returned to the user too: False
# CHECK: watched program outputs: [1, 2]
# CHECK: none backward-only: []
# CHECK: also returned to the user: [1]
# CHECK: owner is the parameter: True
# CHECK: after the first dies: []
# CHECK: after the last dies: ['next outputs']
# CHECK: after the model dies: ['next outputs', 'next outputs', 'released']
# CHECK: after a late token dies: ['next outputs', 'next outputs', 'released']
# CHECK: inference graph: None
# CHECK: enabled by default: True
# CHECK: SINTER_TORCH_SPARE_OUTPUTS=0: False

import operator
import os

import torch
from functorch.compile import aot_function, make_boxed_func
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from sinter.torch import _spare_outputs as spare
from sinter.torch._partition import partition


class Everything:
    def is_node_supported(self, modules, node):
        return node.op == "call_function"


seen = {}


def forward_compiler(gm, example_inputs):
    users = spare.take_user_outputs()
    seen["users"] = users
    fused = CapabilityBasedPartitioner(
        gm, Everything(), allows_single_node_partition=True
    ).partition_and_fuse()
    (child, _), = fused.named_children()
    seen["fused"], seen["child"] = fused, child
    if users is not None:
        seen["only"] = spare.backward_only_outputs(fused, child, users)
    return make_boxed_func(gm.forward)


def f(x, w):
    y = torch.tanh(x @ w)  # saved for tanh's backward only
    return y.sum(), y * 2


g = aot_function(f, fw_compiler=forward_compiler,
                 bw_compiler=lambda gm, ex: make_boxed_func(gm.forward),
                 partition_fn=partition)
x = torch.randn(4, 5, requires_grad=True)
w = torch.randn(5, 3, requires_grad=True)
g(x, w)
print("user outputs:", seen["users"])
only = sorted(seen["only"])
print("backward-only partition outputs:", only)
fused, child = seen["fused"], seen["child"]
call = next(n for n in fused.graph.nodes if n.target == child)
returned = next(n for n in fused.graph.nodes if n.op == "output").args[0]
user_values = {v for v in returned[:seen["users"]]}
print("returned to the user too:", any(
    u in user_values for u in call.users
    if u.target is operator.getitem and u.args[1] in only))

# Program outputs 0..2 (the partition's outputs in order): the
# backward-only ones are watched; a program output that is also returned at
# a user position is not.
plan = [("out", 0), ("out", 1), ("out", 2)]
print("watched program outputs:", spare.watched_outputs(plan, {1, 2}))
print("none backward-only:", spare.watched_outputs(plan, set()))
print("also returned to the user:", spare.watched_outputs(
    [("out", 0), ("out", 2), ("out", 2), ("out", 1)], {2, 3}))


class Function:  # stands for a CudaFunction
    def __init__(self):
        self.made = []

    def spare_outputs(self, device):
        self.made.append("next outputs")

    def release_spare(self):
        self.made.append("released")


fn = Function()
a, b = torch.randn(3), torch.randn(5)
weight = torch.nn.Parameter(torch.randn(2))
owner = spare.owner_of([a, weight, b])
print("owner is the parameter:", owner is weight)
spare.watch(fn, [a, b], "cuda", owner)
del a
print("after the first dies:", fn.made)
del b
print("after the last dies:", fn.made)
# The next call's outputs watched again: one release per owner, not per call.
c = torch.randn(4)
spare.watch(fn, [c], "cuda", owner)
del c
late = torch.randn(4)
spare.watch(fn, [late], "cuda", owner)
del owner, weight
print("after the model dies:", fn.made)
# A call's saved tensors that outlive the model allocate nothing.
del late
print("after a late token dies:", fn.made)

# Without a backward (no_grad), AOTAutograd compiles an inference graph:
# no partition function runs and nothing is noted.
seen.clear()
with torch.no_grad():
    aot_function(f, fw_compiler=forward_compiler)(x, w)
print("inference graph:", seen["users"])
os.environ.pop("SINTER_TORCH_SPARE_OUTPUTS", None)
print("enabled by default:", spare.enabled())
os.environ["SINTER_TORCH_SPARE_OUTPUTS"] = "0"
print("SINTER_TORCH_SPARE_OUTPUTS=0:", spare.enabled())
