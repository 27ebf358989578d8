//===- CPUTarget.cpp - Host shared-object artifacts -----------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CPU/CPUTarget.h"

#include "sinter/Artifact/Checksums.h"
#include "sinter/Artifact/Manifest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>

using namespace mlir;

//===----------------------------------------------------------------------===//
// Function descriptions and the manifest
//===----------------------------------------------------------------------===//

/// The numpy name of a storable element type, or "" when the CPU calling
/// convention has no numpy equivalent for it.
static std::string getDTypeName(Type type) {
  namespace value = sinter::manifest::value;
  if (type.isF16())
    return value::kFloat16;
  if (type.isBF16())
    return value::kBfloat16;
  if (type.isF32())
    return value::kFloat32;
  if (type.isF64())
    return value::kFloat64;
  if (type.isIndex())
    return value::kInt64;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 1)
      return value::kBool;
    if (!llvm::is_contained({8u, 16u, 32u, 64u}, intType.getWidth()))
      return "";
    // int8 ... uint64: a dtype of the manifest schema.
    std::string name = (intType.isUnsigned() ? "uint" : "int") +
                       std::to_string(intType.getWidth());
    return sinter::manifest::findDType(name) ? name : "";
  }
  return "";
}

/// Scalars are passed by value; restrict them to types whose C ABI is the
/// one of a plain C scalar.
static bool isSupportedScalar(Type type) {
  return type.isF32() || type.isF64() || type.isIndex() || type.isInteger(1) ||
         type.isInteger(32) || type.isInteger(64);
}

static FailureOr<sinter::ArgumentInfo> describeValue(func::FuncOp func,
                                                     Type type, StringRef what,
                                                     unsigned index,
                                                     bool isResult) {
  // Arguments are reported where they are declared, results at the function.
  Location loc = isResult ? func.getLoc() : func.getArgument(index).getLoc();
  auto fail = [&](const Twine &reason) -> FailureOr<sinter::ArgumentInfo> {
    return emitError(loc) << what << " #" << index << " of @"
                          << func.getSymName() << " (" << type
                          << "): " << reason;
  };
  sinter::ArgumentInfo info;
  info.role = isResult ? sinter::manifest::value::kOutput
                       : sinter::manifest::value::kInput;
  Type elementType = type;
  if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
    if (!tensorType.hasStaticShape())
      return fail("dynamic dimensions are not supported by the CPU calling "
                  "convention yet; give every dimension a static size");
    if (tensorType.getEncoding())
      return fail("tensors with an encoding are not supported");
    llvm::append_range(info.shape, tensorType.getShape());
    elementType = tensorType.getElementType();
  } else if (isa<ShapedType>(type)) {
    return fail("expected a statically shaped tensor or a scalar");
  } else {
    if (isResult) {
      std::string tensor;
      llvm::raw_string_ostream(tensor) << RankedTensorType::get({}, type);
      return fail("scalar results are not supported; return a 0-d tensor (" +
                  tensor + ") instead");
    }
    if (!isSupportedScalar(type))
      return fail("scalar arguments must be f32, f64, i1, i32, i64 or index");
    info.scalar = true;
  }
  info.dtype = getDTypeName(elementType);
  if (info.dtype.empty())
    return fail("element type has no numpy equivalent");
  return info;
}

FailureOr<SmallVector<sinter::FunctionInfo>>
sinter::describeFunctions(ModuleOp module, const ArgumentNameMap &names) {
  SmallVector<FunctionInfo> functions;
  bool anyFailed = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    FunctionInfo info;
    info.name = func.getSymName().str();
    auto namesIt = names.find(info.name);
    FunctionType type = func.getFunctionType();
    for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
      FailureOr<ArgumentInfo> arg =
          describeValue(func, argType, "argument", i, /*isResult=*/false);
      if (failed(arg)) {
        anyFailed = true;
        continue;
      }
      if (auto name = func.getArgAttrOfType<StringAttr>(i, "sinter.name"))
        arg->name = name.str();
      else if (namesIt != names.end() && i < namesIt->second.size() &&
               !namesIt->second[i].empty())
        arg->name = namesIt->second[i];
      else
        arg->name = "arg" + std::to_string(i);
      info.arguments.push_back(std::move(*arg));
    }
    for (auto [i, resultType] : llvm::enumerate(type.getResults())) {
      FailureOr<ArgumentInfo> result =
          describeValue(func, resultType, "result", i, /*isResult=*/true);
      if (failed(result)) {
        anyFailed = true;
        continue;
      }
      if (auto name = func.getResultAttrOfType<StringAttr>(i, "sinter.name"))
        result->name = name.str();
      else
        result->name = "result" + std::to_string(i);
      info.arguments.push_back(std::move(*result));
    }
    functions.push_back(std::move(info));
  }
  if (anyFailed)
    return failure();
  if (functions.empty())
    return module.emitError(
        "the module has no public function with a body to compile");
  return functions;
}

std::string sinter::cpuManifest(ArrayRef<FunctionInfo> functions,
                                ArrayRef<std::string> entryPoints,
                                llvm::Module &llvmModule) {
  namespace key = manifest::key;
  namespace value = manifest::value;
  std::string code;
  {
    llvm::raw_string_ostream codeStream(code);
    llvmModule.print(codeStream, nullptr);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute(key::kFormatVersion, manifest::kCPUFormatVersion);
    json.attribute(key::kTarget, "cpu");
    json.attribute(key::kLibrary, kCPULibraryFile);
    json.attribute(key::kCodeSha256, sha256Hex(code));
    json.attribute(key::kCallingConvention,
                   manifest::kCPUSymbolPrefix +
                       std::string("<name>(pointers to memref descriptors "
                                   "{allocated, aligned, offset, sizes[rank], "
                                   "strides[rank]}, scalars by value): "
                                   "inputs, then outputs"));
    json.attributeArray(key::kEntryPoints, [&] {
      for (const std::string &symbol : entryPoints)
        json.value(symbol);
    });
    json.attributeArray(key::kFunctions, [&] {
      for (const FunctionInfo &function : functions) {
        json.object([&] {
          json.attribute(key::kName, function.name);
          json.attribute(key::kSymbol, manifest::cpuSymbol(function.name));
          json.attributeArray(key::kArguments, [&] {
            for (auto [index, arg] : llvm::enumerate(function.arguments)) {
              json.object([&] {
                json.attribute(key::kIndex, static_cast<int64_t>(index));
                json.attribute(key::kName, arg.name);
                json.attribute(key::kRole, arg.role);
                json.attribute(key::kKind,
                               arg.scalar ? value::kScalar : value::kBuffer);
                json.attribute(key::kDtype, arg.dtype);
                // One line per shape keeps the manifest readable.
                std::string shape;
                llvm::raw_string_ostream shapeStream(shape);
                shapeStream << "[";
                llvm::interleaveComma(arg.shape, shapeStream);
                shapeStream << "]";
                json.attributeBegin(key::kShape);
                json.rawValue(shape);
                json.attributeEnd();
                int64_t bytes = manifest::findDType(arg.dtype)->bytes;
                for (int64_t d : arg.shape)
                  bytes *= d;
                json.attribute(key::kBytes, bytes);
              });
            }
          });
        });
      }
    });
  });
  os << "\n";
  return text;
}

SmallVector<std::string> sinter::exportedEntryPoints(llvm::Module &llvmModule) {
  SmallVector<std::string> symbols;
  for (llvm::Function &function : llvmModule)
    if (!function.isDeclaration() && function.hasExternalLinkage() &&
        function.getName().starts_with(manifest::kCPUSymbolPrefix))
      symbols.push_back(function.getName().str());
  llvm::sort(symbols);
  return symbols;
}

void sinter::embedManifestDigest(llvm::Module &llvmModule,
                                 StringRef manifestText) {
  llvm::Constant *digest = llvm::ConstantDataArray::getString(
      llvmModule.getContext(), sha256Hex(manifestText.str()),
      /*AddNull=*/true);
  auto *global = new llvm::GlobalVariable(
      llvmModule, digest->getType(), /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage, digest,
      manifest::kCPUManifestDigestSymbol);
  global->setVisibility(llvm::GlobalValue::DefaultVisibility);
}

bool sinter::writeCPUArtifact(StringRef manifestText, StringRef outDir,
                              std::string &error) {
  auto path = [&](StringRef name) {
    SmallString<128> p(outDir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  auto library = llvm::MemoryBuffer::getFile(path(kCPULibraryFile),
                                             /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!library) {
    error = "cannot read " + path(kCPULibraryFile) + ": " +
            library.getError().message();
    return false;
  }
  // SHA256SUMS last: a directory whose files all match it is complete.
  std::string sums =
      formatChecksums({{manifest::kManifestFile, manifestText.str()},
                       {kCPULibraryFile, (*library)->getBuffer().str()}});
  for (auto [name, text] :
       {std::pair<StringRef, StringRef>(manifest::kManifestFile, manifestText),
        {manifest::kChecksumFile, sums}}) {
    std::error_code ec;
    llvm::raw_fd_ostream file(path(name), ec, llvm::sys::fs::OF_None);
    if (!ec) {
      file << text;
      file.close();
      ec = file.error();
    }
    if (ec) {
      error = "cannot write " + path(name) + ": " + ec.message();
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// LLVM IR and object code for the host
//===----------------------------------------------------------------------===//

/// LLVM's levels by number (sinterc's --cpu-opt-level).
static llvm::CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  return llvm::CodeGenOpt::getLevel(std::min(optLevel, 3u))
      .value_or(llvm::CodeGenOptLevel::Default);
}
static llvm::OptimizationLevel passLevel(unsigned optLevel) {
  const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  return levels[std::min(optLevel, 3u)];
}

static std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(std::string &error, unsigned optLevel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  // The artifact runs on the machine that compiles it (like MLIR's
  // ExecutionEngine), so use every feature the host CPU has.
  llvm::SubtargetFeatures features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(),
      llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      codeGenLevel(optLevel)));
  if (!machine)
    error = "cannot create a target machine for " + triple.str();
  return machine;
}

std::unique_ptr<llvm::Module>
sinter::translateForHost(ModuleOp module, llvm::LLVMContext &llvmContext,
                         unsigned optLevel) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(error, optLevel);
  if (!machine) {
    module.emitError() << "host code generation: " << error;
    return nullptr;
  }

  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "sinter_kernels");
  if (!llvmModule) {
    module.emitError("translation of the lowered module to LLVM IR failed");
    return nullptr;
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());

  // Export only the C-interface entry points: the plain functions they wrap
  // become internal, so they are inlined into the wrappers and cannot be
  // interposed by same-named symbols of the host process (`main`).
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration() &&
        !function.getName().starts_with(manifest::kCPUSymbolPrefix))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);

  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(machine.get(), tuning);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);
  llvm::OptimizationLevel level = passLevel(optLevel);
  llvm::ModulePassManager passes =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  passes.run(*llvmModule, moduleAM);
  return llvmModule;
}

/// A strided copy between two memrefs of any layout: the runtime function
/// that memref.copy lowers to when a side is not contiguous. Compiled into
/// the artifact only when it is called, so that artifacts never depend on
/// MLIR's runtime libraries.
static constexpr const char *kMemrefCopySource = R"C(
#include <stdint.h>
#include <string.h>

typedef struct {
  int64_t rank;
  void *descriptor;
} SinterUnrankedMemRef;

typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
} SinterStridedMemRef;

__attribute__((visibility("hidden"))) void
memrefCopy(int64_t elemSize, SinterUnrankedMemRef *src,
                SinterUnrankedMemRef *dst) {
  int64_t rank = src->rank;
  SinterStridedMemRef *s = (SinterStridedMemRef *)src->descriptor;
  SinterStridedMemRef *d = (SinterStridedMemRef *)dst->descriptor;
  char *sBase = s->aligned + s->offset * elemSize;
  char *dBase = d->aligned + d->offset * elemSize;
  if (rank == 0) {
    memcpy(dBase, sBase, elemSize);
    return;
  }
  const int64_t *sizes = s->sizesAndStrides;
  const int64_t *sStrides = s->sizesAndStrides + rank;
  const int64_t *dStrides = d->sizesAndStrides + rank;
  for (int64_t r = 0; r < rank; ++r)
    if (sizes[r] == 0)
      return;
  int64_t index[rank];
  for (int64_t r = 0; r < rank; ++r)
    index[r] = 0;
  int rowsContiguous = sStrides[rank - 1] == 1 && dStrides[rank - 1] == 1;
  int64_t inner = rowsContiguous ? sizes[rank - 1] : 1;
  for (;;) {
    int64_t sOff = 0, dOff = 0;
    for (int64_t r = 0; r < rank; ++r) {
      sOff += index[r] * sStrides[r];
      dOff += index[r] * dStrides[r];
    }
    memcpy(dBase + dOff * elemSize, sBase + sOff * elemSize,
           inner * elemSize);
    int64_t r = rowsContiguous ? rank - 2 : rank - 1;
    while (r >= 0 && ++index[r] == sizes[r])
      index[r--] = 0;
    if (r < 0)
      return;
  }
}
)C";

/// Runs `program args...`; on failure returns false with the command's
/// diagnostics in `error`.
static bool runTool(StringRef program, ArrayRef<std::string> args,
                    std::string &error) {
  SmallString<128> logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sinter-link", "log", logPath)) {
    error = "cannot create a temporary file: " + ec.message();
    return false;
  }
  SmallVector<StringRef> argv;
  argv.push_back(program);
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().trim().str();
  llvm::sys::fs::remove(logPath);
  if (rc == 0)
    return true;
  error = "`" + llvm::join(argv, " ") + "` failed";
  if (!execError.empty())
    error += ": " + execError;
  if (!log.empty())
    error += ":\n" + log;
  return false;
}

bool sinter::linkHostSharedObject(llvm::Module &llvmModule, StringRef outDir,
                                  std::string &error, unsigned optLevel) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(error, optLevel);
  if (!machine)
    return false;

  SmallString<128> objectPath, runtimePath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "sinter-kernels", "o", objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(objectPath);
    if (!runtimePath.empty())
      llvm::sys::fs::remove(runtimePath);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      error = "cannot write " + objectPath.str().str() + ": " + ec.message();
      return false;
    }
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      error = "the host target cannot emit object files";
      return false;
    }
    codegen.run(llvmModule);
  }

  std::string compiler = "cc";
  if (const char *fromEnv = std::getenv("SINTER_CC"))
    compiler = fromEnv;
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(compiler);
  if (!program) {
    error = "cannot find the C compiler driver `" + compiler +
            "` to link kernels.so (set $SINTER_CC to another one)";
    return false;
  }

  SmallString<128> soPath(outDir);
  llvm::sys::path::append(soPath, kCPULibraryFile);
  std::vector<std::string> args = {"-shared", "-o", soPath.str().str(),
                                   objectPath.str().str()};
  if (llvm::Function *copy = llvmModule.getFunction("memrefCopy");
      copy && copy->isDeclaration()) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "sinter-runtime", "c", runtimePath)) {
      error = "cannot create a temporary file: " + ec.message();
      return false;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(runtimePath, ec, llvm::sys::fs::OF_None);
    os << kMemrefCopySource;
    os.close();
    args.insert(args.end(), {"-O2", "-fPIC", runtimePath.str().str()});
  }
  // Every symbol must resolve now (to libm, libc or libgcc), not when the
  // artifact is loaded.
  args.insert(args.end(), {"-lm", "-Wl,--no-undefined"});
  return runTool(*program, args, error);
}
