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

static cl::opt<std::string>
    target("target",
           cl::desc("Target to compile for: 'cpu' (the host) or "
                    "'cuda:sm_<arch>', e.g. cuda:sm_90a (when the build has "
                    "the CUDA backend)"),
           cl::value_desc("target"), cl::init("cpu"), cl::cat(category));

static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Skip the fusion pipeline: lower the program as "
                      "written (unfused ops take the linalg-to-loops path)"),
             cl::init(false), cl::cat(category));

static cl::opt<bool> allowRngChange(
    "allow-rng-change",
    cl::desc("Let fusion raise dropout drawn from the frontend's random "
             "generator to Sinter's Philox dropout: same distribution, "
             "different random bits (docs/Rationale.md)"),
    cl::init(false), cl::cat(category));

static cl::opt<sinter::EmitKind>
    emit("emit", cl::desc("What to write into the output directory"),
         cl::values(clEnumValN(sinter::EmitKind::Artifact, "artifact",
                               "kernels.so and manifest.json (default)"),
                    clEnumValN(sinter::EmitKind::MLIR, "mlir",
                               "kernels.mlir: the module lowered to the LLVM "
                               "dialect"),
                    clEnumValN(sinter::EmitKind::LLVMIR, "llvm",
                               "kernels.ll: the optimized LLVM IR"),
                    clEnumValN(sinter::EmitKind::PTX, "ptx",
                               "kernels.ptx: the kernels of a CUDA target")),
         cl::init(sinter::EmitKind::Artifact), cl::cat(category));

static cl::opt<bool> showRemarks(
    "remarks",
    cl::desc("Print the fusion remarks: every fusion and every near miss, "
             "with its reason, at its source location"),
    cl::init(false), cl::cat(category));

static cl::opt<std::string> attentionConfig(
    "attention-config",
    cl::desc("CUDA targets: tile configuration of every attention kernel, "
             "overriding the table shipped with the compiler: "
             "'[wgmma,][pipe,[mbar,[pp,][ws,[persist,][tmastore,]]]]warps=W,"
             "mtiles=M,bn=N"
             "[,maxregs=R]' (tensor cores; W warps of 16*M query rows each, "
             "N keys per K/V tile: 16, 32, 64, 128, with wgmma also 160, 176, "
             "192; sm_90a: wgmma = warpgroup MMA, pipe = two K/V stages with "
             "S of tile t overlapping P V of tile t-1, mbar = mbarriers "
             "instead of a barrier per tile, pp = warpgroups take turns at "
             "the tensor cores, ws = warp specialization: a producer "
             "warpgroup loads Q, K and V with TMA and gives its registers "
             "to the W = 8 or 12 consumer warps, persist = one block per SM "
             "(--cuda-sm-count) looping over the work items, tmastore = O "
             "written through shared memory and stored with TMA; R caps "
             "registers per thread, not with ws) or 'cuda-cores'; a "
             "rejected configuration is reported with the rule it breaks"),
    cl::value_desc("config"), cl::init(""), cl::cat(category));

static cl::opt<std::string> cudaCacheHints(
    "cuda-cache-hints",
    cl::desc("CUDA targets: cache policy of the 16-byte loads/stores of data "
             "the norm, softmax and AdamW kernels touch once: 'none' "
             "(default), 'evict-first' (L1::no_allocate + L2 evict_first "
             "policy), 'no-allocate' (loads L1::no_allocate), 'l2-256b' "
             "(loads with the L2::256B prefetch size) or 'streaming' "
             "(ld/st.global.cs)"),
    cl::value_desc("hint"), cl::init("none"), cl::cat(category));

static cl::opt<std::string> cudaMatmul(
    "cuda-matmul",
    cl::desc("CUDA targets: how matmuls that no fusion absorbed run: "
             "'cublas' (default; a cuBLASLt GEMM when the runtime finds "
             "libcublasLt, the CUDA-core kernel otherwise) or 'kernel' (the "
             "CUDA-core kernel always)"),
    cl::value_desc("cublas|kernel"), cl::init("cublas"), cl::cat(category));

static cl::opt<int64_t> cudaRowPersistent(
    "cuda-row-persistent",
    cl::desc("CUDA targets: softmax/norm kernels with a grid sized to the "
             "chip whose blocks loop over the rows, weight and bias loaded "
             "once (1), and also the next row loaded before the current one "
             "is reduced and stored (2), or that prefetch with the weight and "
             "bias loaded per row (3); 0 (default): one block per row "
             "group"),
    cl::value_desc("0|1|2|3"),
    cl::init(::sinter::cuda_defaults::kRowPersistent), cl::cat(category));

static cl::opt<int64_t> cudaAdamWPersistent(
    "cuda-adamw-persistent",
    cl::desc("CUDA targets: AdamW with a grid sized to the chip and equal "
             "chunks per block (1), and also the next chunk loaded before "
             "the current one is updated (2, the default); 0: up to 1024 "
             "blocks"),
    cl::value_desc("0|1|2"),
    cl::init(::sinter::cuda_defaults::kAdamWPersistent), cl::cat(category));

static cl::opt<int64_t> cudaRowVectors(
    "cuda-row-vectors",
    cl::desc("CUDA targets: 16-byte vectors each thread of a softmax/norm "
             "kernel holds (sets the lanes per row; default 2)"),
    cl::value_desc("n"), cl::init(::sinter::cuda_defaults::kRowVectors),
    cl::cat(category));

static cl::opt<int64_t> cudaPersistentCtas(
    "cuda-persistent-ctas",
    cl::desc("CUDA targets: blocks per SM that the persistent grids of "
             "--cuda-row-persistent/--cuda-adamw-persistent count on (the "
             "kernels' .minnctapersm, which caps their registers); 0 "
             "(default): 1024 threads' worth"),
    cl::value_desc("n"), cl::init(::sinter::cuda_defaults::kPersistentCtas),
    cl::cat(category));

static cl::opt<int64_t> cudaSmCount(
    "cuda-sm-count",
    cl::desc("CUDA targets: SMs the persistent grids are sized for (0, the "
             "default: the chip's usual count, e.g. 132 for sm_90, 108 for "
             "sm_80, 148 for sm_100, and the runtime sizes them again for the "
             "device it runs on; N pins "
             "the grids to N SMs)"),
    cl::value_desc("n"), cl::init(::sinter::cuda_defaults::kSmCount),
    cl::cat(category));

static cl::opt<bool> quiet("quiet", cl::desc("Do not print the stage timings"),
                           cl::init(false), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
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
      "buffer per result) and manifest.json (the functions, with each "
      "argument's name, role, dtype and shape). Load it from Python with "
      "`sinter.load(dir)`.\n\n"
      "For --target=cuda:sm_<arch> the directory receives the CUDA backend's "
      "artifact (manifest.json with the kernel launches and cuBLASLt "
      "library calls, docs/Manifest.md; kernels.cubin, kernels.ptx), run by "
      "`sinter.load(dir)` on torch/DLPack CUDA tensors.\n\n"
      "Progress and timing lines go to stderr; errors point at the source "
      "location.\n\n"
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
  options.target = target;
  options.fusion = !noFusion;
  options.emit = emit;
  options.attentionConfig = attentionConfig;
  options.cudaCacheHints = cudaCacheHints;
  options.cudaRowPersistent = cudaRowPersistent;
  options.cudaRowVectors = cudaRowVectors;
  options.cudaAdamWPersistent = cudaAdamWPersistent;
  options.cudaPersistentCtas = cudaPersistentCtas;
  options.cudaSmCount = cudaSmCount;
  options.cudaMatmul = cudaMatmul;
  options.allowRngChange = allowRngChange;
  if (!quiet)
    options.onStage = [](llvm::StringRef stage, double ms,
                         llvm::StringRef note) {
      llvm::errs() << "sinterc: " << llvm::left_justify(stage, 8) << " "
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
    llvm::errs() << "sinterc: " << llvm::left_justify("total", 8) << " "
                 << llvm::format("%9.1f ms", total.count()) << "  -> "
                 << outputDir << "\n";
  }
  return 0;
}
