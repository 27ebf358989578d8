// RUN: sinter-opt %sinter_src_root/examples/gpt_block.mlir --sinter-fusion-pipeline --sinter-fusion-report=%t.json -mlir-print-op-on-diagnostic=false 2>%t.remarks | FileCheck %s
// RUN: sinter-opt %sinter_src_root/examples/gpt_block.mlir --sinter-fusion-pipeline 2>/dev/null | FileCheck %s --check-prefix=LEFT
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: sinter-opt %sinter_src_root/examples/gpt_block.mlir --sinter-fusion-pipeline="report=- report-summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY

// The bundled GPT-2 block fuses into exactly two layer norms, one causal
// attention and its elementwise chains; only matmuls, data movement
// (transposes, slices, reshapes) and the fills of the matmul accumulators
// stay upstream.

// CHECK-LABEL: func.func @gpt_block
// CHECK-COUNT-1: sinter.layer_norm
// CHECK: sinter.attention {{.*}}{causal}
// CHECK-SAME: -> tensor<2x4x64x32xf32>
// CHECK-COUNT-1: sinter.layer_norm
// CHECK-NOT: sinter.layer_norm
// CHECK-NOT: sinter.attention
// CHECK: return

// Nothing a pattern covers is left: no reductions, no exp/tanh/rsqrt
// outside sinter ops, no batch_matmul (both products are in the attention).
// LEFT-LABEL: func.func @gpt_block
// LEFT-NOT: linalg.generic
// LEFT-NOT: linalg.batch_matmul
// LEFT-NOT: linalg.softmax
// LEFT-COUNT-4: linalg.matmul
// LEFT-NOT: linalg.generic
// LEFT-NOT: linalg.matmul

// JSON: "patterns": {
// JSON-NEXT: "attention": 1,
// JSON-NEXT: "elementwise": {{[1-9]}},
// JSON-NEXT: "layer_norm": 2
// JSON-NEXT: },

// REMARK-DAG: gpt_block.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused attention: 790528 bytes of intermediates no longer written
// REMARK-DAG: remark: fused layer_norm:
// REMARK-DAG: remark: fused elementwise:

// SUMMARY-DAG: sinter-fusion-report: attention: 1 fused, 790528 bytes avoided
// SUMMARY-DAG: sinter-fusion-report: layer_norm: 2 fused
