"""Probe: cuBLASLt's BGRADB epilogue on the weight-gradient GEMMs of GPT-2
(dW = dY^T X with the bias gradient sum_rows(dY) in the same call), against
the plain GEMM plus torch's column sum. Correctness and time."""
import ctypes, torch, sys
torch.cuda.current_blas_handle()
lt = None
for name in ("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"):
    try:
        lt = ctypes.CDLL(name); break
    except OSError:
        pass
import glob, os
if lt is None:
    for p in glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "**", "libcublasLt.so*"), recursive=True):
        lt = ctypes.CDLL(p); break
print("cublasLt version", lt.cublasLtGetVersion())
vp = ctypes.c_void_p
def ok(st, what):
    if st != 0: raise RuntimeError(f"{what}: status {st}")
handle = vp(); ok(lt.cublasLtCreate(ctypes.byref(handle)), "create")
ws_bytes = 32 << 20
ws = torch.empty(ws_bytes, dtype=torch.uint8, device="cuda")
BF16, F32, COMPUTE32F = 14, 0, 68
class Heur(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("ws", ctypes.c_size_t), ("state", ctypes.c_int), ("waves", ctypes.c_float), ("res", ctypes.c_int * 4)]

def gemm_plan(rows_x, cols_x, cols_dy, epilogue, bias_type):
    # D (cols_x x cols_dy col-major) = X^T-as-colmajor (cols_x x rows, N) @ dY (rows x cols_dy, buffer col-major cols_dy x rows, T)
    desc = vp(); ok(lt.cublasLtMatmulDescCreate(ctypes.byref(desc), COMPUTE32F, F32), "desc")
    t = ctypes.c_int32(1)
    ok(lt.cublasLtMatmulDescSetAttribute(desc, 4, ctypes.byref(t), 4), "transb")
    if epilogue:
        e = ctypes.c_uint32(epilogue)
        ok(lt.cublasLtMatmulDescSetAttribute(desc, 7, ctypes.byref(e), 4), "epilogue")
        bt = ctypes.c_int32(bias_type)
        ok(lt.cublasLtMatmulDescSetAttribute(desc, 26, ctypes.byref(bt), 4), "bias type")
    la, lb, lc = vp(), vp(), vp()
    ok(lt.cublasLtMatrixLayoutCreate(ctypes.byref(la), BF16, ctypes.c_uint64(cols_x), ctypes.c_uint64(rows_x), ctypes.c_int64(cols_x)), "la")
    ok(lt.cublasLtMatrixLayoutCreate(ctypes.byref(lb), BF16, ctypes.c_uint64(cols_dy), ctypes.c_uint64(rows_x), ctypes.c_int64(cols_dy)), "lb")
    ok(lt.cublasLtMatrixLayoutCreate(ctypes.byref(lc), BF16, ctypes.c_uint64(cols_x), ctypes.c_uint64(cols_dy), ctypes.c_int64(cols_x)), "lc")
    return desc, la, lb, lc

def run(rows, cols_x, cols_dy, epilogue, bias_type, iters=50):
    x = torch.randn(rows, cols_x, device="cuda", dtype=torch.bfloat16)
    dy = torch.randn(rows, cols_dy, device="cuda", dtype=torch.bfloat16)
    d = torch.empty(cols_dy, cols_x, device="cuda", dtype=torch.bfloat16)  # row-major dW [cols_dy, cols_x]
    bias = torch.full((cols_dy,), float("nan"), device="cuda", dtype=torch.bfloat16 if bias_type == BF16 else torch.float32)
    desc, la, lb, lc = gemm_plan(rows, cols_x, cols_dy, epilogue, bias_type)
    if epilogue:
        ptr = vp(bias.data_ptr())
        ok(lt.cublasLtMatmulDescSetAttribute(desc, 8, ctypes.byref(ptr), 8), "bias ptr")
    pref = vp(); ok(lt.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "pref")
    w = ctypes.c_uint64(ws_bytes); ok(lt.cublasLtMatmulPreferenceSetAttribute(pref, 1, ctypes.byref(w), 8), "pref ws")
    h = Heur(); n = ctypes.c_int(0)
    st = lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 1, ctypes.byref(h), ctypes.byref(n))
    if st != 0 or n.value < 1:
        return f"no algorithm (status {st}, returned {n.value})"
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    stream = vp(torch.cuda.current_stream().cuda_stream)
    def call():
        ok(lt.cublasLtMatmul(handle, desc, ctypes.byref(alpha), vp(x.data_ptr()), la, vp(dy.data_ptr()), lb, ctypes.byref(beta),
                             vp(d.data_ptr()), lc, vp(d.data_ptr()), lc, ctypes.byref(h.algo), vp(ws.data_ptr()), ctypes.c_size_t(ws_bytes), stream), "matmul")
    call(); torch.cuda.synchronize()
    ref = (dy.double().t() @ x.double())
    err = ((d.double() - ref).abs().max() / ref.abs().max()).item()
    berr = None
    if epilogue:
        bref = dy.double().sum(0)
        berr = ((bias.double() - bref).abs().max() / bref.abs().max()).item()
    for _ in range(5): call()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    s.record()
    for _ in range(iters): call()
    e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / iters
    # torch's column sum alone
    s.record()
    for _ in range(iters): dy.sum(0, dtype=torch.float32)
    e.record(); torch.cuda.synchronize()
    sum_ms = s.elapsed_time(e) / iters
    return f"{ms*1000:.1f} us  (gemm rel err {err:.2e}, bias rel err {berr}; torch colsum alone {sum_ms*1000:.1f} us)"

print(torch.cuda.get_device_name())
for (cx, cd, label) in [(768, 3072, "c_fc"), (768, 2304, "c_attn"), (768, 768, "attn c_proj"), (3072, 768, "mlp c_proj")]:
    for ep, bt, name in [(0, BF16, "plain"), (512, BF16, "BGRADB bf16"), (512, F32, "BGRADB f32")]:
        try:
            print(f"{label:12s} {name:12s}", run(8192, cx, cd, ep, bt))
        except Exception as ex:
            print(f"{label:12s} {name:12s} error {ex}")
