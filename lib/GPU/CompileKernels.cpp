//===- CompileKernels.cpp - The CUDA pipeline in timed stages -------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "CompileKernels.h"
#include "Kernels.h"
#include "Ptxas.h"
#include "SerializeInParts.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

/// The family of a kernel: its name without the `_<index>` the outliner
/// appends and the `_<k>` of an op's k-th further launch
/// (`layer_norm_12` and `layer_norm_backward_14_1` -> their op's name).
static StringRef familyOf(StringRef kernel) {
  while (true) {
    auto [head, index] = kernel.rsplit('_');
    if (index.empty() || head.empty() || !llvm::all_of(index, llvm::isDigit))
      return kernel;
    kernel = head;
  }
}

/// Tuned kernels are the hand-built families: one per sinter op (the
/// outliner names a sinter op's kernel after the op) and the tiled matmul.
static bool isTunedFamily(MLIRContext *ctx, StringRef family) {
  if (family == "matmul" || family == "batch_matmul")
    return true;
  std::string name =
      (sinter::SinterDialect::getDialectNamespace() + "." + family).str();
  return RegisteredOperationName::lookup(name, ctx).has_value();
}

sinter::KernelCensus sinter::takeKernelCensus(ModuleOp module) {
  KernelCensus census;
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (auto call =
            launch->getAttrOfType<DictionaryAttr>(kLibraryCallAttrName)) {
      auto kind = call.getAs<StringAttr>("kind");
      ++census.library[kind ? kind.str() : "library"];
      return;
    }
    auto count = [&](StringRef kernel) {
      StringRef family = familyOf(kernel);
      if (isTunedFamily(module.getContext(), family))
        ++census.tuned[family.str()];
      else
        ++census.general[family.str()];
    };
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernelAttr());
    auto combined = kernel ? kernel->getAttrOfType<ArrayAttr>(
                                 gpu_kernels::kCombinedKernelsAttrName)
                           : ArrayAttr();
    if (!combined) {
      count(launch.getKernelName().getValue());
      return;
    }
    ++census.combinedLaunches;
    for (auto name : combined.getAsRange<StringAttr>()) {
      count(name.getValue());
      ++census.combinedKernels;
    }
  });
  return census;
}

/// "12 tuned kernels (attention 2, fused 10)".
static void printGroup(llvm::raw_ostream &os,
                       const std::map<std::string, unsigned> &group,
                       StringRef what) {
  unsigned total = 0;
  for (const auto &entry : group)
    total += entry.second;
  os << total << " " << what << " (";
  llvm::interleaveComma(group, os, [&](const auto &entry) {
    os << entry.first << " " << entry.second;
  });
  os << ")";
}

std::string sinter::KernelCensus::summary() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool first = true;
  auto print = [&](const std::map<std::string, unsigned> &group,
                   StringRef what) {
    if (group.empty())
      return;
    if (!first)
      os << "; ";
    first = false;
    printGroup(os, group, what);
  };
  print(tuned, "tuned kernels");
  print(library, "library calls");
  print(general, "general-path kernels");
  if (combinedLaunches)
    os << "; " << combinedKernels << " of them in " << combinedLaunches
       << " combined launch" << (combinedLaunches == 1 ? "" : "es");
  if (first)
    os << "no launches";
  return text;
}

/// Runs the passes `build` adds on `module`, timed as `stage`; the note is
/// what `note` says of the module afterwards.
static LogicalResult
runStage(ModuleOp module, StringRef stage, const sinter::StageCallback &onStage,
         llvm::function_ref<void(OpPassManager &)> build,
         llvm::function_ref<std::string(ModuleOp)> note = nullptr) {
  sinter::StageTimer timer(onStage, stage);
  PassManager pm(module.getContext());
  build(pm);
  if (failed(pm.run(module)))
    return failure();
  timer.done(note ? note(module) : "");
  return success();
}

/// "to LLVM IR and optimized 3900 ms, LLVM to PTX 2342 ms, ptxas 4174 ms":
/// the NVVM target's own timings, recorded on the object it returns, and
/// the rest of the stage's `totalMs` (translation to LLVM IR, linking
/// libdevice, LLVM's optimization pipeline).
static std::string serializerTimings(gpu::ObjectAttr object, double totalMs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  DictionaryAttr props = object.getProperties();
  if (!props)
    return text;
  auto isa = props.getAs<IntegerAttr>("LLVMIRToISATimeInMs");
  auto bin = props.getAs<IntegerAttr>("ISAToBinaryTimeInMs");
  double rest = totalMs - (isa ? isa.getInt() : 0) - (bin ? bin.getInt() : 0);
  os << "to LLVM IR and optimized " << static_cast<int64_t>(rest) << " ms";
  if (isa)
    os << ", LLVM to PTX " << isa.getInt() << " ms";
  if (bin)
    os << ", ptxas " << bin.getInt() << " ms";
  return text;
}

/// Parts the kernels' LLVM compile is split into by default, at most.
static constexpr unsigned kMaxDefaultParts = 16;

/// The kernels' parts (codegen-threads): the PTX of the one gpu.module
/// compiled in parts on the context's threads and merged, then (withCubin)
/// one ptxas over it; the module replaced by its gpu.binary as
/// gpu-module-to-binary does. None where the module is compiled whole.
static FailureOr<std::optional<sinter::CompiledKernels>>
serializeInParts(ModuleOp module, const sinter::NVVMPipelineOptions &options,
                 bool withCubin, std::string &timings) {
  auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
  // By default a part per CPU, up to kMaxDefaultParts: past that the
  // largest kernel bounds the time and the copies only add to it.
  unsigned parts =
      options.codegenThreads
          ? options.codegenThreads
          : std::min<unsigned>(
                kMaxDefaultParts,
                llvm::hardware_concurrency().compute_thread_count());
  if (modules.size() != 1 || parts < 2)
    return std::optional<sinter::CompiledKernels>();
  gpu::GPUModuleOp kernels = modules.front();
  ArrayAttr targets = kernels.getTargetsAttr();
  auto target = targets && targets.size() == 1
                    ? dyn_cast<NVVM::NVVMTargetAttr>(targets[0])
                    : NVVM::NVVMTargetAttr();
  if (!target)
    return std::optional<sinter::CompiledKernels>();
  std::string toolkit = sinter::findCUDAToolkit();
  auto t0 = std::chrono::steady_clock::now();
  FailureOr<std::optional<sinter::PtxInParts>> ptx =
      sinter::serializePtxInParts(module, kernels, parts, toolkit);
  if (failed(ptx))
    return failure();
  if (!*ptx)
    return std::optional<sinter::CompiledKernels>();
  auto t1 = std::chrono::steady_clock::now();
  sinter::CompiledKernels out;
  out.ptx = std::move((*ptx)->ptx);
  if (withCubin) {
    // ptxas as the NVVM target runs it: its chip and level, the options
    // attached with the target (ptxas-threads).
    SmallVector<StringRef> ptxasOptions;
    // (getCmdOptions reads the flags, which a target without any lacks.)
    if (target.getFlags() && target.hasCmdOptions())
      if (std::optional<NamedAttribute> cmd = target.getCmdOptions())
        for (Attribute a : cast<ArrayAttr>(cmd->getValue()))
          ptxasOptions.push_back(cast<StringAttr>(a).getValue());
    std::string error;
    FailureOr<std::string> cubin = sinter::runPtxas(
        toolkit, out.ptx, target.getChip(), target.getO(), ptxasOptions, error);
    if (failed(cubin))
      return kernels.emitError(error);
    out.cubin = std::move(*cubin);
  }
  auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  timings = "LLVM in " + std::to_string((*ptx)->parts) + " parts " +
            std::to_string(ms(t1 - t0)) + " ms";
  if (withCubin)
    timings += ", ptxas " + std::to_string(ms(t2 - t1)) + " ms";
  OpBuilder b(kernels);
  auto object =
      gpu::ObjectAttr::get(target,
                           withCubin ? gpu::CompilationTarget::Binary
                                     : gpu::CompilationTarget::Assembly,
                           b.getStringAttr(withCubin ? out.cubin : out.ptx));
  gpu::BinaryOp::create(b, kernels.getLoc(), kernels.getSymName(), nullptr,
                        ArrayRef<Attribute>{object});
  kernels.erase();
  return std::optional<sinter::CompiledKernels>(std::move(out));
}

/// gpu-module-to-binary's work, with the serializer's ISA kept: one LLVM
/// compilation gives the PTX and, through ptxas, the cubin. With
/// codegen-threads the kernels compile in parts (SerializeInParts.cpp).
static FailureOr<sinter::CompiledKernels>
serialize(ModuleOp module, const sinter::NVVMPipelineOptions &pipeline,
          bool withCubin, const sinter::StageCallback &onStage) {
  sinter::StageTimer timer(onStage, "serialize");
  std::string partTimings;
  FailureOr<std::optional<sinter::CompiledKernels>> inParts =
      serializeInParts(module, pipeline, withCubin, partTimings);
  if (failed(inParts))
    return failure();
  if (*inParts) {
    timer.done(partTimings);
    return std::move(**inParts);
  }
  sinter::CompiledKernels out;
  std::unique_ptr<SymbolTable> table;
  auto symbolTable = [&]() -> SymbolTable * {
    if (!table)
      table = std::make_unique<SymbolTable>(module);
    return table.get();
  };
  auto keepISA = [&](StringRef isa) { out.ptx = isa.str(); };
  gpu::TargetOptions options(sinter::findCUDAToolkit(), /*librariesToLink=*/{},
                             /*cmdOptions=*/"",
                             /*elfSection=*/"",
                             withCubin ? gpu::CompilationTarget::Binary
                                       : gpu::CompilationTarget::Assembly,
                             symbolTable, {}, {}, {}, keepISA);
  if (failed(gpu::transformGpuModulesToBinaries(module, nullptr, options)))
    return failure();
  std::string timings;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      if (withCubin)
        out.cubin = object.getObject().getValue().str();
      timings = serializerTimings(object, timer.elapsedMs());
    }
  });
  bool hasKernels = !module.getOps<gpu::GPUModuleOp>().empty();
  if (hasKernels && out.ptx.empty())
    return module.emitError("the NVVM serializer gave no PTX");
  timer.done(timings);
  return out;
}

FailureOr<sinter::CompiledKernels>
sinter::compileKernels(ModuleOp module, const NVVMPipelineOptions &options,
                       bool withCubin, const StageCallback &onStage) {
  auto census = [](ModuleOp m) { return takeKernelCensus(m).summary(); };
  if (failed(runStage(
          module, "outline", onStage,
          [&](OpPassManager &pm) { buildCUDAOutliningPipeline(pm, options); },
          census)) ||
      failed(runStage(module, "nvvm", onStage, [&](OpPassManager &pm) {
        buildNVVMLoweringPipeline(pm, options);
      })))
    return failure();
  return serialize(module, options, withCubin, onStage);
}
