"""Probe: cuBLASLt's GELU epilogues on GPT-2's MLP (B8 T1024: M 8192, 768 ->
3072 -> 768), against the GEMM with a bias epilogue plus torch's gelu or
gelu_backward kernel. Says which GELU cuBLASLt computes (tanh or erf), how
far from torch each output is, and what each form costs.
  forward:  GELU_AUX_BIAS  D = gelu(A B + bias), aux = A B + bias
  backward: DGELU          D = (dY W) * gelu'(aux)
            DGELU_BGRAD    the same and the bias gradient sum_rows(D)"""
import torch
import torch.nn.functional as F

from cublaslt_probe import (EPI_BIAS, EPI_DEFAULT, EPI_DGELU, EPI_DGELU_BGRAD,
                            EPI_GELU_AUX_BIAS, H, Lt, MlpBackward, MlpForward,
                            time_us)


def rel(x, ref):
    return ((x.double() - ref).abs().max() / ref.abs().max()).item()


def forward(lt):
    f = MlpForward()
    x, w, b, d, aux, args = f.x, f.w, f.b, f.d, f.aux, f.args
    pre = x.double() @ w.double().t() + b.double()
    biased = lt.gemm(*args, epilogue=EPI_BIAS, bias=b)
    gelu = lt.gemm(*args, epilogue=EPI_GELU_AUX_BIAS, bias=b, aux=aux, aux_ld=H)
    gelu()
    torch.cuda.synchronize()
    print(f"fwd GELU_AUX_BIAS: vs gelu tanh {rel(d, F.gelu(pre, approximate='tanh')):.2e}"
          f", vs gelu erf {rel(d, F.gelu(pre)):.2e}, aux vs A B + b {rel(aux, pre):.2e}")
    t_bias = time_us(biased)
    t_gelu_kernel = time_us(lambda: F.gelu(d, approximate="tanh"))
    t_epi = time_us(gelu)
    print(f"fwd bias GEMM {t_bias:.1f} us + torch gelu {t_gelu_kernel:.1f} us"
          f" = {t_bias + t_gelu_kernel:.1f}; GELU_AUX_BIAS GEMM {t_epi:.1f} us")


def backward(lt):
    g = MlpBackward()
    dy, wp, h, d, args = g.dy, g.wp, g.h, g.d, g.args
    dg = dy.double() @ wp.double()
    ref = torch.ops.aten.gelu_backward(dg, h.double(), approximate="tanh")
    plain = lt.gemm(*args, epilogue=EPI_DEFAULT)
    dgelu = lt.gemm(*args, epilogue=EPI_DGELU, aux=h, aux_ld=H)
    dgelu()
    torch.cuda.synchronize()
    print(f"bwd DGELU: vs gelu_backward tanh {rel(d, ref):.2e}, vs erf "
          f"{rel(d, torch.ops.aten.gelu_backward(dg, h.double())):.2e}")
    t_plain = time_us(plain)
    t_kernel = time_us(lambda: torch.ops.aten.gelu_backward(d, h, approximate="tanh"))
    t_sum = time_us(lambda: d.sum(0, dtype=torch.float32))
    t_dgelu = time_us(dgelu)
    print(f"bwd GEMM {t_plain:.1f} us + torch gelu_backward {t_kernel:.1f} us + "
          f"column sum {t_sum:.1f} us = {t_plain + t_kernel + t_sum:.1f}; "
          f"DGELU GEMM {t_dgelu:.1f} us")
    for bias_dtype in (torch.float32, torch.bfloat16):
        db = torch.full((H,), float("nan"), device="cuda", dtype=bias_dtype)
        try:
            call = lt.gemm(*args, epilogue=EPI_DGELU_BGRAD, bias=db, aux=h, aux_ld=H)
        except RuntimeError as e:
            print(f"bwd DGELU_BGRAD {bias_dtype}: {e}")
            continue
        call()
        torch.cuda.synchronize()
        print(f"bwd DGELU_BGRAD {bias_dtype}: {time_us(call):.1f} us, dX {rel(d, ref):.2e}"
              f", bias grad vs sum of D {rel(db, d.double().sum(0)):.2e}"
              f", vs sum of exact {rel(db, ref.sum(0)):.2e}")


if __name__ == "__main__":
    lt = Lt()
    print(torch.cuda.get_device_name(), "cuBLASLt", lt.lib.cublasLtGetVersion())
    forward(lt)
    backward(lt)
