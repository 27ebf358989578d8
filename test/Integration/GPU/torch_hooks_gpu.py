# Part of the Sinter project.
"""sinter.torch on CUDA, ahead of time: `build CACHE` compiles here (the
compiler, no GPU) the programs that `check CACHE` then loads from the cache
on the GPU machine (no compiler) -- the deployment the on-disk cache is
for. Checks AdamW in place against torch.optim.AdamW, attention and its
backward against float64 SDPA, and a Hugging Face GPT-2 training step with
attn_implementation="sinter" against "sdpa"; the capturable AdamW captured
into a CUDA graph and replayed against torch's capturable AdamW.

    python3 torch_hooks_gpu.py build CACHE     # here
    python3 torch_hooks_gpu.py check CACHE     # on the GPU
"""

import copy
import os
import sys

import torch

TARGET = "cuda:sm_90a"
# AdamW over these parameter shapes (f32 and bf16), attention cases.
ADAMW = [((1000,), (17, 33), (4096,)), ]
ATTN = [  # B, Hq, Hkv, Sq, Skv, D, dtype, causal, mask
    (2, 8, 2, 256, 256, 64, torch.bfloat16, True, None),
    (1, 4, 4, 113, 127, 128, torch.float16, False, (1, 1, 113, 127)),
]


# A library-call matmul (cuBLASLt) captured into a CUDA graph on a stream
# it has not run on: the runtime allocates that stream's workspace during
# the capture (outside it: cuMemAlloc would invalidate a global capture).
GEMM_IR = """func.func @main(%a: tensor<256x512xbf16>, %b: tensor<512x384xbf16>)
    -> tensor<256x384xbf16> {
  %e = tensor.empty() : tensor<256x384xbf16>
  %z = arith.constant 0.0 : bf16
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<256x384xbf16>)
      -> tensor<256x384xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<256x512xbf16>, tensor<512x384xbf16>)
      outs(%f : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}
"""


def adamw_types(shapes, dtype):
    from sinter.torch._tensors import tensor_type
    return [tensor_type(torch.empty(s, dtype=dtype, device="meta"))
            for s in shapes]


def attn_tensors(case, device):
    B, Hq, Hkv, Sq, Skv, D, dt, causal, mask = case
    g = torch.Generator(device=device if device != "meta" else "cpu")
    mk = (lambda *s: torch.empty(*s, dtype=dt, device="meta")) \
        if device == "meta" else \
        (lambda *s: torch.randn(*s, generator=g.manual_seed(len(s) + sum(s)),
                                device=device).to(dt))
    q, k, v = mk(B, Hq, Sq, D), mk(B, Hkv, Skv, D), mk(B, Hkv, Skv, D)
    m = mk(*mask) if mask else None
    return q, k, v, m, causal


def build(cache):
    os.environ["SINTER_CACHE_DIR"] = cache
    import sinter.torch as st  # noqa: F401
    from sinter.torch import _cache
    from sinter.torch.optim import adamw_ir
    att = sys.modules["sinter.torch.attention"]
    for shapes in ADAMW:
        for dtype in (torch.float32, torch.bfloat16):
            for capturable in (False, True):
                print(_cache.precompile(adamw_ir(
                    adamw_types(shapes, dtype), 0.9, 0.999, 1e-8, 0.01,
                    capturable), TARGET))
    print(_cache.precompile(GEMM_IR, TARGET))
    for case in ATTN:
        q, k, v, m, causal = attn_tensors(case, "meta")
        for mask_grad in ((False, True) if m is not None else (False,)):
            print(_cache.precompile(att.attention_ir(
                q, k, v, m, causal, None, 0.0, mask_grad), TARGET))
    # The tiny GPT-2: its attention calls, traced on meta tensors.
    import transformers
    cfg = gpt2_config()
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(
            copy.deepcopy(cfg), attn_implementation="sdpa")
    H, D = cfg.n_head, cfg.n_embd // cfg.n_head
    qm = torch.empty(4, H, 128, D, dtype=torch.float32, device="meta")
    # GPT-2 passes its scaling (1/sqrt(D)) explicitly and no mask.
    print(_cache.precompile(att.attention_ir(qm, qm, qm, None, True,
                                             D ** -0.5, 0.0, False), TARGET))
    n = len([p for p in model.parameters()])
    shapes = [tuple(p.shape) for p in model.parameters()]
    for i in range(0, n, 64):
        print(_cache.precompile(adamw_ir(adamw_types(shapes[i:i + 64],
                                                     torch.float32),
                                         0.9, 0.999, 1e-8, 0.01), TARGET))


def gpt2_config():
    import transformers
    return transformers.GPT2Config(n_layer=2, n_embd=256, n_head=4,
                                   vocab_size=1000, n_positions=128,
                                   resid_pdrop=0.0, embd_pdrop=0.0,
                                   attn_pdrop=0.0)


def close(name, got, want, tol):
    err = (got.double() - want.double()).abs().max().item()
    ok = err <= tol
    print("%s %-52s max err %.3g (bound %.3g)" % ("PASS" if ok else "FAIL",
                                                  name, err, tol))
    return ok


def check_adamw(st, dev):
    """AdamW in place, two steps, against torch.optim.AdamW."""
    ok = True
    for shapes in ADAMW:
        for dtype in (torch.float32, torch.bfloat16):
            torch.manual_seed(0)
            ps = [torch.randn(s, device=dev).to(dtype) for s in shapes]
            qs = [p.clone() for p in ps]
            pa = [torch.nn.Parameter(p) for p in ps]
            pb = [torch.nn.Parameter(p) for p in qs]
            oa = torch.optim.AdamW(pa, foreach=False)
            ob = st.AdamW(pb)
            for it in range(2):
                for p, q in zip(pa, pb):
                    g = torch.randn_like(p)
                    p.grad, q.grad = g, g.clone()
                oa.step()
                ob.step()
            tol = 1e-6 if dtype == torch.float32 else 2e-2
            for i, (p, q) in enumerate(zip(pa, pb)):
                ok &= close("adamw %s param %d" % (str(dtype)[6:], i), q, p,
                            tol)
    return ok


def check_capturable_adamw(st, dev):
    """The capturable AdamW captured into a CUDA graph and replayed."""
    ok = True
    # The capturable AdamW: two steps outside a graph, then one captured and
    # replayed four times, gradients rewritten in place between replays,
    # against torch's capturable AdamW stepping alike.
    for shapes in ADAMW:
        torch.manual_seed(0)
        pa = [torch.nn.Parameter(torch.randn(s, device=dev)) for s in shapes]
        pb = [torch.nn.Parameter(p.detach().clone()) for p in pa]
        grads = [torch.zeros_like(p) for p in pa]
        for p, q, g in zip(pa, pb, grads):
            p.grad, q.grad = g, g.clone()
        oa = torch.optim.AdamW(pa, lr=1e-2, capturable=True, foreach=False)
        ob = st.AdamW(pb, lr=1e-2, capturable=True)

        def new_gradients():
            for g, p, q in zip(grads, pa, pb):
                g.normal_()
                p.grad.copy_(g)
                q.grad.copy_(g)
        for it in range(2):
            new_gradients()
            oa.step()
            ob.step()
        graph = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            with torch.cuda.graph(graph):
                ob.step()
        torch.cuda.current_stream().wait_stream(side)
        for it in range(4):
            new_gradients()
            oa.step()
            graph.replay()
        torch.cuda.synchronize()
        steps = {float(ob.state[q]["step"]) for q in pb}
        ok &= close("adamw capturable, graph replays: steps %s" % sorted(
            steps), torch.tensor(float(steps == {6.0})), torch.tensor(1.0),
            0)
        for i, (p, q) in enumerate(zip(pa, pb)):
            ok &= close("adamw capturable, graph replays: param %d" % i, q,
                        p, 1e-6)
    return ok


def check_gemm_capture(dev):
    """A cuBLASLt GEMM captured on a stream it has not run on."""
    ok = True
    # The GEMM: one call on the current stream, then captured on the
    # graph's own stream (its first call there) and replayed on new inputs.
    from sinter.torch import _cache
    gemm = _cache.program(GEMM_IR, TARGET)["main"]
    a = torch.randn(256, 512, device=dev).bfloat16()
    bm = torch.randn(512, 384, device=dev).bfloat16()
    gemm(a, bm)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = gemm(a, bm)
    a.copy_(torch.randn(256, 512, device=dev))
    graph.replay()
    torch.cuda.synchronize()
    want = a.double() @ bm.double()
    ok &= close("cuBLASLt matmul captured on a new stream, replayed", c,
                want, 2 * (want.bfloat16().double() - want).abs().max().item()
                + 1e-2)
    return ok


def check_attention(st, dev):
    """Attention and its autograd against float64 SDPA."""
    import torch.nn.functional as F
    ok = True
    # Attention and autograd against float64 SDPA; bound: twice torch's
    # own error in the same dtype, plus a little.
    for case in ATTN:
        q, k, v, m, causal = attn_tensors(case, "cuda")
        Sq, Skv = q.shape[2], k.shape[2]
        leaves = [t.requires_grad_() for t in (q, k, v)]
        if m is not None:
            leaves.append(m.requires_grad_())
        o = st.attention(q, k, v, attn_mask=m, is_causal=causal)
        do = torch.randn_like(o)
        got = [o] + list(torch.autograd.grad(o, leaves, do))

        def sdpa(dtype):
            ls = [t.detach().to(dtype).requires_grad_() for t in leaves]
            mm = ls[3] if m is not None else None
            if causal:
                i = torch.arange(Sq, device=dev)[:, None]
                j = torch.arange(Skv, device=dev)[None, :]
                cm = torch.zeros(Sq, Skv, dtype=dtype, device=dev
                                 ).masked_fill(j > i + (Skv - Sq),
                                               float("-inf"))
                mm = cm if mm is None else mm + cm
            out = F.scaled_dot_product_attention(
                ls[0], ls[1], ls[2], attn_mask=mm,
                enable_gqa=ls[0].shape[1] != ls[1].shape[1])
            return [out] + list(torch.autograd.grad(out, ls, do.to(dtype)))
        want, theirs = sdpa(torch.float64), sdpa(q.dtype)
        for label, g, w, t in zip(("out", "dq", "dk", "dv", "dmask"), got,
                                  want, theirs):
            terr = (t.double() - w).abs().max().item()
            ok &= close("attention %s %s" % ("x".join(map(str, case[:6])),
                                             label), g, w,
                        2 * terr + 1e-5 * (1 + w.abs().max().item()))
    return ok


def check_gpt2(st, dev):
    """A tiny Hugging Face GPT-2 trained 3 steps with Sinter's attention and
    AdamW against sdpa and torch's AdamW."""
    ok = True
    # A GPT-2 training step: sinter attention and AdamW against sdpa and
    # torch's AdamW.
    import transformers
    st.register_hf_attention()
    cfg = gpt2_config()
    torch.manual_seed(0)
    ref = transformers.AutoModelForCausalLM.from_config(
        copy.deepcopy(cfg), attn_implementation="sdpa").to(dev)
    mine = transformers.AutoModelForCausalLM.from_config(
        copy.deepcopy(cfg), attn_implementation="sinter").to(dev)
    mine.load_state_dict(ref.state_dict())
    opt_r = torch.optim.AdamW(ref.parameters(), foreach=False)
    opt_m = st.AdamW(mine.parameters())
    ids = torch.randint(0, 1000, (4, 128), device=dev)
    losses = []
    for model, opt in ((ref, opt_r), (mine, opt_m)):
        model.train()
        ls = []
        for it in range(3):
            opt.zero_grad()
            loss = model(ids, labels=ids).loss
            loss.backward()
            opt.step()
            ls.append(loss.item())
        losses.append(ls)
    print("gpt2 losses sdpa+torch AdamW %s, sinter %s" % tuple(losses))
    ok &= all(abs(a - b) <= 1e-4 * abs(a) for a, b in zip(*losses))
    worst = max((p - q).abs().max().item() for p, q in
                zip(ref.parameters(), mine.parameters()))
    ok &= close("gpt2 parameters after 3 steps", torch.tensor(worst),
                torch.tensor(0.0), 1e-4)
    return ok


def check(cache):
    os.environ["SINTER_CACHE_DIR"] = cache
    import sinter.torch as st
    dev = torch.device("cuda")
    results = [check_adamw(st, dev), check_capturable_adamw(st, dev),
               check_gemm_capture(dev), check_attention(st, dev),
               check_gpt2(st, dev)]
    ok = all(results)
    print("ALL PASSED" if ok else "FAILURES")
    return 0 if ok else 1


if __name__ == "__main__":
    mode, cache = sys.argv[1], os.path.abspath(sys.argv[2])
    sys.exit(build(cache) if mode == "build" else check(cache))
