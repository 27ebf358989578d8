// RUN: sinter-opt %s --sinter-lower-to-loops | FileCheck %s --check-prefix=TENSOR
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF
// RUN: sinter-opt %s --sinter-lower-to-loops --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops | FileCheck %s --check-prefix=LOOPS

// Attention never materialises the Sq x Skv score or probability matrix:
// with Sq = 1000 and Skv = 1500 (ragged for 64 x 64 tiles), neither the
// tensor form nor the bufferized form has a value of that extent; the
// largest scratch buffer is the 64 x 64 score tile of one program.

// TENSOR-LABEL: func.func @long_sequences
// TENSOR-NOT:     {{1000x1500|1500x1000}}
// TENSOR:         tensor.empty() : tensor<64x64xf32>
// TENSOR-NOT:     {{1000x1500|1500x1000}}
// TENSOR:         return

// BUF-LABEL: func.func @long_sequences
// BUF-NOT:     {{1000x1500|1500x1000}}
// BUF:         memref.alloc() {{.*}} : memref<64x64xf32>
// BUF-NOT:     {{1000x1500|1500x1000}}
// BUF:         scf.for
// BUF-NOT:       memref.alloc
// BUF:           scf.yield
// BUF-NOT:     {{1000x1500|1500x1000}}
// BUF:         return

// LOOPS-LABEL: func.func @long_sequences
// LOOPS-NOT:     {{1000x1500|1500x1000|linalg\.}}
// LOOPS:         return
func.func @long_sequences(%q: tensor<1x2x1000x16xf32>, %k: tensor<1x2x1500x16xf32>,
                          %v: tensor<1x2x1500x16xf32>)
    -> (tensor<1x2x1000x16xf32>, tensor<1x2x1000xf32>) {
  %o, %lse = sinter.attention %q, %k, %v {causal}
      : tensor<1x2x1000x16xf32>, tensor<1x2x1500x16xf32>, tensor<1x2x1500x16xf32>
      -> tensor<1x2x1000x16xf32>, tensor<1x2x1000xf32>
  return %o, %lse : tensor<1x2x1000x16xf32>, tensor<1x2x1000xf32>
}
