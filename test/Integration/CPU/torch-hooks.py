# sinter.torch on the CPU: AdamW against torch.optim.AdamW (several steps,
# two parameter groups, state dicts both ways, the first step's programs
# compiled ahead on background threads), attention and its autograd
# against SDPA (causal both alignments, GQA, additive and boolean masks, the
# mask's gradient, dropout against the same Philox mask written out), and
# Hugging Face models running with attn_implementation="sinter" against
# "eager": logits and every parameter's gradient.
#
# REQUIRES: torch
# RUN: rm -rf %t.cache
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: adamw compiled ahead: ok
# CHECK: adamw capturable step tensors: ok
# CHECK: adamw capturable differing counts: ok
# CHECK: adamw capturable differing counts, second group: ok
# CHECK: ALL PASSED

import copy
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter.torch as st  # noqa: E402
from sinter.torch import _cache  # noqa: E402
from sinter.torch.optim import _program_ir  # noqa: E402

torch.manual_seed(0)


def close(name, got, want, tol):
    err = (got.double() - want.double()).abs().max().item()
    ok = err <= tol
    print("%s: %s (max err %.3g)" % (name, "ok" if ok else "FAIL", err))
    assert ok, name


# --------------------------------------------------------------------------
# AdamW
# --------------------------------------------------------------------------

def model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(17, 33), torch.nn.GELU(),
                               torch.nn.Linear(33, 5))


def groups(m):
    return [{"params": m[0].parameters(), "weight_decay": 0.1},
            {"params": m[2].parameters(), "lr": 3e-3, "betas": (0.8, 0.99),
             "eps": 1e-6, "weight_decay": 0.0}]


a, b = model(1), model(1)
oa = torch.optim.AdamW(groups(a), lr=1e-2)
ob = st.AdamW(groups(b), lr=1e-2)
# The first step's programs (one per group here) compile ahead, on
# background threads from the construction on; no state is made before
# the first step, as with torch's.
for thread in ob._compiling:
    thread.join()
ahead = [os.path.isdir(os.path.join(st.cache_dir(), _cache.key_of(
    _program_ir(g, list(g["params"]), False), "cpu")))
    for g in ob.param_groups]
print("adamw compiled ahead: %s (%d threads, %s)" % (
    "ok" if len(ob._compiling) == 2 and all(ahead) and not ob.state
    else "FAIL", len(ob._compiling), ahead))
x = torch.randn(64, 17)
for it in range(10):
    for m, o in ((a, oa), (b, ob)):
        o.zero_grad()
        m(x).square().mean().backward()
        o.step()
for i, (p, q) in enumerate(zip(a.parameters(), b.parameters())):
    close("adamw 10 steps param %d" % i, q, p, 2e-6)
# State dicts: Sinter's into torch's and back, continuing identically.
sd = ob.state_dict()
assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}, sd["state"][0]
c = model(1)
c.load_state_dict(b.state_dict())
oc = torch.optim.AdamW(groups(c), lr=1e-2)
oc.load_state_dict(copy.deepcopy(sd))  # loading shares tensors
d = model(1)
d.load_state_dict(a.state_dict())
od = st.AdamW(groups(d), lr=1e-2)
od.load_state_dict(copy.deepcopy(oa.state_dict()))
for m, o in ((b, ob), (c, oc), (d, od), (a, oa)):
    o.zero_grad()
    m(x).square().mean().backward()
    o.step()
for i, (p, q, r, s) in enumerate(zip(a.parameters(), b.parameters(),
                                     c.parameters(), d.parameters())):
    close("adamw state dict torch->sinter param %d" % i, s, p, 2e-6)
    close("adamw state dict sinter->torch param %d" % i, r, q, 2e-6)
# capturable=True: the step counts stay tensors on the parameters' device
# and the program reads them (a step<f32> tensor argument): against torch's
# capturable AdamW, from fresh state and from torch's state dict (its CPU
# counts moved to the parameters' device, as torch's loading does).
e, f = model(1), model(1)
e.load_state_dict(a.state_dict())
f.load_state_dict(a.state_dict())
oe = torch.optim.AdamW(groups(e), lr=1e-2, capturable=False)
of = st.AdamW(groups(f), lr=1e-2, capturable=True)
of.load_state_dict(copy.deepcopy(oa.state_dict()))
for g in of.param_groups:
    g["capturable"] = True  # (torch's state dict said False)
oe.load_state_dict(copy.deepcopy(oa.state_dict()))
for it in range(4):
    for m, o in ((e, oe), (f, of)):
        o.zero_grad()
        m(x).square().mean().backward()
        o.step()
steps = {float(s["step"]) for s in of.state.values()}
print("adamw capturable step tensors: %s" % (
    "ok" if steps == {15.0} and all(isinstance(s["step"], torch.Tensor)
                                   for s in of.state.values()) else
    "FAIL %s" % steps))
assert "%step_t: tensor<f32>" in _program_ir(of.param_groups[0],
                                            list(f[0].parameters()), False)
for i, (p, q) in enumerate(zip(e.parameters(), f.parameters())):
    close("adamw capturable 11 + 4 steps param %d" % i, q, p, 2e-6)
g0 = model(2)
og = st.AdamW(g0.parameters(), capturable=True)
g0(x).sum().backward()
og.step()
og.state[g0[0].weight]["step"] += 1  # counts of one program differ
try:
    og.load_state_dict(og.state_dict())
    og.step()
    raise AssertionError("differing capturable counts accepted")
except RuntimeError as err:
    print("adamw capturable differing counts: ok (%s)" % err)
# Each group's counts are checked (not only the first group's).
h = model(3)
oh = st.AdamW(groups(h), lr=1e-2, capturable=True)
h(x).sum().backward()
oh.step()
oh.state[h[2].weight]["step"] += 1  # the second group's counts differ
try:
    oh.load_state_dict(oh.state_dict())
    oh.step()
    raise AssertionError("differing capturable counts of group 1 accepted")
except RuntimeError as err:
    print("adamw capturable differing counts, second group: ok (%s)" % err)
try:
    st.AdamW(a.parameters(), amsgrad=True)
    raise AssertionError("amsgrad accepted")
except NotImplementedError as e:
    print("adamw amsgrad: ok (%s)" % e)


# --------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------

def sdpa_case(name, B, Hq, Hkv, Sq, Skv, D, causal=False, mask=None,
              mask_dtype=torch.float32, dtype=torch.float32, scale=None):
    q = torch.randn(B, Hq, Sq, D, dtype=dtype, requires_grad=True)
    k = torch.randn(B, Hkv, Skv, D, dtype=dtype, requires_grad=True)
    v = torch.randn(B, Hkv, Skv, D, dtype=dtype, requires_grad=True)
    m = None
    if mask is not None:
        if mask_dtype == torch.bool:
            m = torch.rand(mask) > 0.3
            m[..., 0] = True  # every row sees a key
        else:
            m = torch.randn(mask, dtype=mask_dtype, requires_grad=True)
    o = st.attention(q, k, v, attn_mask=m, is_causal=causal, scale=scale)
    g = torch.randn_like(o)
    wants = [q, k, v] + ([m] if m is not None and m.requires_grad else [])
    got = torch.autograd.grad(o, wants, g)
    # The reference: SDPA in float64 (causal aligned bottom-right, as
    # Sinter; SDPA's is_causal is top-left, so write the mask out).
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    m64 = None
    if m is not None:
        m64 = m.detach().clone()
        if m64.dtype != torch.bool:
            m64 = m64.double().requires_grad_(m.requires_grad)
    if causal:
        i = torch.arange(Sq)[:, None]
        j = torch.arange(Skv)[None, :]
        keep = j <= i + (Skv - Sq)
        cm = torch.zeros(Sq, Skv, dtype=torch.float64).masked_fill(
            ~keep, float("-inf"))
        m64 = cm if m64 is None else (
            m64 + cm if m64.dtype != torch.bool else
            torch.zeros_like(cm).masked_fill(~(m64 & keep), float("-inf")))
    ref = F.scaled_dot_product_attention(q64, k64, v64, attn_mask=m64,
                                         scale=scale, enable_gqa=Hq != Hkv)
    ref = torch.nan_to_num(ref)  # rows without keys: Sinter gives zeros
    want64 = [q64, k64, v64] + ([m64] if m is not None and m.requires_grad
                                else [])
    rgrads = torch.autograd.grad(ref, want64, g.double(), allow_unused=True)
    tol = 2e-5 if dtype == torch.float32 else 2e-2
    close(name + " out", o, ref, tol)
    for label, x_, r in zip(("dq", "dk", "dv", "dmask"), got, rgrads):
        close("%s %s" % (name, label), x_, torch.nan_to_num(r), 4 * tol)


sdpa_case("attention", 2, 4, 4, 33, 33, 64)
sdpa_case("attention causal GQA", 1, 8, 2, 65, 65, 64, causal=True)
sdpa_case("attention causal Sq<Skv", 1, 2, 2, 17, 40, 64, causal=True)
sdpa_case("attention mask grad", 1, 2, 1, 20, 31, 64, mask=(1, 1, 20, 31))
sdpa_case("attention bool mask", 2, 2, 2, 9, 24, 128,
          mask=(2, 1, 9, 24), mask_dtype=torch.bool)
sdpa_case("attention f16 scale", 1, 2, 2, 48, 48, 64, dtype=torch.float16,
          scale=0.2)

# Dropout: the seed comes from the generator; the same seed written out
# with the numpy Philox reference gives the same output and gradients.
gen = torch.Generator().manual_seed(1234)
q = torch.randn(1, 2, 30, 64, requires_grad=True)
k = torch.randn(1, 2, 30, 64, requires_grad=True)
v = torch.randn(1, 2, 30, 64, requires_grad=True)
o = st.attention(q, k, v, dropout_p=0.2, generator=gen)
seed = int(torch.randint(0, 2 ** 62, (), generator=torch.Generator()
                         .manual_seed(1234)))
keep = torch.from_numpy(refs.dropout_keep((1, 2, 30, 30), seed, 0.2))
p = torch.softmax(q.double() @ k.double().transpose(-1, -2) / 8.0, -1)
ref = (torch.where(keep, p / 0.8, torch.zeros_like(p)) @ v.double())
close("attention dropout out", o, ref, 2e-5)
g = torch.randn_like(o)
got = torch.autograd.grad(o, (q, k, v), g)
want = torch.autograd.grad(ref, (q, k, v), g.double())
for label, x_, r in zip(("dq", "dk", "dv"), got, want):
    close("attention dropout " + label, x_, r, 1e-4)
o_eval = st.attention(q, k, v, dropout_p=0.2, training=False)
close("attention dropout off in eval",
      o_eval, F.scaled_dot_product_attention(q, k, v), 2e-5)


# Bad arguments are said in SDPA's terms.
for label, call, text in (
        ("rank", lambda: st.attention(torch.zeros(2, 3, 4), q, v),
         "query must be a 4-d tensor"),
        ("heads", lambda: st.attention(torch.zeros(1, 3, 30, 64), k,
                                       torch.zeros(1, 2, 30, 64)),
         "3 query heads are not a multiple of 2"),
        ("mask", lambda: st.attention(q, k, v, attn_mask=torch.zeros(7, 30)),
         "does not broadcast"),
        ("dtype", lambda: st.attention(q.half(), k, v), "share one dtype")):
    try:
        call()
        raise AssertionError(label + " accepted")
    except ValueError as e:
        assert text in str(e), (label, str(e))
        print("attention rejects bad %s: ok (%s)" % (label, e))


# --------------------------------------------------------------------------
# Hugging Face models with attn_implementation="sinter"
# --------------------------------------------------------------------------

try:
    import transformers
except ImportError:
    transformers = None
if transformers is None:
    print("hf: skipped (no transformers)")
else:
    st.register_hf_attention()
    for name, cfg in (
            ("gpt2", transformers.GPT2Config(n_layer=2, n_embd=128, n_head=4,
                                             vocab_size=500, n_positions=64)),
            ("llama", transformers.LlamaConfig(
                num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
                num_key_value_heads=2, intermediate_size=256,
                vocab_size=500))):
        cls = transformers.AutoModelForCausalLM
        torch.manual_seed(0)
        # One config each: from_config records the implementation in the
        # config, which the model reads at every forward.
        ref_model = cls.from_config(copy.deepcopy(cfg),
                                    attn_implementation="eager")
        torch.manual_seed(0)
        model_s = cls.from_config(copy.deepcopy(cfg),
                                  attn_implementation="sinter")
        assert model_s.config._attn_implementation == "sinter"
        assert ref_model.config._attn_implementation == "eager"
        model_s.load_state_dict(ref_model.state_dict())
        ids = torch.randint(0, 500, (2, 48))
        outs = []
        for mdl in (ref_model, model_s):
            mdl.train()
            cfg_dropout = 0.0  # configs default to dropout; off to compare
            for mod in mdl.modules():
                if isinstance(mod, torch.nn.Dropout):
                    mod.p = cfg_dropout
            out = mdl(ids, labels=ids)
            out.loss.backward()
            outs.append((out.logits, {n: p.grad for n, p in
                                      mdl.named_parameters()}))
        close("hf %s logits" % name, outs[1][0], outs[0][0], 1e-4)
        worst = max((outs[1][1][n] - g).abs().max().item()
                    for n, g in outs[0][1].items())
        ok = worst <= 1e-4
        print("hf %s gradients of %d parameters: %s (max err %.3g)"
              % (name, len(outs[0][1]), "ok" if ok else "FAIL", worst))
        assert ok

print("ALL PASSED")
