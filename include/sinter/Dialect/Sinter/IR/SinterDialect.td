//===- SinterDialect.td - The sinter dialect ---------------*- tablegen -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD
#define SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD

include "mlir/IR/OpBase.td"

def Sinter_Dialect : Dialect {
  let name = "sinter";
  let summary = "Fused transformer operators: attention, softmax, norms, "
                "AdamW and elementwise chains";
  let description = [{
    The `sinter` dialect describes the hot operators of transformer training
    and inference as single ops with value semantics on tensors. Fusion passes
    raise them out of linalg-on-tensors and TOSA; lowering passes turn them
    into tiled kernels (online-softmax attention, one-pass norms, multi-tensor
    AdamW, single-pass elementwise chains) for the CPU and for NVIDIA GPUs.

    Numerical conventions shared by every op:
    * Inputs may be f16, bf16 or f32; all reductions and accumulations are
      carried out in f32 and results are rounded once to the result type.
    * Statistics results (attention logsumexp, norm mean and rstd) are f32.
    * Random numbers (dropout) come from the counter-based Philox4x32-10
      generator keyed by a 64-bit seed and the element's linear offset, so
      every backend produces the same mask (see docs/Rationale.md).
  }];
  let cppNamespace = "::sinter";
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

class Sinter_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sinter_Dialect, mnemonic, traits>;

#endif // SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD
