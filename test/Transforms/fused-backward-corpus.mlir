// buildFusedBackward over the chains fusion finds in real models (the
// torch-mlir corpus of test/Frontends): the backward of every sinter.fused
// is built in place, with no missing derivative rule and no invalid IR
// (GPT-2 in train mode has a chain whose only result is a boolean mask:
// its gradient is none).
// RUN: sinter-opt %S/../Frontends/Inputs/gpt2_sdpa_b2_f32_train.linalg.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --sinter-test-fused-backward=each=1 2>&1 >/dev/null | FileCheck %s
// RUN: sinter-opt %S/../Frontends/Inputs/llama_sdpa_b2_bf16.linalg.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --sinter-test-fused-backward=each=1 2>&1 >/dev/null | FileCheck %s
// RUN: sinter-opt %S/../Frontends/Inputs/gemma2_eager_b2_f32.linalg.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --sinter-test-fused-backward=each=1 2>&1 >/dev/null | FileCheck %s
// RUN: sinter-opt %S/../Frontends/Inputs/vit_eager_b1_bf16.linalg.mlir --sinter-fusion-pipeline 2>/dev/null | sinter-opt --sinter-test-fused-backward=each=1 2>&1 >/dev/null | FileCheck %s
// CHECK-NOT: error:
// CHECK: remark: built the backward of this sinter.fused
// CHECK-NOT: error:
