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

def InterchangeReductionsPass
    : Pass<"sinter-cpu-interchange-reductions", "mlir::func::FuncOp"> {
  let summary = "Move reduction loops outside the output's contiguous loop";
  let description = [{
    For structured ops on buffers whose innermost loop is a reduction and
    whose output's innermost dimension is a parallel loop (an unfused
    `linalg.matmul`: loops (i, j, k)), permutes the loops so that loop is
    innermost ((i, k, j)), generalizing named ops first. Every output
    element still accumulates over the reduction in the same sequential
    order; the innermost loop now streams contiguous rows of the output and
    of the operands, which LLVM vectorizes, instead of walking a column
    through a scalar dependence chain (256x768x2304 f32 on two cores:
    704 -> 63 ms; bench/bench_cpu_matmul.py, bench/NOTES.md). Operands
    that j indexes must have j as their contiguous dimension, so a row sum
    or a matmul with B transposed keeps its reduction innermost. Part of
    `sinter-lower-to-cpu`, before `convert-linalg-to-loops`.

    Before:

    ```mlir
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>)
                  outs(%c : memref<4x16xf32>)
    ```

    After:

    ```mlir
    linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1),
                                     (d0, d1, d2) -> (d1, d2),
                                     (d0, d1, d2) -> (d0, d2)],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %b : ...) outs(%c : ...) { ... }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // SINTER_TARGET_CPU_PASSES_TD
