// Issue #17, crashes 5 and 6: upstream MLIR 22 builds the body of a
// custom-form linalg.batch_matmul, linalg.batch_reduce_matmul and
// linalg.elementwise while parsing, from the operands' element types, and
// crashes (SIGSEGV) for combinations its builder cannot cast or compute.
// The pre-parse scan (sinter/Target/InputGuard.h) refuses them with a
// located error, in sinter-opt and in sinterc alike; aliases are expanded.
// The rules were measured over every pairing of nine element types
// (lib/Target/InputGuard/LinalgRegionRules.cpp).
//
// RUN: split-file %s %t
// RUN: not sinter-opt %t/bmm-index.mlir 2>&1 | FileCheck %s --check-prefix=BMM
// RUN: not sinterc %t/bmm-index.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=BMM
// RUN: not sinter-opt %t/brmm-complex.mlir 2>&1 | FileCheck %s --check-prefix=BRMM
// RUN: not sinter-opt %t/tanh-i64.mlir 2>&1 | FileCheck %s --check-prefix=TANH
// RUN: not sinterc %t/tanh-i64.mlir --target=cuda:sm_90a -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=TANH
// RUN: not sinter-opt %t/add-mixed.mlir 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not sinter-opt %t/unsigned-float.mlir 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not sinter-opt %t/aliases.mlir 2>&1 | FileCheck %s --check-prefix=ALIASES
// RUN: not sinter-opt %t/unranked.mlir 2>&1 | FileCheck %s --check-prefix=UNRANKED
// RUN: not sinter-opt %t/reduce-dims.mlir 2>&1 | FileCheck %s --check-prefix=REDUCE
// RUN: not sinterc %t/transpose-perm.mlir --target=cpu -o %t/out --quiet 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: not sinter-opt %t/self-alias.mlir 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: sinter-opt %t/fine.mlir | FileCheck %s --check-prefix=FINE

// BMM: bmm-index.mlir:3:8: error: 'linalg.batch_matmul' with operands of element types f32, f32, index: its body casts every input to the init's element type
// BRMM: brmm-complex.mlir:2:3: error: 'linalg.batch_reduce_matmul' with operands of element types complex<f32>, complex<f32>, f32
// TANH: tanh-i64.mlir:2:8: error: 'linalg.elementwise' with kind tanh on i64 elements: it is a floating-point function (MLIR 22 crashes building the body of such an op; write it as a linalg.generic)
// MIXED: add-mixed.mlir:2:8: error: 'linalg.elementwise' with kind add on f32 and i64 elements: its inputs must be all integers, all floating-point or all complex
// UNSIGNED: unsigned-float.mlir:2:8: error: 'linalg.elementwise' with kind max_unsigned on f32 elements: it takes integers wider than i1
// ALIASES: aliases.mlir:6:8: error: 'linalg.elementwise' with kind exp on i1 elements
// UNRANKED: unranked.mlir:2:8: error: 'linalg.batch_matmul' with operands of element types tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
// The parsers of linalg.reduce, linalg.broadcast and linalg.transpose keep
// a null attribute when their integer list is malformed, then crash (found
// by the compiler fuzz target).
// REDUCE: reduce-dims.mlir:2:87: error: 'linalg.reduce' dimensions must be a list of 64-bit integers such as [0, 1] (MLIR 22 crashes parsing anything else)
// TRANSPOSE: transpose-perm.mlir:2:96: error: 'linalg.transpose' permutation must be a list of 64-bit integers
// An alias that names itself (found by the fuzz target: the scan's own
// expansion recursed without end).
// SELF: self-alias.mlir:3:71: error: the aliases in this type expand to more than 1048576 characters or refer to themselves
// FINE-LABEL: func.func @fine
// FINE: linalg.batch_matmul
// FINE: linalg.batch_reduce_matmul
// FINE: linalg.elementwise kind=#linalg.elementwise_kind<exp>
// FINE: linalg.elementwise kind=#linalg.elementwise_kind<add>
// FINE: linalg.elementwise kind=#linalg.elementwise_kind<max_unsigned>
// FINE: linalg.elementwise kind=#linalg.elementwise_kind<select>
// FINE: linalg.transpose
// FINE: linalg.broadcast

//--- bmm-index.mlir
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x4xindex>) -> tensor<2x4x4xindex> {
  // f32 inputs, an index init
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%c : tensor<2x4x4xindex>) -> tensor<2x4x4xindex>
  return %0 : tensor<2x4x4xindex>
}
//--- brmm-complex.mlir
func.func @f(%a: memref<2x4x4xcomplex<f32>>, %c: memref<4x4xf32>) {
  linalg.batch_reduce_matmul ins(%a, %a : memref<2x4x4xcomplex<f32>>, memref<2x4x4xcomplex<f32>>) outs(%c : memref<4x4xf32>)
  return
}
//--- tanh-i64.mlir
func.func @f(%a: tensor<4xi64>, %c: tensor<4xi64>) -> tensor<4xi64> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<tanh> ins(%a : tensor<4xi64>) outs(%c : tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
//--- add-mixed.mlir
func.func @f(%a: tensor<4xf32>, %b: tensor<4xi64>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%a, %b : tensor<4xf32>, tensor<4xi64>) outs(%c : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- unsigned-float.mlir
func.func @f(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<max_unsigned> ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- aliases.mlir
// The types and the kind through aliases (and an alias of an alias).
!bool = i1
!t = tensor<4x!bool>
#exp = #linalg.elementwise_kind<exp>
func.func @f(%a: !t, %c: !t) -> !t {
  %0 = linalg.elementwise kind=#exp ins(%a : !t) outs(%c : !t) -> !t
  return %0 : !t
}
//--- unranked.mlir
func.func @f(%a: tensor<*xf32>, %c: tensor<*xf32>) {
  %0 = linalg.batch_matmul ins(%a, %a : tensor<*xf32>, tensor<*xf32>) outs(%c : tensor<*xf32>) -> tensor<*xf32>
  return
}
//--- reduce-dims.mlir
func.func @f(%x: tensor<4x4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce ins(%x : tensor<4x4xf32>) outs(%z : tensor<4xf32>) dimensions = [sinter.adamw bf16]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<4xf32>
}
//--- transpose-perm.mlir
func.func @f(%x: tensor<4x4xf32>, %z: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.transpose ins(%x : tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) permutation = [1, 99999999999999999999]
  return %r : tensor<4x4xf32>
}
//--- self-alias.mlir
!t = tensor<4x!t>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : !t) outs(%a : !t) -> !t
  return %0 : tensor<4xf32>
}
//--- fine.mlir
!t = tensor<4xf32>
func.func @fine(%a: tensor<2x4x4xbf16>, %c: tensor<2x4x4xf32>, %r: tensor<4x4xi32>,
                %x: !t, %i: tensor<4xi8>, %p: tensor<4xi1>) {
  %0 = linalg.batch_matmul ins(%a, %a : tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) outs(%c : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %1 = linalg.batch_reduce_matmul ins(%a, %a : tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) outs(%r : tensor<4x4xi32>) -> tensor<4x4xi32>
  %2 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%x : !t) outs(%x : !t) -> !t
  %3 = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%i, %i : tensor<4xi8>, tensor<4xi8>) outs(%i : tensor<4xi8>) -> tensor<4xi8>
  %4 = linalg.elementwise kind=#linalg.elementwise_kind<max_unsigned> ins(%i, %i : tensor<4xi8>, tensor<4xi8>) outs(%i : tensor<4xi8>) -> tensor<4xi8>
  %5 = linalg.elementwise kind=#linalg.elementwise_kind<select> ins(%p, %x, %x : tensor<4xi1>, !t, !t) outs(%x : !t) -> !t
  %6 = linalg.transpose ins(%c : tensor<2x4x4xf32>) outs(%c : tensor<2x4x4xf32>) permutation = [0, 2, 1]
  %7 = linalg.broadcast ins(%x : !t) outs(%c : tensor<2x4x4xf32>) dimensions = [0, 1]
  return
}
