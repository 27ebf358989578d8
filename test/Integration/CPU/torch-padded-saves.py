# Saved GEMM products with misaligned rows saved padded
# (python/sinter/torch/_padded_saves.py, what CUDA partitions get): an
# lm_head over a 1001-word vocabulary (rows of 2002 bf16 bytes, 4004 f32)
# and its cross-entropy (Sinter's, which saves the logits). The forward saves the product padded to 16-byte
# rows (1008 bf16 or 1004 f32 columns) and reads a slice of it; the
# backward slices what it receives. Without the option the product is
# saved as computed. Losses and gradients are eager's.
#
# REQUIRES: torch
# RUN: %python %s 2>&1 | FileCheck %s
# CHECK: bfloat16 default: saved [256, 1001]
# CHECK: bfloat16 padded: saved [256, 1008], forward slices it: True, backward slices it: True
# CHECK: bfloat16 loss and gradients match eager: True
# CHECK: float32 default: saved [256, 1001]
# CHECK: float32 padded: saved [256, 1004], forward slices it: True, backward slices it: True
# CHECK: float32 loss and gradients match eager: True

import functools

import torch
import torch.nn.functional as F
from functorch.compile import aot_function, make_boxed_func

from sinter.torch._cross_entropy import cross_entropy
from sinter.torch._partition import partition

aten = torch.ops.aten
graphs = {}


def keep(kind):
    def compiler(gm, example_inputs):
        graphs[kind] = gm
        return make_boxed_func(gm.forward)
    return compiler


def lm_head_loss(x, w, target, ce=cross_entropy):
    # (Sinter's cross-entropy, which the backend routes F.cross_entropy
    # to, saves the logits themselves.)
    logits = x @ w.t()
    return ce(logits, target)


def saved_shapes(fw, bw):
    """Shapes of the saved values the backward reads."""
    out = next(n for n in fw.graph.nodes if n.op == "output").args[0]
    inputs = [n for n in bw.graph.nodes if n.op == "placeholder"]
    return [list(o.meta["val"].shape) for o, p in zip(out[1:], inputs)
            if p.users and isinstance(o, torch.fx.Node)
            and o.meta["val"].dim() == 2 and o.meta["val"].shape[1] > 1000]


def slices(gm):
    return any(n.target == aten.slice.Tensor for n in gm.graph.nodes)


torch.manual_seed(0)
for dtype in (torch.bfloat16, torch.float32):
    x = torch.randn(256, 64).to(dtype)
    w = (torch.randn(1001, 64) / 8).to(dtype)
    target = torch.randint(0, 1001, (256,))
    results = {}
    for padded in (False, True):
        args = [x.clone().requires_grad_(), w.clone().requires_grad_()]
        f = aot_function(lm_head_loss, fw_compiler=keep("fw"),
                         bw_compiler=keep("bw"),
                         partition_fn=functools.partial(
                             partition, pad_products=padded))
        loss = f(*args, target)
        loss.backward()
        results[padded] = [loss.detach()] + [a.grad for a in args]
        name = str(dtype).replace("torch.", "")
        shapes = saved_shapes(graphs["fw"], graphs["bw"])
        if padded:
            print("%s padded: saved %s, forward slices it: %s, backward "
                  "slices it: %s" % (name, shapes[0], slices(graphs["fw"]),
                                     slices(graphs["bw"])))
        else:
            print("%s default: saved %s" % (name, shapes[0]))
    ref = [x.clone().requires_grad_(), w.clone().requires_grad_()]
    ref_loss = lm_head_loss(*ref, target, ce=F.cross_entropy)
    ref_loss.backward()
    want = [ref_loss.detach()] + [a.grad for a in ref]
    tol = 2e-2 if dtype == torch.bfloat16 else 1e-5
    print("%s loss and gradients match eager: %s" % (
        str(dtype).replace("torch.", ""),
        all(torch.allclose(g.float(), r.float(), rtol=tol, atol=tol)
            for g, r in zip(results[True], want))))
