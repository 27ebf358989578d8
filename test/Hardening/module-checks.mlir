// Issue #17: what sinterc and sinter.compile accepted silently, or reported
// at <input>:0:0, is refused at the op or the argument before fusion runs
// (checkModuleForCompilation, sinter/Target/InputGuard.h).
//
// RUN: split-file %s %t
// RUN: not sinterc %t/nested.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not sinterc %t/nested.mlir --target=cuda:sm_90a -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not sinterc %t/huge.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not sinterc %t/huge.mlir --target=cuda:sm_90a -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not sinterc %t/huge-temp.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=TEMP
// RUN: not sinterc %t/reassociation.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=REASSOC
// RUN: not sinterc %t/private.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=PRIVATE
// RUN: not sinterc %t/private.mlir --target=cuda:sm_90a -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=PRIVATE
// RUN: not sinterc %t/empty.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=EMPTY

// Two functions @f, one per module: one manifest entry would have named
// either.
// NESTED: nested.mlir:1:1: error: nested modules are not compiled: sinterc compiles the public functions of one module (write them at its top level)
// HUGE: huge.mlir:1:14: error: 'tensor<4294967296x4294967296xf32>' holds more than 2^63 bytes (buffers are indexed with 64-bit integers)
// TEMP: huge-temp.mlir:2:8: error: 'tensor<3074457345618258603x3xi8>' holds more than 2^63 bytes
// Upstream's verifier reads 4294967297 as 1 (32 bits); the matchers indexed
// a shape with it (issue #17, crash 4).
// REASSOC: reassociation.mlir:19:9: error: 'tensor.expand_shape' op reassociation index 4294967297 is not dimension 1 of the 2-d expanded type (the groups must name its dimensions in order)
// PRIVATE: private.mlir:1:1: error: the module has no public function with a body to compile (@helper is private)
// EMPTY: empty.mlir:1:1: error: the module has no function to compile

//--- nested.mlir
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.addf %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
//--- huge.mlir
func.func @f(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %a : tensor<4294967296x4294967296xf32>
}
//--- huge-temp.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<3074457345618258603x3xi8>
  return %a : tensor<4xf32>
}
//--- reassociation.mlir
// torch-mlir's softmax with [[0, 1]] written [[0, 4294967297]]: the softmax
// matcher followed the reshape and indexed its shape with the index.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#keep2 = affine_map<(d0, d1) -> (d0, 0)>
#col2 = affine_map<(d0, d1) -> (d1)>

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
  %mk = tensor.expand_shape %m [[0, 4294967297]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
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
  %sk = tensor.expand_shape %s [[0, 4294967297]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [#id2, #keep2, #id2], iterator_types = ["parallel", "parallel"]} ins(%exp, %sk : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
//--- private.mlir
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
//--- empty.mlir
