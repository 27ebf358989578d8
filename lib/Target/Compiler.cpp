//===- Compiler.cpp - Source-to-artifact compilation driver ---------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/Compiler.h"

#include "sinter/Artifact/Manifest.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/InitAll.h"
#include "sinter/Target/CPU/CPUPipeline.h"
#include "sinter/Target/CPU/CPUTarget.h"
#include "sinter/Target/InputGuard.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <chrono>

#include "sinter/GPU/CUDAArtifact.h"
#include "sinter/GPU/Passes.h"
#include "sinter/Pipelines/Pipelines.h"

using namespace mlir;

void sinter::registerCompilerDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // Every LLVM IR translation (builtin, LLVM, GPU, NVVM ...) and the NVVM
  // target attribute's serialization, which the CUDA backend needs.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  sinter::registerAllDialects(registry);
}

/// "sm_90a" for "cuda:sm_90a"; "" when `target` is not a CUDA target.
static StringRef getCUDAChip(StringRef target) {
  return target.starts_with("cuda:") ? target.drop_front(5) : StringRef();
}

bool sinter::checkTarget(StringRef target, std::string &error) {
  if (target == "cpu")
    return true;
  if (target.starts_with("cuda:sm_") || target == "cuda") {
    StringRef arch = getCUDAChip(target).drop_front(3);
    if (arch.size() < 2 || !llvm::isDigit(arch[0]) || !llvm::isDigit(arch[1])) {
      error = "malformed CUDA target '" + target.str() +
              "'; expected cuda:sm_<arch>, for example cuda:sm_90a";
      return false;
    }
    return true;
  }
  error = "unknown target '" + target.str() +
          "'; expected 'cpu' or 'cuda:sm_<arch>' (for example cuda:sm_90a)";
  return false;
}

using sinter::StageTimer;

/// Records the source names of the entry-block arguments of every function
/// (`%k` gives "k").
static sinter::ArgumentNameMap collectArgumentNames(ModuleOp module,
                                                    AsmParserState &state) {
  sinter::ArgumentNameMap names;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&func.front());
    if (!def)
      return;
    SmallVector<std::string> &funcNames = names[func.getSymName()];
    for (const AsmParserState::SMDefinition &arg : def->arguments) {
      StringRef text(arg.loc.Start.getPointer(),
                     arg.loc.End.getPointer() - arg.loc.Start.getPointer());
      funcNames.push_back(text.ltrim('%').str());
    }
  });
  return names;
}

/// Writes `emit` into `<outDir>/<fileName>`, or to stdout for "-".
static LogicalResult writeOutput(ModuleOp module, StringRef outDir,
                                 StringRef fileName,
                                 function_ref<void(raw_ostream &)> emit) {
  SmallString<128> path("-");
  if (outDir != "-") {
    path = outDir;
    llvm::sys::path::append(path, fileName);
  }
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file)
    return module.emitError() << error;
  emit(file->os());
  file->keep();
  return success();
}

/// The CUDA backend (lib/GPU) writes its own artifact: manifest.json with
/// the kernel launches, kernels.cubin and kernels.ptx.
static LogicalResult compileForCUDA(ModuleOp module, StringRef chip,
                                    StringRef outDir,
                                    const sinter::CompileOptions &options,
                                    Location fileLoc,
                                    const sinter::ArgumentNameMap *argNames) {
  if (options.driver.emit == sinter::EmitKind::MLIR ||
      options.driver.emit == sinter::EmitKind::LLVMIR)
    return emitError(fileLoc) << "--emit=mlir and --emit=llvm are CPU "
                                 "outputs; use --emit=ptx for CUDA targets";
  if (outDir != "-") {
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
      return emitError(fileLoc) << "cannot create the output directory '"
                                << outDir << "': " << ec.message();
  }
  // The CUDA options as given, for the target's chip.
  sinter::NVVMPipelineOptions nvvm;
  nvvm.copyOptionValuesFrom(options.cuda);
  nvvm.chip = chip.str();
  StageTimer codegen(options.onStage, "codegen");
  if (options.driver.emit == sinter::EmitKind::PTX) {
    FailureOr<std::string> ptx =
        sinter::compileCUDAToPTX(module, nvvm, options.onStage);
    if (failed(ptx))
      return failure();
    codegen.done();
    return writeOutput(module, outDir, "kernels.ptx",
                       [&](raw_ostream &os) { os << *ptx; });
  }
  if (outDir == "-")
    return emitError(fileLoc) << "an artifact is a directory: give -o <dir> "
                                 "(or --emit=ptx to write to stdout)";
  if (failed(sinter::compileCUDAArtifact(module, nvvm, outDir, argNames,
                                         options.onStage)))
    return failure();
  codegen.done();
  return success();
}

OwningOpRef<ModuleOp>
sinter::parseForCompilation(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                            ArgumentNameMap *argumentNames) {
  StringRef file = "<input>";
  if (const llvm::MemoryBuffer *buffer =
          sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID()))
    file = buffer->getBufferIdentifier();
  // Text upstream MLIR's parser would crash on is refused before it parses
  // (InputGuard.h says why this is a scan and not a crash handler).
  if (failed(checkSourceBeforeParsing(sourceMgr, context)))
    return nullptr;
  Block parsedBlock;
  AsmParserState parserState;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &parsedBlock, config, &parserState)))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsedBlock, &context, FileLineColLoc::get(&context, file, 0, 0));
  if (!module)
    return nullptr;
  if (argumentNames)
    *argumentNames = collectArgumentNames(*module, parserState);
  if (failed(verify(*module)) ||
      failed(checkModuleForCompilation(
          *module, FileLineColLoc::get(&context, file, 1, 1))))
    return nullptr;
  return module;
}

static LogicalResult compileOnThisStack(llvm::SourceMgr &sourceMgr,
                                        MLIRContext &context, StringRef outDir,
                                        const sinter::CompileOptions &options) {
  Location fileLoc = UnknownLoc::get(&context);
  if (const llvm::MemoryBuffer *buffer =
          sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID()))
    fileLoc =
        FileLineColLoc::get(&context, buffer->getBufferIdentifier(), 0, 0);
  std::string targetError;
  std::string target = options.driver.target;
  if (!sinter::checkTarget(target, targetError))
    return emitError(fileLoc) << targetError;

  // Parsing.
  StageTimer parsing(options.onStage, "parsing");
  sinter::ArgumentNameMap names;
  OwningOpRef<ModuleOp> module =
      sinter::parseForCompilation(sourceMgr, context, &names);
  if (!module)
    return failure();
  parsing.done();

  // Fusion.
  StageTimer fusion(options.onStage, "fusion");
  if (options.driver.noFusion) {
    // TOSA input still becomes linalg, and custom calls their ops: there
    // is no other way to compile them.
    PassManager pm(&context);
    pm.addPass(sinter::createRaiseCustomCalls());
    sinter::buildTosaLoweringPipeline(pm);
    if (failed(pm.run(*module)))
      return failure();
    fusion.done("skipped: --no-fusion");
  } else {
    PassManager pm(&context);
    sinter::buildFusionPipeline(pm, options.fusion);
    if (failed(pm.run(*module)))
      return failure();
    fusion.done();
  }

  if (!getCUDAChip(target).empty())
    return compileForCUDA(*module, getCUDAChip(target), outDir, options,
                          fileLoc, &names);
  if (options.driver.emit == sinter::EmitKind::PTX)
    return emitError(fileLoc)
           << "--emit=ptx needs a CUDA target (--target=cuda:sm_<arch>)";
  if (options.driver.cpuOptLevel > 3)
    return emitError(fileLoc)
           << "--cpu-opt-level must be 0, 1, 2 or 3, not "
           << static_cast<unsigned>(options.driver.cpuOptLevel);

  // Lowering. The manifest describes the tensor-level signatures, so it is
  // computed before they become memrefs.
  StageTimer lowering(options.onStage, "lowering");
  FailureOr<SmallVector<sinter::FunctionInfo>> functions =
      sinter::describeFunctions(*module, names);
  if (failed(functions))
    return failure();
  // Inputs are read-only in the calling convention (callers may pass arrays
  // they still use): bufferization copies instead of writing into them.
  for (auto func : module->getOps<func::FuncOp>())
    for (BlockArgument arg : func.getArguments())
      if (isa<TensorType>(arg.getType()))
        func.setArgAttr(arg.getArgNumber(),
                        bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(&context, false));
  {
    PassManager pm(&context);
    sinter::buildCPUPipeline(pm, sinter::CPUPipelineOptions());
    if (failed(pm.run(*module)))
      return failure();
  }
  lowering.done();

  if (outDir != "-") {
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
      return emitError(fileLoc) << "cannot create the output directory '"
                                << outDir << "': " << ec.message();
  }
  if (options.driver.emit == sinter::EmitKind::MLIR)
    return writeOutput(*module, outDir, "kernels.mlir",
                       [&](raw_ostream &os) { module->print(os); });

  // Code generation.
  StageTimer codegen(options.onStage, "codegen");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = sinter::translateForHost(
      *module, llvmContext, options.driver.cpuOptLevel);
  if (!llvmModule)
    return failure();
  if (options.driver.emit == sinter::EmitKind::LLVMIR)
    return writeOutput(*module, outDir, "kernels.ll", [&](raw_ostream &os) {
      llvmModule->print(os, nullptr);
    });
  codegen.done();

  // Link, then the manifest and the checksums (last, so that a directory
  // whose files match its SHA256SUMS holds a complete artifact).
  if (outDir == "-")
    return emitError(fileLoc)
           << "an artifact is a directory: give -o <dir> (or --emit=mlir, "
              "--emit=llvm to write to stdout)";
  StageTimer link(options.onStage, "link");
  // kernels.so records the SHA-256 of its manifest, so that a loader runs it
  // with no other.
  SmallVector<std::string> entryPoints =
      sinter::exportedEntryPoints(*llvmModule);
  for (const sinter::FunctionInfo &function : *functions)
    if (!llvm::is_contained(entryPoints,
                            sinter::manifest::cpuSymbol(function.name)))
      return emitError(fileLoc) << "kernels.so would not export "
                                << sinter::manifest::cpuSymbol(function.name);
  std::string manifestText =
      sinter::cpuManifest(*functions, entryPoints, *llvmModule);
  sinter::embedManifestDigest(*llvmModule, manifestText);
  std::string linkError;
  if (!sinter::linkHostSharedObject(*llvmModule, outDir, linkError,
                                    options.driver.cpuOptLevel))
    return emitError(fileLoc) << "linking kernels.so: " << linkError;
  if (!sinter::writeCPUArtifact(manifestText, outDir, linkError))
    return emitError(fileLoc) << linkError;
  link.done();
  return success();
}

LogicalResult sinter::compileSource(llvm::SourceMgr &sourceMgr,
                                    MLIRContext &context, StringRef outDir,
                                    const CompileOptions &options) {
  LogicalResult result = failure();
  runOnCompilerStack([&] {
    result = compileOnThisStack(sourceMgr, context, outDir, options);
  });
  return result;
}
