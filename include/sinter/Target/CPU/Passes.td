//===- Passes.td - CPU backend passes ----------------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CPU_PASSES_TD
#define SINTER_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExportEntryPointsPass
    : Pass<"sinter-cpu-export-entry-points", "mlir::ModuleOp"> {
  let summary = "Request C-interface wrappers for the public functions";
  let description = [{
    Marks every public function that has a body with `llvm.emit_c_interface`,
    so that the LLVM lowering emits a `_mlir_ciface_<name>` wrapper taking
    each memref as a pointer to its descriptor: the entry points of a CPU
    artifact. Private functions and external declarations are left alone,
    so calls to C functions (libm, user runtime functions) keep their names.
    (Upstream `llvm-request-c-wrappers` marks declarations too, which would
    turn a call to `f` into a call to a nonexistent `_mlir_ciface_f`.)

    Before:

    ```mlir
    func.func private @helper(f32) -> f32
    func.func @main(%x: memref<4xf32>) { ... }
    ```

    After:

    ```mlir
    func.func private @helper(f32) -> f32
    func.func @main(%x: memref<4xf32>) attributes {llvm.emit_c_interface} {
      ...
    }
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // SINTER_TARGET_CPU_PASSES_TD
