// RUN: sinter-opt %s --sinter-raise-softmax -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --enable-var-scope
// RUN: sinter-opt %s --sinter-raise-softmax -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Softmax as frontends emit it, raised to sinter.softmax.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#keep2 = affine_map<(d0, d1) -> (d0, 0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

// torch-mlir's aten._softmax decomposition: amax into a -inf fill, keepdim
// through expand_shape, sub, exp, sum, div.
// CHECK-LABEL: func.func @torch_trailing
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[S:.*]] = sinter.softmax %[[X]] dim 1 {{.*}}: tensor<4x16xf32>
// CHECK-NEXT: return %[[S]]
// REMARK: remark: fused softmax: 544 bytes of intermediates no longer written
func.func @torch_trailing(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %mk = tensor.expand_shape %m [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %sub = linalg.generic {indexing_maps = [#id2, #keep2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mk : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x16xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %sk = tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [#id2, #keep2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %sk : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// Along axis 0, sub and exp merged in one generic, the division as a
// multiply by the reciprocal, the max started from the lowest float.
// CHECK-LABEL: func.func @leading_axis_reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<8x3xf32>)
// CHECK-NEXT: %[[S:.*]] = sinter.softmax %[[X]] dim 0 {{.*}}: tensor<8x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @leading_axis_reciprocal(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %low = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %e = tensor.empty() : tensor<8x3xf32>
  %mi = linalg.fill ins(%low : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col2], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<8x3xf32>) outs(%mi : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<8x3xf32>, tensor<3xf32>) outs(%e : tensor<8x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x3xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.generic {indexing_maps = [#id2, #col2], iterator_types = ["reduction", "parallel"]} ins(%exp : tensor<8x3xf32>) outs(%si : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %rcp = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%s : tensor<3xf32>) outs(%e1 : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.divf %one, %a : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %rcp : tensor<8x3xf32>, tensor<3xf32>) outs(%e : tensor<8x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}

// linalg.softmax, any dimension.
// CHECK-LABEL: func.func @named
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x7xf32>)
// CHECK-NEXT: %[[S:.*]] = sinter.softmax %[[X]] dim 1 {{.*}}: tensor<2x5x7xf32>
// CHECK-NEXT: return %[[S]]
func.func @named(%x: tensor<2x5x7xf32>) -> tensor<2x5x7xf32> {
  %e = tensor.empty() : tensor<2x5x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x5x7xf32>) outs(%e : tensor<2x5x7xf32>) -> tensor<2x5x7xf32>
  return %r : tensor<2x5x7xf32>
}

// A uniform scale multiplied in before the max becomes `scale`; the f32
// softmax of a bf16 tensor keeps its extf/truncf outside.
// CHECK-LABEL: func.func @scaled_bf16
// CHECK: %[[UP:.*]] = linalg.generic
// CHECK: arith.extf
// CHECK: %[[S:.*]] = sinter.softmax %[[UP]] dim 1 {scale = 1.250000e-01 : f32{{.*}}: tensor<4x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<4x16xf32>)
// CHECK: arith.truncf
func.func @scaled_bf16(%xb: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %c = arith.constant 1.250000e-01 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %eb = tensor.empty() : tensor<4x16xbf16>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xb : tensor<4x16xbf16>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %xs = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%xs : tensor<4x16xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xs, %m : tensor<4x16xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x16xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %s : tensor<4x16xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %rb = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x16xf32>) outs(%eb : tensor<4x16xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %0 = arith.truncf %a : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<4x16xbf16>
  return %rb : tensor<4x16xbf16>
}
