# Issue #17's compiler reproducers through sinter.compile, for both targets,
# in one Python process: each is a CompileError with a located diagnostic
# (it used to kill the interpreter), and the process goes on to compile a
# good program afterwards.
#
# REQUIRES: numpy
# RUN: %python %s %S/Inputs | FileCheck %s

import os
import sys
import tempfile

import sinter

sys.path.insert(0, sys.argv[1])
from gen_deep import generate as gen_deep  # noqa: E402


FUSED_INDEX = """
func.func @f(%a: tensor<8xindex>, %b: tensor<8xindex>) -> tensor<8xindex> {
  %0 = sinter.fused ins(%a, %b : tensor<8xindex>, tensor<8xindex>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] {
  ^bb0(%x: index, %y: index):
    %s = arith.addi %x, %y : index
    sinter.yield %s : index
  } -> tensor<8xindex>
  return %0 : tensor<8xindex>
}
"""
ATTENTION_D0 = """
func.func @f(%q: tensor<1x2x16x0xbf16>, %k: tensor<1x2x16x0xbf16>,
             %v: tensor<1x2x16x0xbf16>) -> tensor<1x2x16x0xbf16> {
  %o = sinter.attention %q, %k, %v : tensor<1x2x16x0xbf16>,
      tensor<1x2x16x0xbf16>, tensor<1x2x16x0xbf16> -> tensor<1x2x16x0xbf16>
  return %o : tensor<1x2x16x0xbf16>
}
"""
BMM_INDEX = """
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>,
             %c: tensor<2x4x4xindex>) -> tensor<2x4x4xindex> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%c : tensor<2x4x4xindex>) -> tensor<2x4x4xindex>
  return %0 : tensor<2x4x4xindex>
}
"""
TANH_I64 = """
func.func @f(%a: tensor<4xi64>, %c: tensor<4xi64>) -> tensor<4xi64> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<tanh> ins(%a : tensor<4xi64>) outs(%c : tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
"""
HUGE = """
func.func @f(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %a : tensor<4294967296x4294967296xf32>
}
"""
NESTED = """
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }
}
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }
}
"""
PRIVATE = "func.func private @g(%a: tensor<4xf32>) -> tensor<4xf32> {\n" \
          "  return %a : tensor<4xf32>\n}\n"

CASES = [
    ("fused over index", FUSED_INDEX, ["cuda:sm_90a"]),
    ("attention head dim 0", ATTENTION_D0, ["cpu", "cuda:sm_90a"]),
    ("batch_matmul index init", BMM_INDEX, ["cpu", "cuda:sm_90a"]),
    ("elementwise tanh i64", TANH_I64, ["cpu", "cuda:sm_90a"]),
    ("10,000 nested regions", gen_deep("regions", 10000), ["cpu"]),
    ("20,000 nested tuples", gen_deep("tuples", 20000), ["cuda:sm_90a"]),
    ("2^64 elements", HUGE, ["cpu", "cuda:sm_90a"]),
    ("functions of one name", NESTED, ["cpu", "cuda:sm_90a"]),
    ("no public function", PRIVATE, ["cpu", "cuda:sm_90a"]),
]

for name, text, targets in CASES:
    for target in targets:
        with tempfile.TemporaryDirectory() as out:
            try:
                sinter.compile(text, target=target, out_dir=out)
            except sinter.CompileError as e:
                first = str(e).splitlines()[0]
                print("%s [%s]: %s" % (name, target, first))
                continue
        raise AssertionError("%s [%s] compiled" % (name, target))

# CHECK: fused over index [cuda:sm_90a]: <input>:3:8: error: 'sinter.fused' op the CUDA backend needs integer or floating-point elements, got 'tensor<8xindex>' (use i64)
# CHECK: attention head dim 0 [cpu]: <input>:4:8: error: 'sinter.attention' op head dimension must be at least 1, got 0
# CHECK: attention head dim 0 [cuda:sm_90a]: <input>:4:8: error: 'sinter.attention' op head dimension must be at least 1, got 0
# CHECK: batch_matmul index init [cpu]: <input>:4:8: error: 'linalg.batch_matmul' with operands of element types f32, f32, index
# CHECK: batch_matmul index init [cuda:sm_90a]: <input>:4:8: error: 'linalg.batch_matmul'
# CHECK: elementwise tanh i64 [cpu]: <input>:3:8: error: 'linalg.elementwise' with kind tanh on i64 elements
# CHECK: elementwise tanh i64 [cuda:sm_90a]: <input>:3:8: error: 'linalg.elementwise' with kind tanh on i64 elements
# CHECK: 10,000 nested regions [cpu]: <input>:129:14: error: nesting deeper than 256
# CHECK: 20,000 nested tuples [cuda:sm_90a]: <input>:1:1553: error: nesting deeper than 256
# CHECK: 2^64 elements [cpu]: <input>:2:14: error: 'tensor<4294967296x4294967296xf32>' holds more than 2^63 bytes
# CHECK: 2^64 elements [cuda:sm_90a]: <input>:2:14: error: 'tensor<4294967296x4294967296xf32>' holds more than 2^63 bytes
# CHECK: functions of one name [cpu]: <input>:2:1: error: nested modules are not compiled
# CHECK: functions of one name [cuda:sm_90a]: <input>:2:1: error: nested modules are not compiled
# CHECK: no public function [cpu]: <input>:1:1: error: the module has no public function with a body to compile (@g is private)
# CHECK: no public function [cuda:sm_90a]: <input>:1:1: error: the module has no public function with a body to compile (@g is private)

# Crash 2: index and tensor<4xindex> arguments for CUDA compile (index is
# an int64 scalar or buffer); compiled without loading (no GPU needed).
INDEX_ARGS = """
func.func @f(%n: index, %ids: tensor<4xindex>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
with tempfile.TemporaryDirectory() as out:
    sinter._capi.compile_to_dir(INDEX_ARGS, out, "<input>",
                                sinter._capi.option_string(
                                    {"target": "cuda:sm_90a"}))
    import json  # noqa: E402
    args = json.load(open(os.path.join(out, "manifest.json")))[
        "functions"][0]["arguments"]
    print("index arguments [cuda:sm_90a]:",
          [(a["name"], a["dtype"], a["bytes"]) for a in args[:2]])
# CHECK: index arguments [cuda:sm_90a]: [('n', 'int64', 8), ('ids', 'int64', 32)]

# The interpreter is alive and compiles.
prog = sinter.compile("func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
                      "  return %0 : tensor<4xf32>\n}\n")
import numpy as np  # noqa: E402
print("alive:", prog.run("twice", np.arange(4, dtype=np.float32)).tolist())
# CHECK: alive: [0.0, 2.0, 4.0, 6.0]
