# Attention written by hand under torch.compile(backend="sinter"): the
# backend raises q @ k^T (times or divided by a constant), an optional
# masked_fill(-inf) or additive mask, softmax and @ v to Sinter's attention
# before AOTAutograd traces, so the forward saves O and the logsumexp and
# the backward graph calls Sinter's attention backward instead of keeping
# the S x S probabilities. Outputs and gradients match eager; a model that
# also returns its attention weights keeps its graph (and still matches).
# Hugging Face's GPT-2 and Llama (GQA: the K and V that repeat_kv copied
# reach Sinter's attention with their 2 heads; softmax in f32 then
# .to(q.dtype)) with attn_implementation="eager" (scale, additive
# mask, softmax, a cast, dropout p=0, @ v) are raised too.
#
# REQUIRES: torch, torch_mlir, transformers
# RUN: rm -rf %t.cache
# (The compile logs are read: graphs are not loaded from the graph cache.)
# RUN: env SINTER_CACHE_DIR=%t.cache SINTER_TORCH_GRAPH_CACHE=0 %python %s 2>&1 | FileCheck %s

# CHECK: masked_fill, *: raised 1, attention backward in backward graph: True, matches eager: True
# CHECK: masked_fill, /: raised 1, attention backward in backward graph: True, matches eager: True
# CHECK: additive, *: raised 1, attention backward in backward graph: True, matches eager: True
# CHECK: unmasked, /: raised 1, attention backward in backward graph: True, matches eager: True
# CHECK: returns weights: raised 0, attention backward in backward graph: False, matches eager: True
# CHECK: HF GPT-2 eager attention: raised 2, attention backward in backward graph: True, matches eager: True
# CHECK: HF Llama eager attention: raised 2, attention backward in backward graph: True, matches eager: True

import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import sinter.torch  # noqa: F401  (backend="sinter")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402


class Attention(nn.Module):
    """nanoGPT's attention block, with the variants models write."""

    def __init__(self, mask, scale_op, weights=False, d=64, h=4, T=16):
        super().__init__()
        self.h, self.mask, self.scale_op, self.weights = h, mask, scale_op, \
            weights
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(
            1, 1, T, T))
        self.register_buffer("additive", torch.zeros(T, T).masked_fill(
            torch.ones(T, T).triu(1).bool(), float("-inf")))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2)
                   for t in (q, k, v))
        if self.scale_op == "*":
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        if self.mask == "masked_fill":
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        elif self.mask == "additive":
            att = att + self.additive[:T, :T]
        att = F.softmax(att, dim=-1)
        y = att @ v
        out = self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return (out, att) if self.weights else out


def hf_model(kind):
    import transformers
    if kind == "gpt2":
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
            n_layer=2, n_embd=64, n_head=4, n_positions=32, vocab_size=128,
            attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0))
    else:
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
            num_hidden_layers=2, hidden_size=64, intermediate_size=128,
            num_attention_heads=4, num_key_value_heads=2, vocab_size=128,
            max_position_embeddings=64))
    model.config._attn_implementation = "eager"
    tokens = torch.randint(0, 128, (2, 16))
    return model, tokens, lambda m, x: m(x, labels=x).loss


def check(label, **kw):
    torch.manual_seed(0)
    hf = kw.pop("hf", None)
    if hf:
        model, x, loss_of = hf_model(hf)
    else:
        model, x = Attention(**kw), torch.randn(2, 16, 64)

        def loss_of(m, x):
            out = m(x)
            return (out[0] if kw.get("weights") else out).square().sum()
    loss_of(model, x).backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    with refs.LogLines() as lines:
        out = loss_of(torch.compile(model, backend="sinter", dynamic=False),
                      x)
        ref = loss_of(model, x).detach()
        out.backward()
    torch._dynamo.reset()
    raised = sum(int(l.split()[1]) for l in lines.lines
                 if "hand-written attention(s) raised" in l)
    in_backward = any("backward graph" in l and "attention_backward" in l
                      for l in lines.lines)
    ok = torch.allclose(out, ref, atol=1e-5) and all(
        torch.allclose(p.grad, want[n], atol=1e-4)
        for n, p in model.named_parameters())
    print("%s: raised %d, attention backward in backward graph: %s, matches "
          "eager: %s" % (label, raised, in_backward, ok))


check("masked_fill, *", mask="masked_fill", scale_op="*")
check("masked_fill, /", mask="masked_fill", scale_op="/")
check("additive, *", mask="additive", scale_op="*")
check("unmasked, /", mask=None, scale_op="/")
check("returns weights", mask="masked_fill", scale_op="*", weights=True)
check("HF GPT-2 eager attention", hf="gpt2")
check("HF Llama eager attention", hf="llama")
