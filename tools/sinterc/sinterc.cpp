//===- sinterc.cpp - Sinter's ahead-of-time compiler ----------------------===//
//
// Part of the Sinter project.
//
// Compiles model IR into an artifact directory that the Python package (or
// any C caller) loads without MLIR:
//
//   sinterc model.mlir --target=cpu -o out/
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/Compiler.h"

#include "llvm/ADT/STLExtras.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <vector>

namespace cl = llvm::cl;

static cl::OptionCategory category("sinterc options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(category));

static cl::opt<std::string>
    outputDir("o",
              cl::desc("Output directory of the artifact (created when "
                       "missing); '-' writes --emit=mlir/llvm/ptx to stdout"),
              cl::value_desc("dir"), cl::Required, cl::cat(category));

static cl::opt<bool> showRemarks(
    "remarks",
    cl::desc("Print the fusion remarks: every fusion and every near miss, "
             "with its reason, at its source location"),
    cl::init(false), cl::cat(category));

static cl::opt<bool> quiet("quiet", cl::desc("Do not print the stage timings"),
                           cl::init(false), cl::cat(category));

/// One flag per compile option (sinter/Target/CompileOptions.h: the
/// driver's, the fusion pipeline's and the CUDA pipeline's options, declared
/// there once), in the order of compileOptionTable().
static std::vector<std::unique_ptr<cl::opt<std::string>>> &compileFlags() {
  static std::vector<std::unique_ptr<cl::opt<std::string>>> flags = [] {
    std::vector<std::unique_ptr<cl::opt<std::string>>> made;
    for (const sinter::CompileOptionInfo &info : sinter::compileOptionTable())
      made.push_back(std::make_unique<cl::opt<std::string>>(
          llvm::StringRef(info.name), cl::desc(info.help),
          cl::value_desc(info.isFlag ? llvm::StringRef("true|false")
                                     : llvm::StringRef(info.valueName)),
          info.isFlag ? cl::ValueOptional : cl::ValueRequired,
          cl::cat(category)));
    return made;
  }();
  return flags;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  compileFlags();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sinterc: compile model IR into a Sinter artifact\n\n"
      "The input is MLIR on tensors (func + linalg/tensor/arith/math, or "
      "sinter ops). Unless --no-fusion is given, the fusion pipeline first "
      "replaces attention, normalization, optimizer and elementwise "
      "subgraphs by fused sinter ops; then every public function is lowered "
      "for the target.\n\n"
      "For --target=cpu the output directory receives kernels.so (one C "
      "entry point `_mlir_ciface_<name>` per public function; arguments are "
      "pointers to memref descriptors, inputs then one caller-allocated "
      "buffer per result), manifest.json (the functions, with each "
      "argument's name, role, dtype and shape) and SHA256SUMS (the SHA-256 "
      "of both, which loading verifies). Load it from Python with "
      "`sinter.load(dir)`.\n\n"
      "For --target=cuda:sm_<arch> the directory receives the CUDA backend's "
      "artifact (manifest.json with the kernel launches and cuBLASLt "
      "library calls, docs/Manifest.md; kernels.cubin, kernels.ptx; "
      "SHA256SUMS), run by `sinter.load(dir)` on torch/DLPack CUDA "
      "tensors.\n\n"
      "The compile options (one table: the driver's, the fusion "
      "pipeline's and the CUDA pipeline's, cuda-*) are also what "
      "sinter_compile's option string and sinter.compile(**options) "
      "take.\n\n"
      "Progress and timing lines go to stderr, one per stage (parsing, "
      "fusion, lowering/codegen, link; for CUDA codegen's outline, nvvm and "
      "serialize too, the outline line with the census of launches: tuned "
      "kernels, library calls, general-path kernels); errors point at the "
      "source location.\n\n"
      "Examples:\n"
      "  sinterc model.mlir --target=cpu -o out/\n"
      "  sinterc model.mlir --no-fusion --emit=mlir -o -\n");

  auto processStart = std::chrono::steady_clock::now();
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "sinterc") << errorMessage << "\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  sinter::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  // Diagnostics point at the source; the generic form of the op adds noise.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // Fusion remarks (one per fusion and near miss) only when asked for;
  // handlers registered later run first.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    return mlir::success(d.getSeverity() == mlir::DiagnosticSeverity::Remark &&
                         !showRemarks);
  });

  sinter::CompileOptions options;
  for (const auto &[info, flag] :
       llvm::zip(sinter::compileOptionTable(), compileFlags())) {
    if (!flag->getNumOccurrences())
      continue;
    std::string error;
    if (!options.set(info.name, *flag, error)) {
      llvm::WithColor::error(llvm::errs(), "sinterc") << error << "\n";
      return 1;
    }
  }
  if (!quiet)
    options.onStage = [](llvm::StringRef stage, double ms,
                         llvm::StringRef note) {
      llvm::errs() << "sinterc: " << llvm::left_justify(stage, 9) << " "
                   << llvm::format("%9.1f ms", ms);
      if (!note.empty())
        llvm::errs() << "  (" << note << ")";
      llvm::errs() << "\n";
    };

  if (mlir::failed(
          sinter::compileSource(sourceMgr, context, outputDir, options)))
    return 1;
  if (!quiet) {
    std::chrono::duration<double, std::milli> total =
        std::chrono::steady_clock::now() - processStart;
    llvm::errs() << "sinterc: " << llvm::left_justify("total", 9) << " "
                 << llvm::format("%9.1f ms", total.count()) << "  -> "
                 << outputDir << "\n";
  }
  return 0;
}
