// RUN: sinter-opt %s --sinter-fuse-reduction-producers --split-input-file | FileCheck %s --enable-var-scope

// The log-sum-exp of a cross-entropy over bf16 logits, reduced from
// bench/train_gpt2.py's training forward (bf16 autocast) as torch-mlir
// lowers it: the widening is fused into the max, the widening and exp(x - m)
// into the sum; the widening, read by both, is recomputed in each.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#rowb = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @logsumexp
//  CHECK-SAME: (%[[X:.*]]: tensor<8x512xbf16>)
//       CHECK: %[[M:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<8x512xbf16>)
//       CHECK:   arith.extf
//       CHECK:   arith.maximumf
//       CHECK: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[X]], %{{.*}} : tensor<8x512xbf16>, tensor<8x1xf32>)
//       CHECK:   arith.extf
//       CHECK:   arith.subf
//       CHECK:   math.exp
//       CHECK:   arith.addf
//   CHECK-NOT: tensor<8x512xf32>
func.func @logsumexp(%x: tensor<8x512xbf16>) -> tensor<8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x512xbf16>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<8x512xf32>
  %r = tensor.empty() : tensor<8xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%w : tensor<8x512xf32>) outs(%m0 : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %mx = arith.maximumf %in, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<8xf32>
  %mb = tensor.expand_shape %m [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %p = linalg.generic {indexing_maps = [#id, #rowb, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %mb : tensor<8x512xf32>, tensor<8x1xf32>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%in: f32, %mm: f32, %out: f32):
    %d = arith.subf %in, %mm : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<8x512xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<8x512xf32>) outs(%s0 : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A producer with a user outside the reduction stays for it, and the
// reduction recomputes its own copy.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @shared
//       CHECK: %[[E:.*]] = linalg.generic {{.*}}["parallel", "parallel"]
//       CHECK:   math.exp
//       CHECK: %[[S:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%arg0 : tensor<8x512xf32>)
//       CHECK:   math.exp
//       CHECK: return %[[E]], %[[S]]
func.func @shared(%x: tensor<8x512xf32>) -> (tensor<8x512xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x512xf32>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %ex = math.exp %in : f32
    linalg.yield %ex : f32
  } -> tensor<8x512xf32>
  %r = tensor.empty() : tensor<8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<8x512xf32>) outs(%s0 : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %p, %s : tensor<8x512xf32>, tensor<8xf32>
}

// -----

// A shared producer that reads more bytes than its result (a sum of three
// gradients, as GPT-2's residual-stream gradient sums 25 and the
// embedding's backward reads it too) is not recomputed: the reduction
// reads its result, one tensor instead of three.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @shared_sum
//       CHECK: %[[P:.*]] = linalg.generic {{.*}}["parallel", "parallel"]
//       CHECK: linalg.generic {{.*}}["reduction", "parallel"]{{.*}} ins(%[[P]] : tensor<8x512xf32>)
//  CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
//  CHECK-NEXT:   %[[T:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
//  CHECK-NEXT:   linalg.yield %[[T]]
func.func @shared_sum(%a: tensor<8x512xf32>, %b: tensor<8x512xf32>, %c: tensor<8x512xf32>) -> (tensor<8x512xf32>, tensor<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %xy = arith.addf %x, %y : f32
    %xyz = arith.addf %xy, %z : f32
    linalg.yield %xyz : f32
  } -> tensor<8x512xf32>
  %r = tensor.empty() : tensor<512xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%r : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%p : tensor<8x512xf32>) outs(%s0 : tensor<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<512xf32>
  return %p, %s : tensor<8x512xf32>, tensor<512xf32>
}

// -----

// Cross-entropy picking the target's logit: the gather of the widened
// logits widens the one element it reads.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pick
//  CHECK-SAME: (%[[X:.*]]: tensor<8x512xbf16>
//       CHECK: linalg.generic
//       CHECK:   %[[V:.*]] = tensor.extract %[[X]][
//       CHECK:   %[[F:.*]] = arith.extf %[[V]] : bf16 to f32
//       CHECK:   linalg.yield %[[F]]
//   CHECK-NOT: tensor<8x512xf32>
func.func @pick(%x: tensor<8x512xbf16>, %t: tensor<8x1xi64>) -> tensor<8x1xf32> {
  %e = tensor.empty() : tensor<8x512xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x512xbf16>) outs(%e : tensor<8x512xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<8x512xf32>
  %o = tensor.empty() : tensor<8x1xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<8x1xi64>) outs(%o : tensor<8x1xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %in : i64 to index
    %v = tensor.extract %w[%i, %j] : tensor<8x512xf32>
    linalg.yield %v : f32
  } -> tensor<8x1xf32>
  return %g : tensor<8x1xf32>
}

// -----

// Not taken: a producer that reads linalg.index is not computed at a
// gather (its element depends on where it is written), and a reduction
// reading a producer through a broadcast is left (the producer would be
// recomputed once per broadcast copy).

#id = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @left
//       CHECK: %[[I:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<512xf32>)
//       CHECK: tensor.extract %[[I]]
//       CHECK: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[I]] : tensor<512xf32>)
func.func @left(%t: tensor<8x1xi64>) -> (tensor<8x1xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %iota = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<512xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    linalg.yield %f : f32
  } -> tensor<512xf32>
  %o = tensor.empty() : tensor<8x1xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<8x1xi64>) outs(%o : tensor<8x1xf32>) {
  ^bb0(%in: i64, %out: f32):
    %j = arith.index_cast %in : i64 to index
    %v = tensor.extract %iota[%j] : tensor<512xf32>
    linalg.yield %v : f32
  } -> tensor<8x1xf32>
  %r = tensor.empty() : tensor<8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#c, #row], iterator_types = ["parallel", "reduction"]} ins(%iota : tensor<512xf32>) outs(%s0 : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %g, %s : tensor<8x1xf32>, tensor<8xf32>
}
