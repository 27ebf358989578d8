"""Probe: every algorithm cuBLASLt's heuristic offers for GPT-2's MLP GEMMs
(B8 T1024: M 8192, 768 -> 3072 -> 768), with and without the GELU epilogues,
each timed; says how far the heuristic's first choice is from the fastest.
In the training step the heuristic's DGELU kernel ran at 96 us against 58 us
for the plain GEMM (session 12): is a faster DGELU kernel on offer?"""
import torch

from cublaslt_probe import (EPI_BIAS, EPI_DEFAULT, EPI_DGELU,
                            EPI_GELU_AUX_BIAS, H, Lt, MlpBackward, MlpForward,
                            time_us)

ALGOS = 32


def report(name, calls, check):
    """Times every algorithm of `calls`; `check()` after each run returns
    the output's max error against the first algorithm's."""
    rows = []
    calls[0]()
    torch.cuda.synchronize()
    for i, call in enumerate(calls):
        err = check(i, call)
        rows.append((time_us(call, iters=30), i, call.config, call.workspace, err))
    best = min(rows)
    print(f"{name}: {len(calls)} algorithms; heuristic's first {rows[0][0]:.1f} us,"
          f" fastest {best[0]:.1f} us (#{best[1]} {best[2]}, workspace {best[3]})")
    for t, i, cfg, ws, err in sorted(rows)[:8]:
        print(f"   #{i:2d} {t:7.1f} us  {cfg}  ws {ws}  err vs #0 {err:.1e}")


def checker(d):
    ref = {}

    def check(i, call):
        d.fill_(float("nan"))
        call()
        torch.cuda.synchronize()
        if i == 0:
            ref["d"] = d.clone()
            return 0.0
        return (d.float() - ref["d"].float()).abs().max().item()
    return check


def forward(lt):
    f = MlpForward()
    report("fwd bias", lt.gemms(*f.args, epilogue=EPI_BIAS, bias=f.b,
                                algos=ALGOS), checker(f.d))
    report("fwd GELU_AUX_BIAS", lt.gemms(*f.args, epilogue=EPI_GELU_AUX_BIAS,
                                         bias=f.b, aux=f.aux, aux_ld=H,
                                         algos=ALGOS), checker(f.d))


def backward(lt):
    g = MlpBackward()
    report("bwd plain", lt.gemms(*g.args, epilogue=EPI_DEFAULT, algos=ALGOS),
           checker(g.d))
    report("bwd DGELU", lt.gemms(*g.args, epilogue=EPI_DGELU, aux=g.h, aux_ld=H,
                                 algos=ALGOS), checker(g.d))


if __name__ == "__main__":
    lt = Lt()
    print(torch.cuda.get_device_name(), "cuBLASLt", lt.lib.cublasLtGetVersion())
    forward(lt)
    backward(lt)
