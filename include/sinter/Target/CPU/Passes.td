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

def VectorizeMatmulsPass
    : Pass<"sinter-cpu-vectorize-matmuls", "mlir::func::FuncOp"> {
  let summary = "Register-tiled vector micro-kernels for leftover (batch) "
                "matmuls";
  let description = [{
    For every `linalg.matmul` on buffers with one element type, f32 or
    f64, the default (untransposed) maps and rows of unit stride: the full
    `rows` x `cols` tiles of C get a micro-kernel. It loads the tile's rows
    into vectors, and for each k loads a row of B and does one vector FMA
    per row of the tile with a broadcast element of A, then stores the
    tile: the tile stays in registers while k runs, and each element of C
    still accumulates its products in k order, one at a time (fused, so
    rounded once per step instead of twice). Column tiles are the outer
    loop, so that a panel of B stays in cache across the rows. The strips
    that do not fill a tile (the columns past the last full tile, then the
    rows past it) stay `linalg.matmul` on subviews for the scalar path.
    `cols` counts f32 lanes; f64 tiles take `cols` / 2 elements, the same
    registers. A `linalg.batch_matmul` of the same kind becomes a loop over
    the batch around the matmul of each batch's matrices (rank-reducing
    subviews), which then takes the same micro-kernel. Part of `sinter-lower-to-cpu`, before
    `sinter-cpu-interchange-reductions`, which sizes the tile for the host
    (8 x 32 with AVX-512, else 6 x 16). 256x768x2304 f32 on this
    project's two-core AVX-512 build machine: 61 -> 8.5 ms, 15 -> 106
    GFLOP/s on one thread (bench/bench_cpu_matmul.py, bench/NOTES.md).

    Before:

    ```mlir
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                  outs(%c : memref<?x?xf32>)
    ```

    After (in outline, rows = 2, cols = 8):

    ```mlir
    scf.for %j = %c0 to %n_full step %c8 {
      scf.for %i = %c0 to %m_full step %c2 {
        %c0v = vector.load %c[%i, %j] : memref<?x?xf32>, vector<8xf32>
        %c1v = vector.load %c[%i1, %j] : memref<?x?xf32>, vector<8xf32>
        %r:2 = scf.for %k = %c0 to %kd step %c1
            iter_args(%x0 = %c0v, %x1 = %c1v) -> (vector<8xf32>, vector<8xf32>) {
          %brow = vector.load %b[%k, %j] : memref<?x?xf32>, vector<8xf32>
          %a0 = memref.load %a[%i, %k] : memref<?x?xf32>
          %s0 = vector.broadcast %a0 : f32 to vector<8xf32>
          %y0 = vector.fma %s0, %brow, %x0 : vector<8xf32>
          ...
          scf.yield %y0, %y1 : vector<8xf32>, vector<8xf32>
        }
        vector.store %r#0, %c[%i, %j] : memref<?x?xf32>, vector<8xf32>
        vector.store %r#1, %c[%i1, %j] : memref<?x?xf32>, vector<8xf32>
      }
    }
    linalg.matmul ins(<rows 0..m_full>, <columns n_full..n>) outs(...)
    linalg.matmul ins(<rows m_full..m>, %b) outs(...)
    ```
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"8",
           "Rows of C per register tile">,
    Option<"cols", "cols", "int64_t", /*default=*/"32",
           "Columns of C per register tile, in f32 lanes (f64: half as "
           "many elements)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // SINTER_TARGET_CPU_PASSES_TD
