// RUN: sinter-opt %s --sinter-cpu-export-entry-points | FileCheck %s

// Public functions with a body are entry points: they get a C wrapper.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @main(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %r = func.call @expf(%v) : (f32) -> f32
  %s = func.call @helper(%r) : (f32) -> f32
  memref.store %s, %x[%c0] : memref<4xf32>
  return
}

// Must not export: a declaration of a C function keeps its plain name...
// CHECK-LABEL: func.func private @expf(f32) -> f32
// CHECK-NOT: llvm.emit_c_interface
func.func private @expf(f32) -> f32

// ...and private helpers are not entry points.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT: llvm.emit_c_interface
// CHECK: return
func.func private @helper(%x: f32) -> f32 {
  return %x : f32
}

