"""cuBLASLt through ctypes for the probes (probe_cublaslt_*.py): the library
torch loaded, a handle, a workspace, and one GEMM planned with an epilogue
and timed with CUDA events. Attribute and enum values are cublasLt.h's."""
import ctypes
import glob
import os

import torch

VP = ctypes.c_void_p
BF16, F32, COMPUTE_32F = 14, 0, 68          # cudaDataType / cublasComputeType
DESC_TRANSA, DESC_TRANSB, DESC_EPILOGUE = 3, 4, 7
DESC_BIAS_POINTER, DESC_AUX_POINTER, DESC_AUX_LD = 8, 11, 12
DESC_AUX_DATA_TYPE, DESC_BIAS_DATA_TYPE = 22, 26
PREF_MAX_WORKSPACE = 1
ALGO_CONFIG = {"id": 0, "tile": 1, "splitk": 2, "stages": 6, "cluster": 8}
WORKSPACE_BYTES = 32 << 20


def load():
    """The cuBLASLt torch uses (opened by soname, else from its wheels)."""
    torch.cuda.current_blas_handle()
    for name in ("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    pattern = os.path.join(os.path.dirname(torch.__file__), "..", "nvidia",
                           "**", "libcublasLt.so*")
    for path in glob.glob(pattern, recursive=True):
        return ctypes.CDLL(path)
    raise RuntimeError("no libcublasLt")


class Heuristic(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("ws", ctypes.c_size_t),
                ("state", ctypes.c_int), ("waves", ctypes.c_float),
                ("res", ctypes.c_int * 4)]


class Lt:
    def __init__(self):
        self.lib = load()
        self.handle = VP()
        self.ok(self.lib.cublasLtCreate(ctypes.byref(self.handle)), "create")
        self.ws = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device="cuda")

    @staticmethod
    def ok(status, what):
        if status != 0:
            raise RuntimeError(f"{what}: cuBLAS status {status}")

    def set(self, desc, attr, value):
        self.ok(self.lib.cublasLtMatmulDescSetAttribute(
            desc, attr, ctypes.byref(value), ctypes.sizeof(value)), f"attr {attr}")

    def config(self, algo):
        """The algorithm's configuration attributes (cublasLtMatmulAlgoConfig
        Attributes_t) that tell kernels apart."""
        out = {}
        for name, attr in ALGO_CONFIG.items():
            value, written = ctypes.c_int32(0), ctypes.c_size_t(0)
            if self.lib.cublasLtMatmulAlgoConfigGetAttribute(
                    ctypes.byref(algo), attr, ctypes.byref(value), 4,
                    ctypes.byref(written)) == 0:
                out[name] = value.value
        return out

    def layout(self, rows, cols, ld, dtype=BF16):
        lay = VP()
        self.ok(self.lib.cublasLtMatrixLayoutCreate(
            ctypes.byref(lay), dtype, ctypes.c_uint64(rows),
            ctypes.c_uint64(cols), ctypes.c_int64(ld)), "layout")
        return lay

    def gemm(self, *args, **kwargs):
        """The heuristic's first algorithm of `gemms` (below)."""
        return self.gemms(*args, **kwargs)[0]

    def gemms(self, a, a_shape, trans_a, b, b_shape, d, epilogue=1, bias=None,
              aux=None, aux_ld=0, trans_b=False, algos=1):
        """Callables running D = op(A) op(B) (+ epilogue), column-major, one
        per algorithm the heuristic returns (at most `algos`, best first):
        a_shape/b_shape are (rows, cols, ld) of the buffers as stored;
        D is op(A)'s rows x op(B)'s columns, its ld its row count."""
        desc = VP()
        self.ok(self.lib.cublasLtMatmulDescCreate(ctypes.byref(desc), COMPUTE_32F, F32), "desc")
        if trans_a:
            self.set(desc, DESC_TRANSA, ctypes.c_int32(1))
        if trans_b:
            self.set(desc, DESC_TRANSB, ctypes.c_int32(1))
        self.set(desc, DESC_EPILOGUE, ctypes.c_uint32(epilogue))
        if bias is not None:
            self.set(desc, DESC_BIAS_POINTER, VP(bias.data_ptr()))
            self.set(desc, DESC_BIAS_DATA_TYPE,
                     ctypes.c_int32(F32 if bias.dtype == torch.float32 else BF16))
        if aux is not None:
            self.set(desc, DESC_AUX_POINTER, VP(aux.data_ptr()))
            self.set(desc, DESC_AUX_LD, ctypes.c_int64(aux_ld))
        rows = a_shape[1] if trans_a else a_shape[0]
        cols = b_shape[0] if trans_b else b_shape[1]
        la, lb = self.layout(*a_shape), self.layout(*b_shape)
        ld = self.layout(rows, cols, rows)
        pref = VP()
        self.ok(self.lib.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "pref")
        w = ctypes.c_uint64(WORKSPACE_BYTES)
        self.ok(self.lib.cublasLtMatmulPreferenceSetAttribute(
            pref, PREF_MAX_WORKSPACE, ctypes.byref(w), 8), "pref workspace")
        found, n = (Heuristic * algos)(), ctypes.c_int(0)
        st = self.lib.cublasLtMatmulAlgoGetHeuristic(
            self.handle, desc, la, lb, ld, ld, pref, algos, found, ctypes.byref(n))
        if st != 0 or n.value < 1:
            raise RuntimeError(f"no algorithm (status {st}, returned {n.value})")
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)

        def caller(h):
            def call():
                stream = VP(torch.cuda.current_stream().cuda_stream)
                self.ok(self.lib.cublasLtMatmul(
                    self.handle, desc, ctypes.byref(alpha), VP(a.data_ptr()), la,
                    VP(b.data_ptr()), lb, ctypes.byref(beta), VP(d.data_ptr()), ld,
                    VP(d.data_ptr()), ld, ctypes.byref(h.algo), VP(self.ws.data_ptr()),
                    ctypes.c_size_t(WORKSPACE_BYTES), stream), "matmul")
            call.waves = h.waves
            call.workspace = h.ws
            call.config = self.config(h.algo)
            return call
        return [caller(found[i]) for i in range(n.value)]


# GPT-2's MLP at B8 T1024: M tokens, C -> H -> C.
M, C, H = 8192, 768, 3072
# cublasLtEpilogue_t: DEFAULT, BIAS, GELU_AUX_BIAS, DGELU (GELU 32, AUX 128,
# DGELU 64 | AUX), DGELU_BGRAD (+ BGRADB 16).
EPI_DEFAULT, EPI_BIAS, EPI_GELU_AUX_BIAS = 1, 4, 32 | 128 | 4
EPI_DGELU, EPI_DGELU_BGRAD = 64 | 128, 64 | 128 | 16


class MlpForward:
    """The MLP's first GEMM, D[M,H] = x W^T + b (bf16): row-major D is
    column-major D^T = W (op T) x^T, so `args` are Lt.gemm's A, B, D."""

    def __init__(self):
        bf16 = dict(device="cuda", dtype=torch.bfloat16)
        self.x = torch.randn(M, C, **bf16)
        self.w = torch.randn(H, C, **bf16) / C ** 0.5
        self.b = torch.randn(H, **bf16)
        self.d = torch.empty(M, H, **bf16)
        self.aux = torch.empty_like(self.d)
        self.args = (self.w, (C, H, C), True, self.x, (C, M, C), self.d)


class MlpBackward:
    """The input gradient of the MLP's second GEMM, dG[M,H] = dY Wp (bf16;
    column-major dG^T = Wp^T dY^T, both N), `h` the saved pre-activation."""

    def __init__(self):
        bf16 = dict(device="cuda", dtype=torch.bfloat16)
        self.dy = torch.randn(M, C, **bf16)
        self.wp = torch.randn(C, H, **bf16) / H ** 0.5
        self.h = torch.randn(M, H, **bf16)
        self.d = torch.empty(M, H, **bf16)
        self.args = (self.wp, (H, C, H), False, self.dy, (C, M, C), self.d)


def time_us(fn, iters=50):
    """Mean microseconds of `fn` over `iters` back-to-back calls."""
    for _ in range(5):
        fn()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / iters * 1000
