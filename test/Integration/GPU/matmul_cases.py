# Part of the Sinter project.
"""GPU cases of unfused matmuls as real models leave them: cuBLASLt library
calls, their epilogues (bias, GELU and its gradient) and fallback kernels,
operands read in place through transposes. Each case is as in gpu_cases.py,
which collects them."""

from case_common import FLAGS, LAUNCHES, LIBRARY_CALLS, TYPES, _tt  # noqa: F401


def linear_bias_case(M=300, K=256, N=768, t="bf16", rounded_first=False):
    """A bf16 nn.Linear with a bias as torch-mlir 20261001 lowers it (GPT-2's
    Conv1D, normalize-frontend's narrow operands): an f32-accumulating
    matmul, then + the bias (bf16, widened to f32 by its own generic) and the
    rounding to bf16. The matmul takes the
    chain as its epilogue: one cublas_gemm with cuBLASLt's bias epilogue
    (the fallback kernel adds the bias the same way), no f32 product in
    memory. `rounded_first`: the form of AOTAutograd's addmm under bf16
    autocast -- the product rounded to bf16, then the bias added in bf16 --
    which rounds once as torch's addmm does (roundBiasOnce): the same one
    GEMM."""
    a, w, y = _tt([M, K], t), _tt([K, N], t), _tt([M, N], t)
    if rounded_first:
        chain = """  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%b : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dx%(t)s>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: %(t)s, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    %%s = arith.addf %%c, %%q : %(t)s
    linalg.yield %%s : %(t)s
  } -> %(y)s"""
    else:
        chain = """  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%bias : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dxf32>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: f32, %%o: %(t)s):
    %%s = arith.addf %%x, %%c : f32
    %%q = arith.truncf %%s : f32 to %(t)s
    linalg.yield %%q : %(t)s
  } -> %(y)s"""
    ir = """func.func @main(%%a: %(a)s, %%w: %(w)s, %%b: tensor<%(N)dx%(t)s>) -> %(y)s {
  %%eb = tensor.empty() : tensor<%(N)dxf32>
  %%bias = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%%b : tensor<%(N)dx%(t)s>) outs(%%eb : tensor<%(N)dxf32>) {
  ^bb0(%%v: %(t)s, %%o: f32):
    %%v32 = arith.extf %%v : %(t)s to f32
    linalg.yield %%v32 : f32
  } -> tensor<%(N)dxf32>
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(M)dx%(N)dxf32>
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%acc = linalg.matmul ins(%%a, %%w : %(a)s, %(w)s) outs(%%z : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%ey = tensor.empty() : %(y)s
""" + chain + """
  return %%r : %(y)s
}
"""
    ir = ir % {"a": a, "w": w, "y": y, "t": t, "M": M, "N": N}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(M, K, generator=gen, device=dev).to(dt),
                (torch.randn(K, N, generator=gen, device=dev) / 16).to(dt),
                torch.randn(N, generator=gen, device=dev).to(dt)]

    def ref(torch, aa, ww, bb):
        return [aa.double() @ ww.double() + bb.double()]

    def torch_same_dtype(torch, aa, ww, bb):
        return [(aa.float() @ ww.float() + bb.float()).to(aa.dtype)]

    name = "linear_bias_%dx%dx%d_%s%s" % (M, K, N, t,
                                         "_rounded_first" if rounded_first
                                         else "")
    LIBRARY_CALLS[name] = 1
    LAUNCHES[name] = 1  # the GEMM alone: no bias or rounding kernel
    return (name, ir, make, ref, torch_same_dtype)


_GELU_FORWARD_BODY = """  ^bb0(%%v: %(t)s, %%o: %(t)s):
    %%half = arith.constant 5.000000e-01 : %(t)s
    %%one = arith.constant 1.000000e+00 : %(t)s
    %%scale = arith.constant 7.968750e-01 : %(t)s
    %%cubic = arith.constant 4.467770e-02 : %(t)s
    %%c3 = arith.constant 3 : i64
    %%p = math.fpowi %%v, %%c3 : %(t)s, i64
    %%q = arith.mulf %%p, %%cubic : %(t)s
    %%r = arith.addf %%v, %%q : %(t)s
    %%u = arith.mulf %%r, %%scale : %(t)s
    %%th = math.tanh %%u : %(t)s
    %%s1 = arith.addf %%th, %%one : %(t)s
    %%s2 = arith.mulf %%s1, %%half : %(t)s
    %%y = arith.mulf %%v, %%s2 : %(t)s
    linalg.yield %%y : %(t)s"""


_GELU_BACKWARD_BODY = """  ^bb0(%%x: %(t)s, %%d: %(t)s, %%o: %(t)s):
    %%c0 = arith.constant 0.797884583 : f32
    %%c1 = arith.constant 1.000000e+00 : f32
    %%c2 = arith.constant 4.471500e-02 : f32
    %%c3 = arith.constant 1.341450e-01 : f32
    %%c4 = arith.constant 5.000000e-01 : f32
    %%x32 = arith.extf %%x : %(t)s to f32
    %%sq = arith.mulf %%x32, %%x32 : f32
    %%hx = arith.mulf %%x32, %%c4 : f32
    %%cu = arith.mulf %%sq, %%x32 : f32
    %%dq = arith.mulf %%sq, %%c3 : f32
    %%kq = arith.mulf %%cu, %%c2 : f32
    %%dp = arith.addf %%dq, %%c1 : f32
    %%in = arith.addf %%x32, %%kq : f32
    %%du = arith.mulf %%dp, %%c0 : f32
    %%u = arith.mulf %%in, %%c0 : f32
    %%th = math.tanh %%u : f32
    %%a1 = arith.addf %%th, %%c1 : f32
    %%t2 = arith.mulf %%th, %%th : f32
    %%a2 = arith.mulf %%a1, %%c4 : f32
    %%s2 = arith.subf %%c1, %%t2 : f32
    %%b1 = arith.mulf %%hx, %%s2 : f32
    %%b2 = arith.mulf %%b1, %%du : f32
    %%g = arith.addf %%a2, %%b2 : f32
    %%d32 = arith.extf %%d : %(t)s to f32
    %%r = arith.mulf %%d32, %%g : f32
    %%r16 = arith.truncf %%r : f32 to %(t)s
    linalg.yield %%r16 : %(t)s"""


def _gelu_tanh(torch, x):
    return 0.5 * x * (1 + torch.tanh(0.7978845608028654 *
                                     (x + 0.044715 * x ** 3)))


def _gelu_tanh_grad(torch, x):
    t = torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (
        1 + 3 * 0.044715 * x * x)


def mlp_gelu_case(M=300, K=256, N=768, t="bf16", backward=False):
    """GPT-2's MLP GELU as torch-mlir 20261001 writes it in a bf16 training
    graph. Forward: the first matmul's bias add, then GELU's tanh form in
    bf16 arithmetic (bf16-rounded constants); both the pre-activation and
    the GELU are results (the backward saves one, the next matmul reads the
    other): one cublas_gemm with cuBLASLt's GELU_AUX_BIAS epilogue
    (GeluEpilogue.cpp). Backward: the gradient of the GELU's output (a
    matmul rounded to bf16) times GELU's derivative at the saved
    pre-activation, in f32: one cublas_gemm with DGELU."""
    d = {"t": t, "M": M, "N": N, "K": K, "y": _tt([M, N], t),
         "a": _tt([M, K], t), "w": _tt([K, N], t),
         "id": "affine_map<(d0, d1) -> (d0, d1)>",
         "col": "affine_map<(d0, d1) -> (d1)>"}
    head = """  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(M)dx%(N)dxf32>
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%acc = linalg.matmul ins(%%a, %%w : %(a)s, %(w)s) outs(%%z : tensor<%(M)dx%(N)dxf32>) -> tensor<%(M)dx%(N)dxf32>
  %%ey = tensor.empty() : %(y)s
"""
    if not backward:
        ir = ("""func.func @main(%%a: %(a)s, %%w: %(w)s, %%b: tensor<%(N)dx%(t)s>) -> (%(y)s, %(y)s) {
""" + head + """  %%h = linalg.generic {indexing_maps = [%(id)s, %(col)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%acc, %%b : tensor<%(M)dx%(N)dxf32>, tensor<%(N)dx%(t)s>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%c: %(t)s, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    %%s = arith.addf %%c, %%q : %(t)s
    linalg.yield %%s : %(t)s
  } -> %(y)s
  %%g = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%h : %(y)s) outs(%%ey : %(y)s) {
""" + _GELU_FORWARD_BODY + """
  } -> %(y)s
  return %%g, %%h : %(y)s, %(y)s
}
""") % d
    else:
        ir = ("""func.func @main(%%a: %(a)s, %%w: %(w)s, %%h: %(y)s) -> %(y)s {
""" + head + """  %%dg = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%acc : tensor<%(M)dx%(N)dxf32>) outs(%%ey : %(y)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%q = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%q : %(t)s
  } -> %(y)s
  %%dh = linalg.generic {indexing_maps = [%(id)s, %(id)s, %(id)s], iterator_types = ["parallel", "parallel"]} ins(%%h, %%dg : %(y)s, %(y)s) outs(%%ey : %(y)s) {
""" + _GELU_BACKWARD_BODY + """
  } -> %(y)s
  return %%dh : %(y)s
}
""") % d

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        third = (torch.randn(N, generator=gen, device=dev) if not backward
                 else 2 * torch.randn(M, N, generator=gen, device=dev))
        return [torch.randn(M, K, generator=gen, device=dev).to(dt),
                (torch.randn(K, N, generator=gen, device=dev) / 16).to(dt),
                third.to(dt)]

    def ref(torch, aa, ww, cc):
        prod = aa.double() @ ww.double()
        if backward:
            return [prod * _gelu_tanh_grad(torch, cc.double())]
        pre = prod + cc.double()
        return [_gelu_tanh(torch, pre), pre]

    def torch_same_dtype(torch, aa, ww, cc):
        prod = aa.float() @ ww.float()
        if backward:
            return [torch.ops.aten.gelu_backward(
                prod.to(aa.dtype).float(), cc.float(),
                approximate="tanh").to(aa.dtype)]
        pre = (prod + cc.float()).to(aa.dtype)
        return [torch.nn.functional.gelu(pre.float(), approximate="tanh")
                .to(aa.dtype), pre]

    name = "mlp_gelu%s_%dx%dx%d_%s" % ("_backward" if backward else "",
                                       M, K, N, t)
    LIBRARY_CALLS[name] = 1
    LAUNCHES[name] = 1  # the GEMM alone: no GELU kernel
    return (name, ir, make, ref, torch_same_dtype)


def matmul_transposed_b_case(M, K, N, t="f32", batch=None):
    """x @ w^T with w stored [N, K]: linalg.matmul (or batch_matmul) with
    user indexing maps into a zero fill, as torch-mlir emits a linear layer.
    The tiled matmul kernel takes default maps only; this runs on the serial
    kernel (f32 accumulation, one rounding per result)."""
    b = [batch] if batch else []
    a_t, w_t, c_t = _tt(b + [M, K], t), _tt(b + [N, K], t), _tt(b + [M, N], t)
    if batch:
        op = "linalg.batch_matmul"
        maps = ("affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>")
    else:
        op = "linalg.matmul"
        maps = ("affine_map<(d0, d1, d2) -> (d0, d2)>, "
                "affine_map<(d0, d1, d2) -> (d1, d2)>, "
                "affine_map<(d0, d1, d2) -> (d0, d1)>")
    ir = """func.func @main(%%x: %(a)s, %%w: %(w)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(t)s
  %%e = tensor.empty() : %(c)s
  %%z = linalg.fill ins(%%zero : %(t)s) outs(%%e : %(c)s) -> %(c)s
  %%r = %(op)s indexing_maps = [%(maps)s] ins(%%x, %%w : %(a)s, %(w)s) outs(%%z : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % {"a": a_t, "w": w_t, "c": c_t, "t": t, "op": op, "maps": maps}

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        return [torch.randn(*(b + [M, K]), generator=gen, device=dev).to(dt),
                (torch.randn(*(b + [N, K]), generator=gen, device=dev)
                 / K ** 0.5).to(dt)]

    def ref(torch, x, w):
        return [x.double() @ w.double().transpose(-1, -2)]

    def torch_same_dtype(torch, x, w):
        return [x @ w.transpose(-1, -2)]

    name = "%smatmul_tb_%s%dx%dx%d_%s" % ("batch_" if batch else "",
                                          "%dx" % batch if batch else "",
                                          M, K, N, t)
    return name, ir, make, ref, torch_same_dtype


def matmul_case(M, K, N, t="bf16", batch=None, accumulate=False, out_t=None,
                path="cublas", trans=""):
    """A leftover linalg.matmul (or batch_matmul) with the default maps:
    C = A x B into a zero fill, or C = C0 + A x B with `accumulate` (C0 an
    argument). With path "cublas" (sinterc's default) it is a cuBLASLt
    library call (a cublas_gemm entry) whose fallback is the CUDA-core
    kernel; with "kernel" (--cuda-matmul=kernel) the kernel alone.
    `out_t` (default `t`) is C's type (f32 out of bf16/f16 inputs).
    `trans` "a", "b" or "ab": those operands arrive stored transposed and
    pass through linalg.transpose, as torch-mlir lowers nn.Linear (x @
    W^T) and weight gradients (dY^T @ x); the matmul reads them in place
    (no transpose kernel: the program is its one launch)."""
    out_t = out_t or t
    bs = [batch] if batch else []
    a_t, b_t = _tt(bs + [M, K], t), _tt(bs + [K, N], t)
    c_t = _tt(bs + [M, N], out_t)
    swap = [0, 2, 1] if batch else [1, 0]
    stored = {"a": bs + ([K, M] if "a" in trans else [M, K]),
              "b": bs + ([N, K] if "b" in trans else [K, N])}
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    if accumulate:
        args, init, fill = ", %%c0: %s" % c_t, "%c0", ""
    else:
        args, init = "", "%z"
        fill = """  %%zero = arith.constant 0.0 : %(ct)s
  %%e = tensor.empty() : %(c)s
  %%z = linalg.fill ins(%%zero : %(ct)s) outs(%%e : %(c)s) -> %(c)s
""" % {"ct": out_t, "c": c_t}
    # Operands stored transposed, then transposed back for the matmul.
    transposes = ""
    for x, logical in (("a", a_t), ("b", b_t)):
        if x in trans:
            transposes += (
                "  %%%s_e = tensor.empty() : %s\n  %%%s_l = linalg.transpose "
                "ins(%%%s : %s) outs(%%%s_e : %s) permutation = [%s]\n" % (
                    x, logical, x, x, _tt(stored[x], t), x, logical,
                    ", ".join(map(str, swap))))
    va = "%a_l" if "a" in trans else "%a"
    vb = "%b_l" if "b" in trans else "%b"
    ir = """func.func @main(%%a: %(sa)s, %%b: %(sb)s%(args)s) -> %(c)s {
%(fill)s%(tr)s  %%r = %(op)s ins(%(va)s, %(vb)s : %(a)s, %(b)s) outs(%(init)s : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % {"a": a_t, "b": b_t, "c": c_t, "args": args, "fill": fill, "op": op,
       "init": init, "sa": _tt(stored["a"], t), "sb": _tt(stored["b"], t),
       "tr": transposes, "va": va, "vb": vb}

    def logical(x, which):
        return x.transpose(-1, -2) if which in trans else x

    def make(torch, dev, gen):
        dt = getattr(torch, TYPES[t])
        ins = [torch.randn(*stored["a"], generator=gen, device=dev).to(dt),
               (torch.randn(*stored["b"], generator=gen, device=dev)
                / K ** 0.5).to(dt)]
        if accumulate:
            ins.append(torch.randn(*(bs + [M, N]), generator=gen, device=dev)
                       .to(getattr(torch, TYPES[out_t])))
        return ins

    def ref(torch, a, b, c0=None):
        r = logical(a, "a").double() @ logical(b, "b").double()
        return [r + c0.double() if c0 is not None else r]

    def torch_same_dtype(torch, a, b, c0=None):
        a, b = logical(a, "a"), logical(b, "b")
        if out_t != t:  # f32 results of bf16/f16 inputs: f32 products
            a, b = a.float(), b.float()
        if c0 is None:
            return [a @ b]
        return [torch.baddbmm(c0, a, b) if batch else torch.addmm(c0, a, b)]

    name = "%smatmul_%s%dx%dx%d_%s%s%s%s%s" % (
        "batch_" if batch else "", "%dx" % batch if batch else "", M, K, N, t,
        "_to_" + out_t if out_t != t else "", "_acc" if accumulate else "",
        "_t" + trans if trans else "", "_kernel" if path == "kernel" else "")
    LIBRARY_CALLS[name] = 1 if path == "cublas" else 0
    # Transposes read in place: the program is the GEMM, and a transpose
    # kernel for each operand whose stored rows are misaligned for cuBLASLt
    # where its transposed copy's are not (the copy is kept then). Not
    # counted when the rows are padded (2MNK >= 1e9, sinter-pad-matmuls).
    def aligned(n):
        return n * {"f32": 4}.get(t, 2) % 16 == 0
    kept = sum(1 for x, stored_rows, copy_rows in (("a", M, K), ("b", K, N))
               if x in trans and not aligned(stored_rows) and
               aligned(copy_rows))
    if trans and 2.0 * M * N * K < 1e9:
        LAUNCHES[name] = 1 + kept
    if path == "kernel":
        FLAGS[name] = ["--cuda-matmul=kernel"]
    return name, ir, make, ref, torch_same_dtype


def matmul_cases():
    """Leftover matmuls through cuBLASLt (library calls) and, the same
    cases again, through the CUDA-core kernel alone: ragged and GPT-block
    (QKV projection) shapes, plain and batched, bf16, f16 and f32, zero
    fills and accumulation into an initial C, f32 results of bf16."""
    cases = []
    for path in ("cublas", "kernel"):
        for t in ("bf16", "f16", "f32"):
            for M, K, N in ((127, 257, 65), (256, 768, 2304)):
                cases.append(matmul_case(M, K, N, t, path=path))
                cases.append(matmul_case(M, K, N, t, batch=3 if M == 127
                                         else 2, path=path))
        cases.append(matmul_case(127, 257, 65, "bf16", accumulate=True,
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "f16", batch=3,
                                 accumulate=True, path=path))
        cases.append(matmul_case(33, 64, 40, "f32", batch=2, accumulate=True,
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "bf16", out_t="f32",
                                 path=path))
        # Operands read around their transposes (nn.Linear, dW = dY^T x).
        cases.append(matmul_case(256, 768, 2304, "bf16", trans="b",
                                 path=path))
        cases.append(matmul_case(127, 257, 65, "f32", trans="a", path=path))
        cases.append(matmul_case(127, 257, 65, "f16", batch=3, trans="ab",
                                 accumulate=True, path=path))
        cases.append(matmul_case(130, 96, 257, "bf16", out_t="f32",
                                 trans="ab", path=path))
    # Misaligned rows padded for cuBLASLt (sinter-pad-matmuls): an lm_head
    # (x @ W^T, odd N), its input gradient (odd K) and weight gradient
    # (dY^T x, odd M).
    cases.append(matmul_case(512, 768, 1365, "bf16", out_t="f32", trans="b"))
    cases.append(matmul_case(512, 1365, 768, "bf16", out_t="f32"))
    cases.append(matmul_case(1365, 512, 768, "bf16", out_t="f32", trans="a"))
    return cases
