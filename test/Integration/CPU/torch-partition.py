# What the forward saves for the backward (python/sinter/torch/_partition.py):
# a saved view chain (a transposed weight, attention heads permuted out of
# a fused QKV projection, alias(x) beside x) is saved as its base and
# replayed at the start of the backward graph. The forward returns no
# view, a base saved twice is read through one placeholder, and the
# gradients are eager's.
#
# REQUIRES: torch
# RUN: %python %s 2>&1 | FileCheck %s
# CHECK: default partition: saved views in the forward: {{[1-9]}}
# CHECK: saved views in the forward: 0
# CHECK: backward reads each base once: True
# CHECK: gradients match eager: True

import torch
from functorch.compile import aot_function, make_boxed_func

from sinter.torch._partition import partition, _VIEW_OPS

graphs = {}


def keep(kind):
    def compiler(gm, example_inputs):
        graphs[kind] = gm
        return make_boxed_func(gm.forward)
    return compiler


def block(x, w_qkv, w_o):
    B, T, C = x.shape
    qkv = x @ w_qkv.t()
    q, k, v = qkv.split(C, dim=2)
    q, k, v = (t.view(B, T, 2, C // 2).transpose(1, 2) for t in (q, k, v))
    att = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    y = (att @ v).transpose(1, 2).reshape(B, T, C)
    return (y @ w_o.t()).square().sum()


def saved_views(fw):
    out = next(n for n in fw.graph.nodes if n.op == "output")
    return sum(isinstance(o, torch.fx.Node) and o.target in _VIEW_OPS
               for o in out.args[0][1:])


torch.manual_seed(0)
g = aot_function(block, fw_compiler=keep("fw"), bw_compiler=keep("bw"))
g(*[torch.randn(a.shape, requires_grad=True) for a in
    (torch.empty(2, 8, 16), torch.empty(48, 16), torch.empty(16, 16))])
print("default partition: saved views in the forward:",
      saved_views(graphs["fw"]))
args = [torch.randn(2, 8, 16, requires_grad=True),
        torch.randn(48, 16, requires_grad=True),
        torch.randn(16, 16, requires_grad=True)]
ref = [a.detach().clone().requires_grad_() for a in args]
block(*ref).backward()
f = aot_function(block, fw_compiler=keep("fw"), bw_compiler=keep("bw"),
                 partition_fn=partition)
f(*args).backward()

fw_out = next(n for n in graphs["fw"].graph.nodes if n.op == "output")
print("saved views in the forward:", saved_views(graphs["fw"]))
# The backward's first inputs are the saved values, in the forward's order:
# the values its read placeholders receive are distinct.
bw_inputs = [n for n in graphs["bw"].graph.nodes if n.op == "placeholder"]
received = [o for o, p in zip(fw_out.args[0][1:], bw_inputs) if p.users]
print("backward reads each base once:",
      len(received) == len(set(received)))
print("gradients match eager:", all(
    torch.allclose(a.grad, r.grad, rtol=1e-5, atol=1e-5)
    for a, r in zip(args, ref)))
