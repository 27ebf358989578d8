# Frontend-style linalg programs (an elementwise bias + GELU chain and a
# layer norm written as separate reductions and maps) compiled with and
# without the fusion pipeline: both must match numpy.
#
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s
# CHECK: bias_gelu fusion=True: ok
# CHECK: bias_gelu fusion=False: ok
# CHECK: layer_norm fusion=True: ok
# CHECK: layer_norm fusion=False: ok
# CHECK: ALL PASSED

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402

gen = refs.rng("fusion-e2e")

M, N = 33, 129

BIAS_GELU = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_gelu(%x: tensor<33x129xf32>, %b: tensor<129xf32>)
    -> tensor<33x129xf32> {
  %e = tensor.empty() : tensor<33x129xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<33x129xf32>, tensor<129xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  } -> tensor<33x129xf32>
  %inner = linalg.generic {indexing_maps = [#id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<33x129xf32>) outs(%e : tensor<33x129xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 0.044715 : f32
    %c = arith.constant 0.7978845608028654 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %k, %a3 : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %c, %t1 : f32
    linalg.yield %t2 : f32
  } -> tensor<33x129xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s, %inner : tensor<33x129xf32>, tensor<33x129xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%a: f32, %i: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t = math.tanh %i : f32
    %u = arith.addf %one, %t : f32
    %h = arith.mulf %half, %a : f32
    %r = arith.mulf %h, %u : f32
    linalg.yield %r : f32
  } -> tensor<33x129xf32>
  return %y : tensor<33x129xf32>
}
"""

LAYER_NORM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layer_norm(%x: tensor<33x129xf32>, %w: tensor<129xf32>,
                      %b: tensor<129xf32>) -> tensor<33x129xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<33xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<33xf32>) -> tensor<33xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<33x129xf32>) outs(%z : tensor<33xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<33xf32>
  %e = tensor.empty() : tensor<33x129xf32>
  %centered = linalg.generic {indexing_maps = [#id, #red, #id],
                              iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<33x129xf32>, tensor<33xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %n = arith.constant 129.0 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.subf %a, %mean : f32
    linalg.yield %v : f32
  } -> tensor<33x129xf32>
  %sq = linalg.generic {indexing_maps = [#id, #red],
                        iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<33x129xf32>) outs(%z : tensor<33xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %v = arith.addf %p, %acc : f32
    linalg.yield %v : f32
  } -> tensor<33xf32>
  %y = linalg.generic {indexing_maps = [#id, #red, #row, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%centered, %sq, %w, %b : tensor<33x129xf32>, tensor<33xf32>,
          tensor<129xf32>, tensor<129xf32>)
      outs(%e : tensor<33x129xf32>) {
  ^bb0(%c: f32, %q: f32, %wv: f32, %bv: f32, %o: f32):
    %n = arith.constant 129.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rstd = math.rsqrt %ve : f32
    %t = arith.mulf %c, %rstd : f32
    %s = arith.mulf %t, %wv : f32
    %r = arith.addf %s, %bv : f32
    linalg.yield %r : f32
  } -> tensor<33x129xf32>
  return %y : tensor<33x129xf32>
}
"""

x = refs.random(gen, (M, N), np.float32, -3, 3)
b = refs.random(gen, (N,), np.float32)
w = refs.random(gen, (N,), np.float32, 0.5, 1.5)
for fusion in (True, False):
    prog = sinter.compile(BIAS_GELU, fusion=fusion)
    refs.assert_close("bias_gelu fusion=%s" % fusion,
                      prog.run("bias_gelu", x, b),
                      refs.gelu_tanh(refs.f64(x) + refs.f64(b)), atol=2e-6)
for fusion in (True, False):
    prog = sinter.compile(LAYER_NORM, fusion=fusion)
    refs.assert_close("layer_norm fusion=%s" % fusion,
                      prog.run("layer_norm", x, w, b),
                      refs.layer_norm(x, 1, w, b, float(np.float32(1e-5)))[0],
                      atol=1e-5)
print("ALL PASSED")
