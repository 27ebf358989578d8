//===- CUDAPlan.h - The host plan of a CUDA artifact ----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// What CUDAArtifact.cpp reads from a function's final host IR -- its
// buffers, kernel launches and library calls -- and CUDAManifest.cpp writes
// as manifest.json (docs/Manifest.md).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_CUDAPLAN_H
#define SINTER_LIB_GPU_CUDAPLAN_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace sinter::cuda_plan {
using mlir::SmallVector;

struct BufferInfo {
  std::string id;      // internal: argN, resultN, tmpN
  std::string name;    // shown to users: the source name of an argument
  std::string role;    // input, output or temp
  std::string aliasOf; // an output written in place into this input
  std::string dtype;
  SmallVector<int64_t> shape;
  bool scalar = false;
  int64_t bytes = 0;
};

/// A CUDA tensor map over a dense buffer (docs/Manifest.md, format 3).
struct TensorMapArg {
  std::string dtype;
  SmallVector<int64_t> shape, box;
  std::string swizzle, l2Promotion, oobFill, interleave;
};

struct LaunchArg {
  std::string buffer;       // a buffer or scalar argument name, or
  std::string constantType; // "i64"/"i32"/"f32"/"f64" for a constant
  double floatValue = 0;
  int64_t intValue = 0;
  std::optional<TensorMapArg> tensorMap; // with `buffer`: its tensor map
};

/// A library call whose fallback is the kernel launch it belongs to: a
/// row-major GEMM C[b] = (C0[b] +) A[b] x B[b] over kernel arguments.
struct LibraryCall {
  std::string kind; // "cublas_gemm"
  int64_t m = 0, n = 0, k = 0, batch = 1;
  unsigned a = 0, b = 0, c = 0;
  std::optional<unsigned> cInit;
  std::optional<unsigned> bias; // the bias epilogue's vector
  std::string aType, bType, cType, biasType;
  /// The activation after the epilogue (docs/Manifest.md), empty for none,
  /// and its aux buffer (written by gelu_tanh, read by gelu_tanh_grad).
  std::string activation;
  std::optional<unsigned> aux;
  /// a holds A^T (k x m), b holds B^T (n x k): read in place around a
  /// transpose.
  bool transA = false, transB = false;
};

struct LaunchInfo {
  std::string kernel;
  int64_t grid[3], block[3];
  int64_t sharedMemory = 0;
  std::vector<LaunchArg> args;
  std::optional<LibraryCall> libraryCall;
  // A persistent kernel: its work items and resident blocks per SM.
  int64_t persistentWork = 0, persistentCtasPerSM = 0;
};

struct FunctionPlan {
  std::string name;
  SmallVector<BufferInfo> arguments; // inputs then outputs
  SmallVector<BufferInfo> temps;
  std::vector<LaunchInfo> launches;
};

/// manifest.json (docs/Manifest.md) of `plans`, compiled for `chip` into a
/// cubin with `entryPoints`.
std::string writeManifest(llvm::ArrayRef<FunctionPlan> plans,
                          llvm::StringRef chip,
                          llvm::ArrayRef<std::string> entryPoints);

} // namespace sinter::cuda_plan

#endif // SINTER_LIB_GPU_CUDAPLAN_H
