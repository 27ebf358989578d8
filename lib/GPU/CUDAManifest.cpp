//===- CUDAManifest.cpp - manifest.json of a CUDA artifact ----------------===//
//
// Part of the Sinter project.
//
// Writes the plans CUDAArtifact.cpp read from the host IR as manifest.json
// (docs/Manifest.md): buffers, kernel launches with their arguments and
// tensor maps, and cuBLASLt library calls with their fallback kernels.
//
//===----------------------------------------------------------------------===//

#include "CUDAPlan.h"

#include "sinter/Artifact/Manifest.h"
#include "sinter/GPU/CUDAArtifact.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace sinter::cuda_plan;
namespace manifest = sinter::manifest;
namespace key = manifest::key;
namespace value = manifest::value;

/// The manifest refers to a function argument (inputs, then outputs) or a
/// temporary by its index.
static std::pair<StringRef, int64_t> refOf(const FunctionPlan &plan,
                                           StringRef id) {
  for (auto [i, b] : llvm::enumerate(plan.arguments))
    if (b.id == id)
      return {key::kArg, static_cast<int64_t>(i)};
  for (auto [i, b] : llvm::enumerate(plan.temps))
    if (b.id == id)
      return {key::kTemp, static_cast<int64_t>(i)};
  llvm_unreachable("launch argument without a buffer");
}

/// The IEEE-754 bit pattern of a float constant, as the runtime passes it.
static int64_t floatBits(const LaunchArg &a) {
  if (a.constantType == "f64")
    return static_cast<int64_t>(llvm::bit_cast<uint64_t>(a.floatValue));
  return static_cast<int64_t>(
      llvm::bit_cast<uint32_t>(static_cast<float>(a.floatValue)));
}

/// `key`: [values...] (shapes, boxes, grid and block sizes).
static void intArray(llvm::json::OStream &json, StringRef key,
                     ArrayRef<int64_t> values) {
  json.attributeArray(key, [&] {
    for (int64_t v : values)
      json.value(v);
  });
}

static void writeBuffer(llvm::json::OStream &json, const BufferInfo &b,
                        int64_t index) {
  json.object([&] {
    if (index >= 0)
      json.attribute(key::kIndex, index);
    json.attribute(key::kName, b.name);
    json.attribute(key::kRole, b.role);
    if (!b.aliasOf.empty())
      json.attribute(key::kAliasOf, b.aliasOf);
    json.attribute(key::kKind, b.scalar ? value::kScalar : value::kBuffer);
    json.attribute(key::kDtype, b.dtype);
    intArray(json, key::kShape, b.shape);
    json.attribute(key::kBytes, b.bytes);
  });
}

/// A kernel launch entry: {"kind": "kernel", "kernel", "grid", "block",
/// "shared_memory", "args"}.
static void writeKernelLaunch(llvm::json::OStream &json,
                              const FunctionPlan &plan, const LaunchInfo &l) {
  json.object([&] {
    json.attribute(key::kKind, value::kKernel);
    json.attribute(key::kKernel, l.kernel);
    intArray(json, key::kGrid, l.grid);
    intArray(json, key::kBlock, l.block);
    json.attribute(key::kSharedMemory, l.sharedMemory);
    if (l.persistentWork > 0)
      json.attributeObject(key::kPersistent, [&] {
        json.attribute(key::kWork, l.persistentWork);
        json.attribute(key::kCtasPerSm, l.persistentCtasPerSM);
      });
    json.attributeArray(key::kArgs, [&] {
      for (const LaunchArg &a : l.args) {
        json.object([&] {
          if (a.tensorMap) {
            const TensorMapArg &tm = *a.tensorMap;
            auto [kind, index] = refOf(plan, a.buffer);
            json.attributeObject(key::kTensorMap,
                                 [&] { json.attribute(kind, index); });
            json.attribute(key::kDtype, tm.dtype);
            intArray(json, key::kShape, tm.shape);
            intArray(json, key::kBox, tm.box);
            json.attribute(key::kSwizzle, tm.swizzle);
            json.attribute(key::kL2Promotion, tm.l2Promotion);
            json.attribute(key::kOobFill, tm.oobFill);
            json.attribute(key::kInterleave, tm.interleave);
          } else if (!a.buffer.empty()) {
            auto [kind, index] = refOf(plan, a.buffer);
            json.attribute(kind, index);
          } else {
            json.attribute(key::kType, a.constantType);
            if (a.constantType[0] != 'f') {
              json.attribute(key::kValue, a.intValue);
            } else {
              // The IEEE bits are exact and cover inf/nan, which JSON
              // numbers cannot; the value is there for readers when it is
              // finite.
              if (std::isfinite(a.floatValue))
                json.attribute(key::kValue, a.floatValue);
              json.attribute(key::kBits, floatBits(a));
            }
          }
        });
      }
    });
  });
}

/// A library call entry (docs/Manifest.md): a row-major GEMM
/// C[i] = A[i] x B[i] (+ C_init[i] when "accumulate"), i < batch, with f32
/// compute and scaling, over the buffers of the kernel launch that is its
/// "fallback".
static void writeLibraryCall(llvm::json::OStream &json,
                             const FunctionPlan &plan, const LaunchInfo &l) {
  const LibraryCall &call = *l.libraryCall;
  auto buffer = [&](StringRef key, unsigned kernelArg) {
    json.attributeObject(key, [&] {
      auto [kind, index] = refOf(plan, l.args[kernelArg].buffer);
      json.attribute(kind, index);
    });
  };
  json.object([&] {
    json.attribute(key::kKind, value::kCublasGemm);
    json.attribute(key::kName, l.kernel);
    json.attribute(key::kLayout, value::kRowMajor);
    json.attribute(key::kM, call.m);
    json.attribute(key::kN, call.n);
    json.attribute(key::kK, call.k);
    json.attribute(key::kBatch, call.batch);
    buffer(key::kA, call.a);
    buffer(key::kB, call.b);
    buffer(key::kC, call.c);
    if (call.transA)
      json.attribute(key::kTransA, true);
    if (call.transB)
      json.attribute(key::kTransB, true);
    json.attribute(key::kAccumulate, call.cInit.has_value());
    if (call.cInit)
      buffer(key::kCInit, *call.cInit);
    if (call.bias) {
      buffer(key::kBias, *call.bias);
      json.attribute(key::kBiasDtype, call.biasType);
    }
    if (!call.activation.empty())
      json.attribute(key::kActivation, call.activation);
    if (call.aux)
      buffer(key::kAux, *call.aux);
    json.attribute(key::kAlpha, 1.0);
    json.attribute(key::kBeta, call.cInit ? 1.0 : 0.0);
    json.attribute(key::kADtype, call.aType);
    json.attribute(key::kBDtype, call.bType);
    json.attribute(key::kCDtype, call.cType);
    json.attribute(key::kComputeDtype, value::kFloat32);
    // Row-major leading dimensions (of the matrices as stored) and batch
    // strides, in elements.
    json.attribute(key::kLda, call.transA ? call.m : call.k);
    json.attribute(key::kLdb, call.transB ? call.k : call.n);
    json.attribute(key::kLdc, call.n);
    json.attribute(key::kStrideA, call.m * call.k);
    json.attribute(key::kStrideB, call.k * call.n);
    json.attribute(key::kStrideC, call.m * call.n);
    json.attributeBegin(key::kFallback);
    writeKernelLaunch(json, plan, l);
    json.attributeEnd();
  });
}

std::string
sinter::cuda_plan::writeManifest(ArrayRef<FunctionPlan> plans, StringRef chip,
                                 ArrayRef<std::string> entryPoints) {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    llvm::json::OStream json(os, /*IndentSize=*/2);
    json.object([&] {
      json.attribute(key::kFormatVersion, manifest::kCUDAFormatVersion);
      json.attribute(key::kTarget, ("cuda:" + chip).str());
      json.attribute(key::kCubin, sinter::kCUDACubinFile);
      json.attribute(key::kPtx, sinter::kCUDAPTXFile);
      json.attribute(key::kCallingConvention,
                     "kernel parameters: one device pointer per buffer, "
                     "scalars and tensor maps by value, in the launch's "
                     "argument order");
      json.attributeArray(key::kEntryPoints, [&] {
        for (const std::string &name : entryPoints)
          json.value(name);
      });
      json.attributeArray(key::kFunctions, [&] {
        for (const FunctionPlan &plan : plans) {
          json.object([&] {
            json.attribute(key::kName, plan.name);
            json.attributeArray(key::kArguments, [&] {
              for (auto [i, b] : llvm::enumerate(plan.arguments))
                writeBuffer(json, b, static_cast<int64_t>(i));
            });
            json.attributeArray(key::kTemps, [&] {
              for (const BufferInfo &b : plan.temps)
                writeBuffer(json, b, -1);
            });
            json.attributeArray(key::kLaunches, [&] {
              for (const LaunchInfo &l : plan.launches) {
                if (l.libraryCall) {
                  writeLibraryCall(json, plan, l);
                  continue;
                }
                writeKernelLaunch(json, plan, l);
              }
            });
          });
        }
      });
    });
  }
  os << "\n";
  return text;
}
