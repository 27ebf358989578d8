# F.cross_entropy under torch.compile(backend="sinter") becomes an autograd
# function that saves the logits and one log-sum-exp per row
# (python/sinter/torch/_cross_entropy.py): loss and logit gradient against a
# float64 reference, mean and sum, rows whose target is ignore_index, bf16
# logits; the forward graph saves no [N, C] f32 tensor but the logits.
# Calls it does not take (class weights, label smoothing, 'none') stay
# F.cross_entropy and still match.
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t.cache
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s 2>&1 | FileCheck %s
# CHECK: mean f32: routed True, loss ok, grad ok
# CHECK: sum f32 ignore_index: routed True, loss ok, grad ok
# CHECK: mean bf16: routed True, loss ok, grad ok
# CHECK: saves no f32 [N, C] tensor: True
# CHECK: label smoothing: routed False, loss ok, grad ok
# CHECK: class weights: routed False, loss ok, grad ok
# CHECK: reduction none: routed False, loss ok, grad ok

import torch
import torch.nn.functional as F

import sinter.torch  # noqa: F401  (backend="sinter")
from sinter.torch import _cross_entropy

routed_calls = []
original = _cross_entropy._CrossEntropy.apply


def counting_apply(*args):
    routed_calls.append(args[0].shape)
    return original(*args)


_cross_entropy._CrossEntropy.apply = counting_apply


def check(label, dtype=torch.float32, **kw):
    torch.manual_seed(0)
    n, c = 24, 301
    x = torch.randn(n, c, dtype=torch.float64) * 3
    t = torch.randint(0, c, (n,))
    t[3] = t[7] = -100
    if kw.get("weight") is not None:
        kw["weight"] = kw["weight"].to(dtype)
    x_in = x.to(dtype).requires_grad_()
    ref_x = x_in.detach().double().requires_grad_()
    ref_kw = dict(kw)
    if ref_kw.get("weight") is not None:
        ref_kw["weight"] = ref_kw["weight"].double()
    ref = F.cross_entropy(ref_x, t, **ref_kw)
    ref.sum().backward()

    def f(x, t):
        return F.cross_entropy(x, t, **kw)
    routed_calls.clear()
    out = torch.compile(f, backend="sinter", dynamic=False)(x_in, t)
    out.sum().backward()
    torch._dynamo.reset()
    tol = 1e-5 if dtype == torch.float32 else 2e-2
    loss_ok = torch.allclose(out.double(), ref.detach(), rtol=tol, atol=tol)
    grad_ok = torch.allclose(x_in.grad.double(), ref_x.grad, rtol=tol,
                             atol=tol * ref_x.grad.abs().max().item())
    print("%s: routed %s, loss %s, grad %s" % (
        label, bool(routed_calls), "ok" if loss_ok else "FAIL",
        "ok" if grad_ok else "FAIL"))


check("mean f32")
check("sum f32 ignore_index", reduction="sum")
check("mean bf16", dtype=torch.bfloat16)

# What the forward saves: with AOTAutograd's own differentiation, the f32
# log-softmax [N, C] it computed; here the only [N, C] value saved is the
# logits, an input of the forward graph.
saved = []


def keep_forward(gm, example_inputs):
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    saved.extend(o for o in out[1:] if isinstance(o, torch.fx.Node))
    return make_boxed_func(gm.forward)


from functorch.compile import aot_function, make_boxed_func  # noqa: E402

x = torch.randn(8, 50, requires_grad=True)
t = torch.randint(0, 50, (8,))
aot_function(lambda x, t: _cross_entropy.cross_entropy(x, t),
             fw_compiler=keep_forward,
             bw_compiler=lambda gm, ex: make_boxed_func(gm.forward))(
                 x, t).backward()
wide = [n for n in saved if tuple(n.meta["val"].shape) == (8, 50)]
print("saves no f32 [N, C] tensor:",
      len(wide) == 1 and wide[0].op == "placeholder")

check("label smoothing", label_smoothing=0.1)
check("class weights", weight=torch.rand(301) + 0.5)
check("reduction none", reduction="none")
