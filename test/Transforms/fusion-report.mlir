// RUN: sinter-opt %s --sinter-fusion-report=%t.json | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: sinter-opt %s --sinter-fusion-report="file=- summary=true keep-attrs=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: sinter-opt %s --sinter-fusion-report="keep-attrs=true" | FileCheck %s --check-prefix=KEEP
// RUN: sinter-opt %s --sinter-raise-softmax --sinter-fusion-report="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAISED

// The report collects the `sinter.fusion` records that reportFusion() puts
// on fused ops (written by hand here), writes the JSON summary and drops
// the records from the IR.

// IR-LABEL: func.func @block
// IR-NOT: sinter.fusion
// IR: return
// KEEP: sinter.softmax {{.*}}sinter.fusion = [{bytes_avoided = 4096 : i64, pattern = "softmax"}]

// JSON: "fusions": [
// JSON-NEXT: {
// JSON-NEXT: "bytes_avoided": 4096,
// JSON-NEXT: "location": "{{.*}}fusion-report.mlir:45:8",
// JSON-NEXT: "op": "sinter.softmax",
// JSON-NEXT: "pattern": "softmax"
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT: "bytes_avoided": 1024,
// JSON-NEXT: "location": "{{.*}}fusion-report.mlir:46:8",
// JSON-NEXT: "op": "sinter.softmax",
// JSON-NEXT: "pattern": "softmax"
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT: "bytes_avoided": 512,
// JSON-NEXT: "location": "{{.*}}fusion-report.mlir:47:8",
// JSON-NEXT: "op": "sinter.fused",
// JSON-NEXT: "pattern": "elementwise"
// JSON:      "patterns": {
// JSON-NEXT: "elementwise": 1,
// JSON-NEXT: "softmax": 2
// JSON-NEXT: },
// JSON-NEXT: "total_bytes_avoided": 5632,
// JSON-NEXT: "total_fusions": 3

// SUMMARY-DAG: sinter-fusion-report: softmax: 2 fused, 5120 bytes avoided
// SUMMARY-DAG: sinter-fusion-report: elementwise: 1 fused, 512 bytes avoided

func.func @block(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %a = sinter.softmax %x dim 1 {sinter.fusion = [{bytes_avoided = 4096 : i64, pattern = "softmax"}]} : tensor<16x64xf32>
  %b = sinter.softmax %a dim 0 {sinter.fusion = [{bytes_avoided = 1024 : i64, pattern = "softmax"}]} : tensor<16x64xf32>
  %c = sinter.fused ins(%b : tensor<16x64xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] attributes {sinter.fusion = [{bytes_avoided = 512 : i64, pattern = "elementwise"}]} {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    sinter.yield %e : f32
  } -> tensor<16x64xf32>
  return %c : tensor<16x64xf32>
}

// A softmax raised in the same run is reported.
// RAISED: sinter-fusion-report: softmax: 3 fused
func.func @raised(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
