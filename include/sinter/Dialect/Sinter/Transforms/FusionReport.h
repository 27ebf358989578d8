//===- FusionReport.h - Remarks and records of fusions ----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The one API every raising/fusion pass uses to say what it did:
//
// * reportFusion() emits a remark at the fused op ("fused <pattern>: N bytes
//   of intermediates no longer written") and records the figure on the op as
//   the discardable attribute `sinter.fusion`: an array with one dictionary
//   `{pattern = "<pattern>", bytes_avoided = N : i64}` per call (a second
//   call on the same op appends). The `sinter-fusion-report` pass collects
//   these attributes into a JSON summary and removes them.
// * reportNearMiss() emits a remark "not fused as <pattern>: <reason>" at
//   the op a user would have expected to be fused.
//
// Pattern names used so far: "attention", "softmax", "layer_norm",
// "rms_norm", "adamw", "elementwise", and "dropout" (a frontend's dropout
// raised into Sinter's Philox dropout under allow-rng-change: a second
// record on the sinter.fused or sinter.attention that holds it, with the
// bytes of the random tensor and masks no longer written).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONREPORT_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONREPORT_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>

namespace sinter {

/// Name of the discardable attribute that records fusions on an op.
constexpr llvm::StringLiteral kFusionAttrName = "sinter.fusion";

/// Emits the fusion remark at `fusedOp` and records `pattern` and
/// `intermediateBytesAvoided` in its `sinter.fusion` attribute.
void reportFusion(mlir::Operation *fusedOp, llvm::StringRef pattern,
                  int64_t intermediateBytesAvoided);

/// Emits "not fused as <pattern>: <reason>" as a remark at `anchor`.
void reportNearMiss(mlir::Operation *anchor, llvm::StringRef pattern,
                    const llvm::Twine &reason);

/// Bytes of a statically shaped tensor of `type` (0 when the type is not a
/// statically shaped tensor with an int/float element type).
int64_t tensorBytes(mlir::Type type);

} // namespace sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONREPORT_H
