//===- CUDAArtifact.cpp - Compile a module into a CUDA artifact -----------===//
//
// Part of the Sinter project.
//
// After sinter-lower-to-nvvm, each public function is straight-line host IR
// over buffers: arguments made buffers (bufferization.to_buffer), fresh
// buffers (memref.alloc), kernel launches (gpu.launch_func) and results
// (bufferization.to_tensor, func.return). This file turns that into the
// manifest the runtime executes; anything else in a function is reported
// as not runnable on the CUDA target yet.
//
//===----------------------------------------------------------------------===//

#include "sinter/GPU/CUDAArtifact.h"

#include "CUDAPlan.h"
#include "CompileKernels.h"

#include "sinter/Artifact/Checksums.h"
#include "sinter/Artifact/Manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "sinter/GPU/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>

using namespace mlir;
namespace manifest = sinter::manifest;
namespace key = manifest::key;
namespace value = manifest::value;

static std::string dtypeName(Type t) {
  if (t.isF32())
    return value::kFloat32;
  if (t.isF16())
    return value::kFloat16;
  if (t.isBF16())
    return value::kBfloat16;
  if (t.isF64())
    return value::kFloat64;
  if (t.isInteger(64) || t.isIndex())
    return value::kInt64;
  if (t.isInteger(32))
    return value::kInt32;
  if (t.isInteger(16))
    return value::kInt16;
  if (t.isInteger(8))
    return value::kInt8;
  if (t.isInteger(1))
    return value::kBool;
  return "";
}

using namespace sinter::cuda_plan;

static FailureOr<int64_t> constantIndex(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return failure();
  return value.getSExtValue();
}

/// The tensor map a kernel operand passes: a cast of an
/// nvgpu.tma.create.descriptor (the kernel takes the parameter's address).
static nvgpu::TmaCreateDescriptorOp tensorMapOf(Value arg) {
  if (auto cast = arg.getDefiningOp<UnrealizedConversionCastOp>())
    if (cast->getNumOperands() == 1)
      return cast->getOperand(0).getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  return {};
}

static FailureOr<TensorMapArg>
describeTensorMap(nvgpu::TmaCreateDescriptorOp desc) {
  auto cast = desc.getTensor().getDefiningOp<memref::CastOp>();
  auto type =
      cast ? dyn_cast<MemRefType>(cast.getSource().getType()) : MemRefType();
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return failure();
  TensorMapArg tm;
  tm.dtype = dtypeName(type.getElementType());
  tm.shape.assign(type.getShape().begin(), type.getShape().end());
  for (Value d : desc.getBoxDimensions()) {
    FailureOr<int64_t> v = constantIndex(d);
    if (failed(v))
      return failure();
    tm.box.push_back(*v);
  }
  if (tm.box.size() != tm.shape.size())
    return failure();
  // The manifest's names of the modes, by enum value (the values are the
  // driver's: none, then 32/64/128-byte swizzles, 64/128/256-byte L2
  // promotion, 16/32-byte interleave).
  static const char *const swizzles[] = {value::kNone, value::k32B, value::k64B,
                                         value::k128B};
  static const char *const promotions[] = {value::kNone, value::k64B,
                                           value::k128B, value::k256B};
  static const char *const interleaves[] = {value::kNone, value::k16B,
                                            value::k32B};
  auto descType = desc.getTensorMap().getType();
  tm.swizzle = swizzles[static_cast<uint32_t>(descType.getSwizzle())];
  tm.l2Promotion = promotions[static_cast<uint32_t>(descType.getL2promo())];
  tm.oobFill = descType.getOob() == nvgpu::TensorMapOOBKind::OOB_ZERO
                   ? value::kZero
                   : value::kNan;
  tm.interleave = interleaves[static_cast<uint32_t>(descType.getInterleave())];
  return tm;
}

/// The bytes of one element of type `t` in a buffer or a kernel parameter
/// (`index` is 64-bit on the device); 0 for types the runtime cannot pass.
static int64_t elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (!t.isIntOrFloat() || dtypeName(t).empty())
    return 0;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// A buffer of a statically shaped tensor or memref, or a scalar, for the
/// manifest; a located error at `anchor` for any other type (dynamic or
/// unranked shapes, element types without a dtype, sizes past int64).
static FailureOr<BufferInfo> describe(Location loc, StringRef name,
                                      StringRef role, Type type,
                                      StringRef what = "") {
  BufferInfo info;
  info.id = info.name = name.str();
  info.role = role.str();
  auto shaped = dyn_cast<ShapedType>(type);
  Type element = shaped ? shaped.getElementType() : type;
  int64_t bytes = elementBytes(element);
  info.dtype = dtypeName(element);
  if (info.dtype.empty() || !bytes || (shaped && !shaped.hasStaticShape()))
    return emitError(loc, "the CUDA target cannot pass ")
           << type << " (" << (what.empty() ? name : what)
           << "): it takes statically shaped tensors and scalars of f16, "
              "bf16, f32, f64, i1, i8, i16, i32, i64 or index";
  info.scalar = !shaped;
  if (shaped) {
    info.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    for (int64_t d : info.shape)
      if (llvm::MulOverflow(bytes, d, bytes))
        return emitError(loc, "the buffer of ")
               << type << " (" << (what.empty() ? name : what)
               << ") has more than 2^63 bytes";
  }
  info.bytes = bytes;
  return info;
}

/// Reads the kLibraryCallAttrName dictionary of `launch`.
static FailureOr<LibraryCall> readLibraryCall(gpu::LaunchFuncOp launch,
                                              DictionaryAttr dict) {
  LibraryCall call;
  auto kind = dict.getAs<StringAttr>("kind");
  if (!kind || kind.getValue() != "cublas_gemm")
    return launch.emitError("unknown library call kind in ")
           << sinter::kLibraryCallAttrName << ": " << dict;
  call.kind = kind.getValue().str();
  ValueRange operands = launch.getKernelOperands();
  auto integer = [&](StringRef key, int64_t &out) {
    auto attr = dict.getAs<IntegerAttr>(key);
    if (!attr)
      return false;
    out = attr.getInt();
    return true;
  };
  auto operandType = [&](StringRef key, unsigned &index, std::string &dtype) {
    int64_t i;
    if (!integer(key, i) || i < 0 || i >= static_cast<int64_t>(operands.size()))
      return false;
    auto type = dyn_cast<MemRefType>(operands[i].getType());
    if (!type)
      return false;
    index = static_cast<unsigned>(i);
    dtype = dtypeName(type.getElementType());
    return true;
  };
  std::string cInitType;
  unsigned cInit = 0;
  if (!integer("m", call.m) || !integer("n", call.n) || !integer("k", call.k) ||
      !integer("batch", call.batch) || !operandType("a", call.a, call.aType) ||
      !operandType("b", call.b, call.bType) ||
      !operandType("c", call.c, call.cType) ||
      (dict.get("c_init") &&
       (!operandType("c_init", cInit, cInitType) || cInitType != call.cType)))
    return launch.emitError("malformed ")
           << sinter::kLibraryCallAttrName << ": " << dict;
  if (dict.get("c_init"))
    call.cInit = cInit;
  call.transA = dict.get("trans_a") != nullptr;
  call.transB = dict.get("trans_b") != nullptr;
  if (dict.get("bias")) {
    unsigned bias = 0;
    if (!operandType("bias", bias, call.biasType))
      return launch.emitError("malformed ")
             << sinter::kLibraryCallAttrName << ": " << dict;
    call.bias = bias;
  }
  if (auto activation = dict.getAs<StringAttr>("activation"))
    call.activation = activation.getValue().str();
  if (dict.get("aux")) {
    unsigned aux = 0;
    std::string auxType;
    if (!operandType("aux", aux, auxType) || auxType != call.cType)
      return launch.emitError("malformed ")
             << sinter::kLibraryCallAttrName << ": " << dict;
    call.aux = aux;
  }
  return call;
}

/// The launch `launch` as the manifest records it: sizes, shared memory,
/// each argument (a buffer named in `names`, a tensor map or a constant),
/// the persistent grid and the library call.
static FailureOr<LaunchInfo>
readLaunch(gpu::LaunchFuncOp launch,
           const llvm::DenseMap<Value, std::string> &names) {
  LaunchInfo info;
  info.kernel = launch.getKernelName().str();
  Value grid[3] = {launch.getGridSizeX(), launch.getGridSizeY(),
                   launch.getGridSizeZ()};
  Value block[3] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                    launch.getBlockSizeZ()};
  for (int d = 0; d < 3; ++d) {
    FailureOr<int64_t> g = constantIndex(grid[d]), b = constantIndex(block[d]);
    if (failed(g) || failed(b))
      return launch.emitError("launch sizes must be constants");
    info.grid[d] = *g;
    info.block[d] = *b;
  }
  if (Value smem = launch.getDynamicSharedMemorySize()) {
    FailureOr<int64_t> s = constantIndex(smem);
    if (failed(s))
      return launch.emitError("dynamic shared memory must be a constant");
    info.sharedMemory = *s;
  }
  for (Value arg : launch.getKernelOperands()) {
    LaunchArg la;
    auto it = names.find(arg);
    if (auto desc = tensorMapOf(arg)) {
      FailureOr<TensorMapArg> tm = describeTensorMap(desc);
      auto buf = names.find(desc.getTensor());
      if (failed(tm) || buf == names.end())
        return desc.emitError("the CUDA target takes tensor maps of "
                              "dense buffers with constant boxes");
      la.buffer = buf->second;
      la.tensorMap = std::move(*tm);
    } else if (it != names.end()) {
      la.buffer = it->second;
    } else if (Attribute c; matchPattern(arg, m_Constant(&c))) {
      if (auto f = dyn_cast<FloatAttr>(c)) {
        la.constantType = f.getType().isF64() ? "f64" : "f32";
        la.floatValue = f.getValueAsDouble();
      } else if (auto n = dyn_cast<IntegerAttr>(c)) {
        la.constantType = n.getType().isInteger(32) ? "i32" : "i64";
        la.intValue = n.getInt();
      } else {
        return launch.emitError("unsupported constant kernel argument");
      }
    } else {
      return launch.emitError("kernel argument is computed on the host; "
                              "the CUDA target cannot run that yet");
    }
    info.args.push_back(la);
  }
  if (auto dict =
          launch->getAttrOfType<DictionaryAttr>(sinter::kPersistentAttrName)) {
    auto work = dict.getAs<IntegerAttr>("work");
    auto ctas = dict.getAs<IntegerAttr>("ctas_per_sm");
    if (!work || !ctas || work.getInt() < 1 || ctas.getInt() < 1)
      return launch.emitError("malformed ")
             << sinter::kPersistentAttrName << ": " << dict;
    info.persistentWork = work.getInt();
    info.persistentCtasPerSM = ctas.getInt();
  }
  if (auto dict =
          launch->getAttrOfType<DictionaryAttr>(sinter::kLibraryCallAttrName)) {
    FailureOr<LibraryCall> call = readLibraryCall(launch, dict);
    if (failed(call))
      return failure();
    info.libraryCall = std::move(*call);
  }
  return info;
}

static FailureOr<FunctionPlan>
planFunction(func::FuncOp func, const sinter::ArgumentNames *argNames) {
  FunctionPlan plan;
  plan.name = func.getSymName().str();
  llvm::DenseMap<Value, std::string> names; // SSA value -> buffer name
  // `to` names the buffer of `from`, if it has one. (The name is copied
  // before names[to] may grow the map: a reference into it would dangle.)
  auto alias = [&](Value to, Value from) {
    auto it = names.find(from);
    if (it == names.end())
      return false;
    std::string name = it->second;
    names[to] = std::move(name);
    return true;
  };
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    Type t = arg.getType();
    if (auto tt = dyn_cast<RankedTensorType>(t); tt && !tt.hasStaticShape())
      return func.emitError("the CUDA target needs static shapes, argument #")
             << i << " is " << t;
    std::string name = "arg" + std::to_string(i);
    if (argNames) {
      auto it = argNames->find(func.getSymName());
      if (it != argNames->end() && i < it->second.size() &&
          !it->second[i].empty())
        name = it->second[i];
    }
    std::string what =
        "argument #" + std::to_string(i) + " '" + name + "' of @" + plan.name;
    FailureOr<BufferInfo> described = describe(
        arg.getLoc(), "arg" + std::to_string(i), value::kInput, t, what);
    if (failed(described))
      return failure();
    BufferInfo info = std::move(*described);
    info.name = name;
    names[arg] = info.id;
    plan.arguments.push_back(info);
  }
  // Which allocations are returned: those become the outputs.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::DenseMap<Value, unsigned> returnedAlloc;
  SmallVector<BufferInfo> outputs(ret.getNumOperands());
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    // Reshapes are views: the buffer behind them is the output.
    Value v = result;
    while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    auto toTensor = v.getDefiningOp<bufferization::ToTensorOp>();
    // Updated in place (AdamW): the result is an input's buffer; or (a
    // concatenation's later parts) a buffer a kernel made, written again.
    auto toBuffer =
        toTensor
            ? toTensor.getBuffer().getDefiningOp<bufferization::ToBufferOp>()
            : bufferization::ToBufferOp();
    while (toBuffer &&
           toBuffer.getTensor().getDefiningOp<bufferization::ToTensorOp>()) {
      toTensor =
          toBuffer.getTensor().getDefiningOp<bufferization::ToTensorOp>();
      toBuffer =
          toTensor.getBuffer().getDefiningOp<bufferization::ToBufferOp>();
    }
    auto alloc = toTensor
                     ? toTensor.getBuffer().getDefiningOp<memref::AllocOp>()
                     : memref::AllocOp();
    auto arg = toBuffer ? dyn_cast<BlockArgument>(toBuffer.getTensor())
                        : BlockArgument();
    if (arg && arg.getOwner() == &func.getBody().front()) {
      FailureOr<BufferInfo> described =
          describe(ret.getLoc(), "result" + std::to_string(i), value::kOutput,
                   result.getType());
      if (failed(described))
        return failure();
      outputs[i] = std::move(*described);
      outputs[i].aliasOf = plan.arguments[arg.getArgNumber()].name;
      continue;
    }
    if (!alloc)
      return ret.emitError("result #")
             << i << " is not computed by a kernel; the CUDA target cannot "
             << "return arguments or constants unchanged yet";
    if (returnedAlloc.count(alloc))
      return ret.emitError("result #")
             << i << " returns the same buffer as an earlier result";
    returnedAlloc[alloc] = i;
  }
  for (auto [alloc, i] : returnedAlloc) {
    // The output has the returned (possibly reshaped) tensor's shape.
    FailureOr<BufferInfo> described =
        describe(ret.getLoc(), "result" + std::to_string(i), value::kOutput,
                 ret.getOperand(i).getType());
    if (failed(described))
      return failure();
    outputs[i] = std::move(*described);
    names[alloc] = outputs[i].id;
  }
  plan.arguments.append(outputs.begin(), outputs.end());

  for (Operation &op : func.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (names.count(alloc))
        continue;
      FailureOr<BufferInfo> info =
          describe(alloc.getLoc(), "tmp" + std::to_string(plan.temps.size()),
                   value::kTemp, alloc.getType());
      if (failed(info))
        return failure();
      names[alloc] = info->id;
      plan.temps.push_back(std::move(*info));
      continue;
    }
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op)) {
      alias(toTensor, toTensor.getBuffer());
      continue;
    }
    if (isa<memref::CastOp>(op)) {
      // A cast (to the unranked memref a tensor map takes) is the same
      // memory.
      alias(op.getResult(0), op.getOperand(0));
      continue;
    }
    // Tensor maps are read where a launch takes them (tensorMapOf).
    if (isa<nvgpu::TmaCreateDescriptorOp, UnrealizedConversionCastOp>(op))
      continue;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      // A reshape of a contiguous buffer is the same memory.
      if (!alias(op.getResult(0), op.getOperand(0)))
        return op.emitError("reshape of a value the CUDA target did not "
                            "place in a buffer");
      continue;
    }
    if (auto toBuffer = dyn_cast<bufferization::ToBufferOp>(op)) {
      if (!alias(toBuffer, toBuffer.getTensor()))
        return op.emitError("the CUDA target cannot run the computation of "
                            "this kernel operand on the device yet");
      continue;
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      FailureOr<LaunchInfo> info = readLaunch(launch, names);
      if (failed(info))
        return failure();
      plan.launches.push_back(std::move(*info));
      continue;
    }
    if (isa<func::ReturnOp>(op) || matchPattern(&op, m_Constant()))
      continue;
    return op.emitError("'")
           << op.getName()
           << "' is not supported on the CUDA target yet (sinter ops, "
              "matmuls, elementwise linalg ops, slices and reshapes run on "
              "the GPU)";
  }
  return plan;
}

static LogicalResult writeFile(Operation *anchor, StringRef dir, StringRef name,
                               StringRef data) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return anchor->emitError("cannot write ") << path << ": " << ec.message();
  os << data;
  return success();
}

FailureOr<std::string>
sinter::compileCUDAToPTX(ModuleOp module, const NVVMPipelineOptions &options,
                         const StageCallback &onStage) {
  FailureOr<CompiledKernels> kernels =
      compileKernels(module, options, /*withCubin=*/false, onStage);
  if (failed(kernels))
    return failure();
  return std::move(kernels->ptx);
}

/// The kernels a PTX module defines (its `.entry` directives): the entry
/// points of the artifact, sorted.
static std::vector<std::string> ptxEntryPoints(StringRef ptx) {
  std::vector<std::string> names;
  llvm::SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (line.consume_front(".visible "))
      line = line.ltrim();
    if (!line.consume_front(".entry "))
      continue;
    StringRef name = line.ltrim().take_until(
        [](char c) { return c == '(' || llvm::isSpace(c); });
    if (!name.empty())
      names.push_back(name.str());
  }
  llvm::sort(names);
  return names;
}

/// The plans of the public functions of a module whose host side is final.
static FailureOr<std::vector<FunctionPlan>>
planFunctions(ModuleOp module, const sinter::ArgumentNames *argNames) {
  std::vector<FunctionPlan> plans;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    FailureOr<FunctionPlan> plan = planFunction(func, argNames);
    if (failed(plan))
      return failure();
    plans.push_back(std::move(*plan));
  }
  if (plans.empty())
    return module.emitError("the module has no public function to compile");
  return plans;
}

FailureOr<std::string>
sinter::planCUDAManifest(ModuleOp module, const NVVMPipelineOptions &options,
                         const ArgumentNames *argNames) {
  PassManager pm(module.getContext());
  buildCUDAOutliningPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  FailureOr<std::vector<FunctionPlan>> plans = planFunctions(module, argNames);
  if (failed(plans))
    return failure();
  std::vector<std::string> kernels;
  module.walk([&](gpu::GPUFuncOp f) {
    if (f.isKernel())
      kernels.push_back(f.getName().str());
  });
  llvm::sort(kernels);
  return writeManifest(*plans, options.chip, kernels);
}

LogicalResult sinter::compileCUDAArtifact(ModuleOp module,
                                          const NVVMPipelineOptions &options,
                                          StringRef outDir,
                                          const ArgumentNames *argNames,
                                          const StageCallback &onStage) {
  std::string chip = options.chip;
  // One LLVM compilation gives the PTX and the cubin.
  FailureOr<CompiledKernels> kernels =
      compileKernels(module, options, /*withCubin=*/true, onStage);
  if (failed(kernels))
    return failure();
  const std::string *ptx = &kernels->ptx, *cubin = &kernels->cubin;

  FailureOr<std::vector<FunctionPlan>> planned =
      planFunctions(module, argNames);
  if (failed(planned))
    return failure();
  std::vector<FunctionPlan> &plans = *planned;

  // Every launched kernel is one the cubin defines (the PTX and the cubin
  // come from the same kernels).
  std::vector<std::string> entryPoints = ptxEntryPoints(*ptx);
  for (const FunctionPlan &plan : plans)
    for (const LaunchInfo &l : plan.launches)
      if (!llvm::is_contained(entryPoints, l.kernel))
        return module.emitError("kernel ")
               << l.kernel << " of " << plan.name
               << " is not an entry of the compiled PTX";
  std::string manifestText = writeManifest(plans, chip, entryPoints);
  // SHA256SUMS last: a directory whose files all match it is complete.
  std::string sums = formatChecksums({{manifest::kManifestFile, manifestText},
                                      {kCUDACubinFile, *cubin},
                                      {kCUDAPTXFile, *ptx}});
  if (failed(writeFile(module, outDir, kCUDACubinFile, *cubin)) ||
      failed(writeFile(module, outDir, kCUDAPTXFile, *ptx)) ||
      failed(
          writeFile(module, outDir, manifest::kManifestFile, manifestText)) ||
      failed(writeFile(module, outDir, manifest::kChecksumFile, sums)))
    return failure();
  return success();
}
