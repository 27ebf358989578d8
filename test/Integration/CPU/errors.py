# Error paths of the Python package and the C API: every bad call raises a
# sinter exception naming the function and argument; compile errors carry
# located diagnostics; nothing crashes.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402

gen = refs.rng("errors")

ATTN_LIKE = """
func.func @main(%q: tensor<2x4x17x64xf32>, %k: tensor<2x4x17x64xf32>,
                %s: f32) -> tensor<2x4x17x64xf32> {
  %e = tensor.empty() : tensor<2x4x17x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                        affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                        affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%q, %k : tensor<2x4x17x64xf32>, tensor<2x4x17x64xf32>)
      outs(%e : tensor<2x4x17x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %v = arith.mulf %m, %s : f32
    linalg.yield %v : f32
  } -> tensor<2x4x17x64xf32>
  return %r : tensor<2x4x17x64xf32>
}
"""

prog = sinter.compile(ATTN_LIKE, fusion=False)
q = refs.random(gen, (2, 4, 17, 64), np.float32)
k = refs.random(gen, (2, 4, 17, 64), np.float32)


def expect(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type as e:
        print("%s: %s" % (type(e).__name__, e))
        return e
    raise AssertionError("expected %s" % exc_type.__name__)


# The happy path first, through DLPack and __array__ producers.
class OnlyDLPack:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class OnlyArray:
    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a


out = prog.run("main", OnlyDLPack(q), OnlyArray(k), 0.5)
refs.assert_close("dlpack and __array__ inputs", out,
                  refs.f64(q) * refs.f64(k) * 0.5, atol=1e-6)
# CHECK: dlpack and __array__ inputs: ok

expect(sinter.ArgumentError, prog.run, "main", q, k)
# CHECK: ArgumentError: main: expected 3 arguments (q, k, s), got 2
expect(sinter.ArgumentError, prog.run, "main", q,
       k[:, :, :16, :].copy(), 1.0)
# CHECK: ArgumentError: main: argument 1 ('k'): expected shape (2, 4, 17, 64), got (2, 4, 16, 64)
expect(sinter.ArgumentError, prog.run, "main", q.astype(np.float16), k, 1.0)
# CHECK: ArgumentError: main: argument 0 ('q'): expected dtype float32, got float16
expect(sinter.ArgumentError, prog.run, "main", q,
       np.swapaxes(np.swapaxes(k, 2, 3).copy(), 2, 3), 1.0)
# CHECK: ArgumentError: main: argument 1 ('k'): the array is not C-contiguous
expect(sinter.ArgumentError, prog.run, "main", q, k, q)
# CHECK: ArgumentError: main: argument 2 ('s'): expected a scalar, got an array of shape (2, 4, 17, 64)
expect(sinter.ArgumentError, prog.run, "main", q, k, "0.5")
# CHECK: ArgumentError: main: argument 2 ('s'): expected a float32 scalar, got str
expect(sinter.ArgumentError, prog.run, "main", [1.0, 2.0], k, 1.0)
# CHECK: ArgumentError: main: argument 0 ('q'): expected a numpy array or an object with __dlpack__ or __array__, got list
expect(sinter.FunctionNotFoundError, prog.run, "mian", q, k, 1.0)
# CHECK: FunctionNotFoundError: no function 'mian' in {{.*}} (it has: main)

# Compile errors: located diagnostics, never a crash.
e = expect(sinter.CompileError, sinter.compile,
           "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %y = arith.addf %x, %z : tensor<4xf32>\n"
           "  return %y : tensor<4xf32>\n}\n", "cpu", False, None, "bad.mlir")
# CHECK: CompileError: bad.mlir:2:23: error: use of undeclared SSA value name
assert e.diagnostics.startswith("bad.mlir:2:23:"), e.diagnostics

expect(sinter.CompileError, sinter.compile,
       "func.func @dyn(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
       "  return %x : tensor<?x4xf32>\n}\n", "cpu", False)
# CHECK: CompileError: <input>:1:16: error: argument #0 of @dyn ({{.*}}): dynamic dimensions are not supported

expect(sinter.CompileError, sinter.compile,
       "func.func @s(%x: f32) -> f32 {\n  return %x : f32\n}\n", "cpu", False)
# CHECK: CompileError: <input>:1:1: error: result #0 of @s ({{.*}}): scalar results are not supported; return a 0-d tensor (tensor<f32>) instead

expect(sinter.CompileError, sinter.compile,
       "func.func private @decl(tensor<4xf32>)\n", "cpu", False)
# CHECK: CompileError: <input>:1:1: error: the module has no public function with a body to compile (@decl is a declaration)

expect(sinter.CompileError, sinter.compile, ATTN_LIKE, "cuda:sm_x")
# CHECK: CompileError: <input>:0:0: error: malformed CUDA target 'cuda:sm_x'
expect(sinter.CompileError, sinter.compile, ATTN_LIKE, "tpu")
# CHECK: CompileError: <input>:0:0: error: unknown target 'tpu'

# A CUDA attention configuration that is malformed, or that does not fit
# the op, is a compile error (compiling for CUDA needs no GPU).
ATTN = """
func.func @main(%q: tensor<1x2x64x128xbf16>) -> tensor<1x2x64x128xbf16> {
  %o = sinter.attention %q, %q, %q : tensor<1x2x64x128xbf16>,
      tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16> -> tensor<1x2x64x128xbf16>
  return %o : tensor<1x2x64x128xbf16>
}
"""
expect(sinter.CompileError,
       lambda: sinter.compile(ATTN, "cuda:sm_90a", attention_config="warps=3"))
# CHECK: CompileError: <input>:0:0: error: sinter-outline-cuda-kernels: bad attention-config 'warps=3'
expect(sinter.CompileError,
       lambda: sinter.compile(ATTN, "cuda:sm_80",
                              attention_config="wgmma,warps=4,mtiles=1,bn=64"))
# CHECK: CompileError: <input>:3:8: error: 'sinter.attention' op attention-config 'wgmma,warps=4,mtiles=1,bn=64' cannot run this op on the tensor cores: wgmma needs sm_90a

# A call to a function that exists nowhere fails the link with the name.
expect(sinter.CompileError, sinter.compile, """
func.func private @not_in_libm(f32) -> f32
func.func @f(%x: f32) -> tensor<f32> {
  %y = func.call @not_in_libm(%x) : (f32) -> f32
  %t = tensor.from_elements %y : tensor<f32>
  return %t : tensor<f32>
}
""", "cpu", False)
# CHECK: CompileError: <input>:0:0: error: linking kernels.so: `{{.*}}` failed:
# CHECK: undefined reference to `not_in_libm'

# Loading something that is not an artifact.
expect(sinter.LoadError, sinter.load, os.path.dirname(__file__))
# CHECK: LoadError: {{.*}} has no manifest.json: not a Sinter artifact directory

print("ALL PASSED")
# CHECK: ALL PASSED
