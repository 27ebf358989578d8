//===- PrecompiledHeaders.h - upstream headers parsed once a build --------===//
//
// The upstream MLIR headers most of Sinter's sources include, compiled once
// into a precompiled header that every Sinter library reuses
// (SINTER_PRECOMPILED_HEADERS, cmake/AddSinter.cmake). Parsing them is most of
// a Sinter source's compile time: measured with g++ 12 -O3 on one core,
// NVVMDialect.h alone takes 31 s, LLVMDialect.h 15 s, and KernelBuilder.cpp
// 54 s without the precompiled header against 7.5 s with it.
//
// Only upstream headers belong here, and only those that declare nothing at
// namespace scope outside `mlir` (NVGPUDialect.h's global kWarpSize would
// clash with TargetInfo.h's): they never change within a build, so the
// header is compiled once, in parallel with Sinter's TableGen steps. Every
// source must still include what it uses: a build with
// -DSINTER_PRECOMPILED_HEADERS=OFF shows a missing include (make test does
// not run one).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
