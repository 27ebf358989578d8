"""Probe: cuBLASLt's BGRADB epilogue on the weight-gradient GEMMs of GPT-2
(dW = dY^T X with the bias gradient sum_rows(dY) in the same call), against
the plain GEMM plus torch's column sum. Correctness and time."""
import torch

from cublaslt_probe import BF16, F32, Lt, time_us

EPI_DEFAULT, EPI_BGRADB = 1, 512


def run(lt, rows, cols_x, cols_dy, epilogue, bias_type):
    x = torch.randn(rows, cols_x, device="cuda", dtype=torch.bfloat16)
    dy = torch.randn(rows, cols_dy, device="cuda", dtype=torch.bfloat16)
    d = torch.empty(cols_dy, cols_x, device="cuda", dtype=torch.bfloat16)  # row-major dW
    bias = torch.full((cols_dy,), float("nan"), device="cuda",
                      dtype=torch.bfloat16 if bias_type == BF16 else torch.float32)
    # Column-major D (cols_x x cols_dy) = X^T as stored (cols_x x rows) times
    # dY as stored (cols_dy x rows) read transposed.
    try:
        call = lt.gemm(x, (cols_x, rows, cols_x), False, dy,
                       (cols_dy, rows, cols_dy), d, trans_b=True,
                       epilogue=epilogue or EPI_DEFAULT,
                       bias=bias if epilogue else None)
    except RuntimeError as e:
        return str(e)
    call()
    torch.cuda.synchronize()
    ref = dy.double().t() @ x.double()
    err = ((d.double() - ref).abs().max() / ref.abs().max()).item()
    berr = None
    if epilogue:
        bref = dy.double().sum(0)
        berr = ((bias.double() - bref).abs().max() / bref.abs().max()).item()
    us = time_us(call)
    sum_us = time_us(lambda: dy.sum(0, dtype=torch.float32))
    return (f"{us:.1f} us  (gemm rel err {err:.2e}, bias rel err {berr}; "
            f"torch colsum alone {sum_us:.1f} us)")


if __name__ == "__main__":
    print(torch.cuda.get_device_name())
    lt = Lt()
    print("cublasLt version", lt.lib.cublasLtGetVersion())
    for (cx, cd, label) in [(768, 3072, "c_fc"), (768, 2304, "c_attn"),
                            (768, 768, "attn c_proj"), (3072, 768, "mlp c_proj")]:
        for ep, bt, name in [(0, BF16, "plain"), (EPI_BGRADB, BF16, "BGRADB bf16"),
                             (EPI_BGRADB, F32, "BGRADB f32")]:
            print(f"{label:12s} {name:12s}", run(lt, 8192, cx, cd, ep, bt))
