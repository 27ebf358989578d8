//===- OutlineCUDAKernels.cpp - sinter ops to kernels and launches --------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "InPlacePlans.h"
#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "sinter/Conversion/SinterToLoops.h"
#include "sinter/GPU/CUDAArtifact.h"
#include "sinter/GPU/Passes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace sinter {
#define GEN_PASS_DEF_OUTLINECUDAKERNELS
#include "sinter/GPU/Passes.h.inc"
} // namespace sinter

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

static constexpr StringLiteral kKernelModuleName = "sinter_kernels";

/// A constant fill whose every use is the init of a linalg op with
/// reduction loops (a matmul, a reduction): it folds into their kernels'
/// initial accumulators instead of being written to memory.
static bool foldsIntoReductions(linalg::FillOp fill) {
  if (!foldableFillValue(fill) || fill->use_empty())
    return false;
  return llvm::all_of(fill->getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return user && user.hasPureTensorSemantics() && user.isDpsInit(&use) &&
           user.getNumReductionLoops() > 0;
  });
}

/// The kernel an attention op gets: the tensor cores with `cfg`, unless
/// they cannot take the op (f32, odd head dims, old chips: CUDA cores
/// whatever the configuration says) or an explicit configuration cannot run
/// it (`error` then says why).
struct AttentionChoice {
  AttentionConfig cfg;
  bool tensorCores = false;
  std::string error;
};
static AttentionChoice chooseAttentionKernel(AttentionOp attention,
                                             const Tuning &tuning) {
  AttentionChoice choice;
  choice.cfg = tuning.attention
                   ? *tuning.attention
                   : selectAttentionConfig(attention, tuning.smVersion,
                                           tuning.archSpecific);
  std::string why;
  if (!choice.cfg.tensorCores ||
      failed(checkMMAAttentionOp(attention, tuning.smVersion, why)))
    return choice;
  if (succeeded(checkMMAAttention(attention, tuning.smVersion,
                                  tuning.archSpecific, choice.cfg, why)))
    choice.tensorCores = true;
  else if (tuning.attention)
    choice.error = "attention-config '" + choice.cfg.str() +
                   "' cannot run this op on the tensor cores: " + why;
  return choice;
}

/// Dispatches to the kernel generator of `op`'s family; most ops are one
/// launch. `plans` says what a kernel reads and writes in place.
static FailureOr<SmallVector<KernelLaunch, 1>>
buildKernels(Operation *op, gpu::GPUModuleOp module, StringRef name,
             const Tuning &tuning, const InPlacePlans &plans) {
  auto one =
      [](FailureOr<KernelLaunch> l) -> FailureOr<SmallVector<KernelLaunch, 1>> {
    if (failed(l))
      return failure();
    SmallVector<KernelLaunch, 1> v;
    v.push_back(std::move(*l));
    return v;
  };
  if (isa<LayerNormOp, RMSNormOp>(op))
    return one(
        buildNormKernel(op, module, name, tuning, plans.prologues.lookup(op)));
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return one(buildSoftmaxKernel(softmax, module, name, tuning));
  if (isa<LayerNormBackwardOp, RMSNormBackwardOp>(op))
    return buildNormBackwardKernels(op, module, name, tuning,
                                    plans.epilogues.lookup(op),
                                    plans.epilogueSumOf(op));
  if (auto backward = dyn_cast<AttentionBackwardOp>(op)) {
    // sinter-tensor-ops-to-linalg left only those this kernel runs.
    std::string why;
    if (failed(checkAttentionBackwardKernel(backward, tuning.smVersion, why)))
      return backward.emitOpError("has no CUDA kernel for ")
             << "sm_" << tuning.smVersion << " (" << why
             << "): run sinter-tensor-ops-to-linalg with the same chip first";
    const AttentionHeads *heads = plans.headsOf(op);
    return buildAttentionBackwardKernels(backward, module, name, tuning,
                                         heads ? *heads : AttentionHeads());
  }
  // Elementwise kernels, which sinter-combine-launches may join.
  auto elementwise = [&](FailureOr<KernelLaunch> l) {
    if (succeeded(l) && l->kernel)
      l->kernel->setAttr(kElementwiseKernelAttrName,
                         UnitAttr::get(op->getContext()));
    return one(std::move(l));
  };
  if (auto fused = dyn_cast<FusedOp>(op))
    return elementwise(buildFusedKernel(fused, module, name, tuning));
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    AttentionChoice choice = chooseAttentionKernel(attention, tuning);
    if (!choice.error.empty())
      return attention.emitOpError(choice.error);
    const AttentionHeads *heads = plans.headsOf(op);
    if (choice.tensorCores)
      return one(buildAttentionMMAKernel(attention, module, name, choice.cfg,
                                         smCountOf(tuning),
                                         heads ? *heads : AttentionHeads()));
    return one(buildAttentionKernel(attention, module, name));
  }
  if (auto adamw = dyn_cast<AdamWOp>(op))
    return buildAdamWKernels(adamw, module, name, tuning);
  if (isPlainMatmul(op))
    return one(buildMatmulKernel(cast<linalg::LinalgOp>(op), module, name,
                                 tuning.matmulLibraryCall, nullptr,
                                 plans.matmulOf(op)));
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    // Reductions, contractions with transposed operands, permuted writes.
    if (!isElementwiseGeneric(generic))
      return buildSerialKernel(generic, module, name, smCountOf(tuning),
                               plans.slicedOf(op));
    // A sliced input is read in place: its source at the slice's offsets.
    ElementwiseForm form = elementwiseFormOf(generic);
    return elementwise(buildElementwiseKernel(
        generic, form.inputs, form.maps, *form.body, generic->getResults(),
        module, name, tuning, form.offsets));
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return buildConcatKernels(concat, plans.concatParts.lookup(op), module,
                              name, tuning);
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return one(buildPadKernel(pad, plans.padProducers.lookup(op), module, name,
                              tuning));
  if (isa<ml_program::GlobalLoadOp, ml_program::GlobalStoreOp>(op))
    return one(buildStateKernel(op, module, name));
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // A strided copy: out[x] = in[offsets + x], as an elementwise kernel
    // whose body yields its input.
    auto srcType = slice.getSourceType();
    if (slice.getType().getRank() != srcType.getRank() ||
        !slice.hasUnitStride() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return op->emitOpError("the CUDA backend copies slices with static "
                             "offsets, unit strides and no rank reduction "
                             "only");
    return elementwise(buildCopyKernel(op, slice.getSource(),
                                       slice.getStaticOffsets(),
                                       op->getResults(), module, name, tuning));
  }
  return op->emitOpError("is not supported by the CUDA backend yet");
}

/// Checks what every kernel generator assumes of the tensors `op` touches:
/// static shapes, at least one element (a grid of zero blocks cannot be
/// launched) and integer or floating-point elements whose size the kernels
/// can compute (`index` has none in memory).
static LogicalResult checkKernelTensors(Operation *op) {
  for (Type t :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt)
      continue;
    if (!rt.hasStaticShape())
      return op->emitOpError("the CUDA backend needs static shapes, got ")
             << rt;
    if (llvm::is_contained(rt.getShape(), 0))
      return op->emitOpError("the CUDA backend does not launch kernels over "
                             "empty tensors, got ")
             << rt;
    if (!rt.getElementType().isIntOrFloat())
      return op->emitOpError("the CUDA backend needs integer or "
                             "floating-point elements, got ")
             << rt << (rt.getElementType().isIndex() ? " (use i64)" : "");
  }
  return success();
}

/// Erases `op`, whose kernels were launched, and what they computed in
/// its place: the transposes an attention kernel wrote around, the chain a
/// norm or a pad computed, a slice read in its source, a concatenation's
/// parts.
static void eraseComputed(Operation *op, const InPlacePlans &plans) {
  // The transpose of O the attention kernel wrote in its stead (the
  // backward's: the concatenation of its gradients and the reshapes
  // and transposes before it), the chain a norm computed.
  if (const AttentionHeads *heads = plans.headsOf(op)) {
    if (heads->outTranspose)
      heads->outTranspose->erase();
    for (Operation *written : heads->writtenAround)
      written->erase();
  }
  if (FusedOp chain = plans.prologues.lookup(op)) {
    op->erase();
    chain->erase();
    return;
  }
  if (FusedOp chain = plans.epilogues.lookup(op)) {
    // (The column sum's result now comes from the column kernel.)
    if (std::optional<EpilogueColumnSum> sum = plans.epilogueSumOf(op))
      sum->sum->erase();
    chain->erase();
    op->erase();
    return;
  }
  if (Operation *producer = plans.padProducers.lookup(op)) {
    op->erase();
    producer->erase();
    return;
  }
  if (const SlicedInput *sliced = plans.slicedOf(op)) {
    // The slice's other readers read the copy the kernel wrote, or the
    // source in place.
    tensor::ExtractSliceOp slice = sliced->slice;
    op->erase();
    if (slice->use_empty())
      slice->erase();
    return;
  }
  if (auto it = plans.concatParts.find(op); it != plans.concatParts.end()) {
    op->erase();
    for (const ConcatPart &part : it->second) {
      if (part.reshape)
        part.reshape->erase();
      if (part.producer)
        part.producer->erase();
    }
    return;
  }
  op->erase();
}

namespace {
struct OutlineCUDAKernelsPass
    : public sinter::impl::OutlineCUDAKernelsBase<OutlineCUDAKernelsPass> {
  using Base::Base;

  /// The pass options as the kernel builders read them; a located error
  /// for a bad one.
  LogicalResult readTuning(Tuning &tuning) {
    if (rowVectors < 1 || fusedVectors < 1 || rowBlock < 32 ||
        rowBlock > kMaxThreadsPerBlock || !llvm::isPowerOf2_64(rowBlock)) {
      getOperation().emitError(
          "sinter-outline-cuda-kernels: row-vectors and fused-vectors must "
          "be at least 1, row-block a power of two in [32, 1024]");
      return failure();
    }
    tuning = Tuning{rowVectors, fusedVectors, rowBlock};
    // sm_90a -> 90: the architecture number decides which kernels apply.
    StringRef arch = StringRef(chip).trim();
    if (!arch.consume_front("sm_") ||
        arch.take_while(llvm::isDigit).getAsInteger(10, tuning.smVersion)) {
      getOperation().emitError("sinter-outline-cuda-kernels: chip must look "
                               "like sm_90a or sm_80, got '")
          << chip << "'";
      return failure();
    }
    tuning.archSpecific = arch.ends_with("a");
    if (!attentionConfig.empty()) {
      std::string why;
      FailureOr<AttentionConfig> parsed =
          parseAttentionConfig(attentionConfig, &why);
      if (failed(parsed)) {
        getOperation().emitError("sinter-outline-cuda-kernels: bad "
                                 "attention-config '")
            << attentionConfig << "': " << why
            << " (the form is 'cuda-cores' or [forms,]warps=W,mtiles=M,bn=N"
               "[,maxregs=R]; see docs/Passes)";
        return failure();
      }
      tuning.attention = *parsed;
    }
    std::optional<CacheHint> hints = parseCacheHint(cacheHints);
    if (!hints) {
      getOperation().emitError("sinter-outline-cuda-kernels: bad "
                               "cache-hints '")
          << cacheHints << "': expected one of " << kCacheHintValues;
      return failure();
    }
    tuning.cacheHints = *hints;
    if (rowPersistent < 0 || rowPersistent > 3 || adamwPersistent < 0 ||
        adamwPersistent > 2 || persistentCtas < 0 || persistentCtas > 32 ||
        smCount < 0) {
      getOperation().emitError(
          "sinter-outline-cuda-kernels: row-persistent must be 0-3, "
          "adamw-persistent 0-2, persistent-ctas 0-32 and sm-count >= 0");
      return failure();
    }
    tuning.rowPersistent = rowPersistent;
    tuning.adamwPersistent = adamwPersistent;
    tuning.persistentCtas = persistentCtas;
    tuning.smCount = smCount;
    StringRef matmulPath = StringRef(matmul).trim();
    if (matmulPath != "cublas" && matmulPath != "kernel") {
      getOperation().emitError("sinter-outline-cuda-kernels: bad matmul '")
          << matmul << "': expected 'cublas' or 'kernel'";
      return failure();
    }
    tuning.matmulLibraryCall = matmulPath == "cublas";
    StringRef backwardForm = StringRef(attentionBackward).trim();
    if (backwardForm != "wgmma" && backwardForm != "mma-sync") {
      getOperation().emitError(
          "sinter-outline-cuda-kernels: bad attention-backward '")
          << attentionBackward << "': expected 'wgmma' or 'mma-sync'";
      return failure();
    }
    tuning.attentionBackwardWgmma = backwardForm == "wgmma";
    return success();
  }

  void runOnOperation() override {
    Tuning tuning;
    if (failed(readTuning(tuning)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    // What fusion left of torch-mlir's tm_tensor ops and of upstream
    // aggregates (linalg.softmax) becomes linalg generics first, as on the
    // CPU (SinterToLoops.h).
    {
      RewritePatternSet patterns(module.getContext());
      populateTMTensorToLinalgPatterns(patterns);
      populateLinalgAggregatesToGenericsPatterns(patterns);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingOps);
      (void)applyPatternsGreedily(module, std::move(patterns), config);
    }
    // Bias chains read their narrow bias and round once (as torch's addmm),
    // and matmuls rounded before anything else get the rounding as a chain
    // of its own (matmul epilogues take both).
    if (tuning.matmulLibraryCall) {
      foldBiasWidenings(module);
      splitMatmulActivationChains(module);
      roundBiasOnce(module);
      splitMatmulRoundings(module);
    }
    // Unfused named ops become generics: elementwise ones (add, transpose,
    // fill, broadcast...) run on the elementwise kernel, reductions
    // (linalg.reduce, transposed matmuls, matvec...) on the serial kernel.
    // Plain matmuls keep their tiled kernel.
    IRRewriter rewriter(module.getContext());
    SmallVector<linalg::LinalgOp> named;
    bool unsupported = false;
    module.walk([&](linalg::LinalgOp op) {
      // A constant fill that only initializes matmuls and reductions folds
      // into their kernels.
      if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation());
          fill && foldsIntoReductions(fill))
        return;
      if (isa<linalg::GenericOp>(op.getOperation()) || isPlainMatmul(op) ||
          !op.hasPureTensorSemantics() ||
          op->getParentOfType<gpu::GPUModuleOp>())
        return;
      // Errors about a named reduction name it, not its generic form.
      if (failed(checkKernelTensors(op)) ||
          (op.getNumReductionLoops() > 0 && failed(checkSerialKernel(op)))) {
        unsupported = true;
        return;
      }
      named.push_back(op);
    });
    if (unsupported)
      return signalPassFailure();
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (isa<SinterDialect>(op->getDialect()) &&
          !isa<YieldOp, DropoutOp>(op) && !op->getParentOfType<FusedOp>())
        ops.push_back(op);
      else if (isPlainMatmul(op))
        ops.push_back(op);
      else if (auto g = dyn_cast<linalg::GenericOp>(op);
               g && g.hasPureTensorSemantics() && g->getNumResults() > 0)
        ops.push_back(op);
      else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
               slice && !op->getParentOfType<FusedOp>() &&
               !readInPlaceByAllUsers(slice))
        ops.push_back(op);
      else if (isa<ml_program::GlobalLoadOp, ml_program::GlobalStoreOp>(op))
        ops.push_back(op);
      else if (auto pad = dyn_cast<tensor::PadOp>(op);
               pad && isElementwisePad(pad))
        ops.push_back(op);
      else if (auto concat = dyn_cast<tensor::ConcatOp>(op);
               concat && isElementwiseConcat(concat))
        ops.push_back(op);
    });
    if (ops.empty())
      return;

    OpBuilder mb(module.getBodyRegion());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    mb.getUnitAttr());
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
    if (!kernels) {
      mb.setInsertionPointToEnd(module.getBody());
      kernels =
          gpu::GPUModuleOp::create(mb, module.getLoc(), kKernelModuleName);
    }

    unsigned counter = 0;
    // Chains a matmul took as its epilogue (MatmulEpilogue.cpp) and the
    // transposes that kernels read and write around: erased with them, not
    // outlined.
    llvm::SmallPtrSet<Operation *, 8> taken;
    InPlacePlans plans = planInPlace(ops, tuning, taken, [&](Operation *op) {
      return planHeads(op, tuning);
    });
    dropSlicesReadInPlace(ops, plans);
    // Generics computed from their indices go last: the elementwise kernels
    // that read them compute them instead (computedInputOf); they run
    // only where something else still reads them. (Launches stay in
    // program order: each is emitted at its op.)
    SmallVector<Operation *> indexOnly;
    llvm::erase_if(ops, [&](Operation *op) {
      if (!indexOnlyGeneric(op))
        return false;
      indexOnly.push_back(op);
      return true;
    });
    llvm::append_range(ops, indexOnly);
    for (Operation *op : ops) {
      if (taken.contains(op))
        continue;
      // Computed by every kernel that read it: the dead-op sweep below
      // removes it (and its reshapes).
      if (indexOnlyGeneric(op) &&
          llvm::all_of(op->getUsers(),
                       [](Operation *u) { return isOpTriviallyDead(u); }))
        continue;
      if (failed(checkKernelTensors(op)))
        return signalPassFailure();
      plans.refresh(op);
      if (std::optional<MatmulEpilogue> epilogue =
              tuning.matmulLibraryCall && isPlainMatmul(op)
                  ? matchMatmulEpilogue(cast<linalg::LinalgOp>(op))
                  : std::nullopt) {
        std::string name = "matmul_" + std::to_string(counter++);
        std::optional<MatmulActivation> activation =
            matchMatmulActivation(*epilogue);
        FailureOr<KernelLaunch> launch = buildMatmulKernel(
            cast<linalg::LinalgOp>(op), kernels, name,
            /*libraryCall=*/true, &*epilogue, plans.matmulOf(op),
            activation ? &*activation : nullptr);
        if (failed(launch))
          return signalPassFailure();
        emitMatmulLaunch(*launch, op, *epilogue, activation, taken);
        continue;
      }
      // Kernels are named after their op; reductions run by the serial
      // kernel are reduce_N.
      auto generic = dyn_cast<linalg::GenericOp>(op);
      StringRef family = generic && generic.getNumReductionLoops() > 0
                             ? StringRef("reduce")
                             : op->getName().stripDialect();
      std::string name = (family + "_" + std::to_string(counter++)).str();
      FailureOr<SmallVector<KernelLaunch, 1>> launches =
          buildKernels(op, kernels, name, tuning, plans);
      if (failed(launches))
        return signalPassFailure();
      OpBuilder b(op);
      // A later launch of the op may read what an earlier one wrote (a
      // scratch tensor between two kernels).
      llvm::DenseMap<Value, Value> written;
      for (const KernelLaunch &launch : *launches)
        emitLaunch(b, op->getLoc(), launch, &written);
      eraseComputed(op, plans);
    }
    // Inits that only fed a replaced op (tensor.empty, linalg.fill) are dead.
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &block : func.getBody())
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isOpTriviallyDead(&op))
            op.erase();
    // A model's repeated layers outlined the same kernels many times: each
    // distinct body is compiled once.
    dedupKernels(module);
  }

  /// Drops from `ops` the slices that only elementwise kernels and the
  /// chains of pad kernels (plans.padProducers) read: those read them in
  /// place (PadKernel.cpp), so no kernel copies them out.
  static void dropSlicesReadInPlace(SmallVectorImpl<Operation *> &ops,
                                    const InPlacePlans &plans) {
    llvm::SmallPtrSet<Operation *, 8> padChains;
    for (auto [pad, producer] : plans.padProducers)
      if (isa<FusedOp>(producer))
        padChains.insert(producer);
    llvm::erase_if(ops, [&](Operation *op) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
      return slice && readInPlaceByAllUsers(slice, &padChains);
    });
  }

  /// Where the tensor-core kernels of an attention op or its backward read
  /// and write their heads; none for ops of other kinds or other kernels.
  static std::optional<AttentionHeads> planHeads(Operation *op,
                                                 const Tuning &tuning) {
    if (failed(checkKernelTensors(op)))
      return std::nullopt;
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      if (!chooseAttentionKernel(attention, tuning).tensorCores)
        return std::nullopt;
      return planAttentionHeads(attention);
    }
    auto backward = dyn_cast<AttentionBackwardOp>(op);
    std::string why;
    if (!backward ||
        failed(checkAttentionBackwardKernel(backward, tuning.smVersion, why)))
      return std::nullopt;
    return planAttentionBackwardHeads(backward);
  }

  /// Emits the launch of a matmul that took `epilogue` (and `activation`)
  /// and erases what it computes: the matmul, the chains and the reshapes
  /// between them. The launch goes where the epilogue's chain was, or,
  /// for a gradient activation (which reads a tensor defined later), where
  /// the activation's chain was.
  void emitMatmulLaunch(const KernelLaunch &launch, Operation *matmul,
                        const MatmulEpilogue &epilogue,
                        const std::optional<MatmulActivation> &activation,
                        llvm::SmallPtrSetImpl<Operation *> &taken) {
    Operation *chain = epilogue.result.getDefiningOp();
    Operation *activationChain =
        activation ? activation->result.getDefiningOp() : nullptr;
    Operation *at =
        activation && activation->kind == MatmulActivation::Kind::GeluTanhGrad
            ? activationChain
            : chain;
    OpBuilder b(at);
    emitLaunch(b, at->getLoc(), launch);
    taken.insert(chain);
    if (activationChain) {
      taken.insert(activationChain);
      activationChain->erase();
      eraseDeadReshapes(epilogue.result);
    }
    chain->erase();
    matmul->erase();
  }

  /// Erases the reshapes of `v` (and theirs) that nothing reads.
  static void eraseDeadReshapes(Value v) {
    for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
        continue;
      eraseDeadReshapes(user->getResult(0));
      if (user->use_empty())
        user->erase();
    }
  }

  /// Emits buffers for the operands and results of `launch`, the launch
  /// itself, and replaces the results' uses by the written buffers.
  /// With `earlier`, operands that an earlier launch of the same op wrote
  /// read what it wrote, and this launch's results are added to it.
  void emitLaunch(OpBuilder &b, Location loc, const KernelLaunch &launch,
                  llvm::DenseMap<Value, Value> *earlier = nullptr) {
    llvm::SmallDenseSet<unsigned> written;
    for (auto &[result, index] : launch.inPlace)
      written.insert(index);
    SmallVector<Value> args;
    for (auto [i, operand] : llvm::enumerate(launch.operands)) {
      Value v = earlier ? earlier->lookup_or(operand, operand) : operand;
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        args.push_back(bufferization::ToBufferOp::create(
            b, loc, MemRefType::get(t.getShape(), t.getElementType()), v,
            /*read_only=*/!written.contains(i)));
      else
        args.push_back(v);
    }
    SmallVector<Value> resultBuffers;
    for (Value r : launch.results) {
      auto t = cast<RankedTensorType>(r.getType());
      Value buf = memref::AllocOp::create(
          b, loc, MemRefType::get(t.getShape(), t.getElementType()));
      resultBuffers.push_back(buf);
      args.push_back(buf);
    }
    // Tensor maps: the host encodes each one (nvgpu.tma.create.descriptor:
    // the buffer, its box, swizzle, L2 promotion, zero fill) and passes it
    // by value; the kernel sees the parameter's address.
    for (const KernelLaunch::TensorMap &tm : launch.tensorMaps) {
      Value buf = args[tm.argument];
      auto type = cast<MemRefType>(buf.getType());
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(type.getElementType(), 0), buf);
      SmallVector<Value> box;
      for (int64_t d : tm.box)
        box.push_back(arith::ConstantIndexOp::create(b, loc, d));
      auto descType = nvgpu::TensorMapDescriptorType::get(
          b.getContext(),
          MemRefType::get(tm.box, type.getElementType(),
                          MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              b.getContext(), gpu::AddressSpace::Workgroup)),
          nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
          nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value desc =
          nvgpu::TmaCreateDescriptorOp::create(b, loc, descType, unranked, box);
      args.push_back(
          UnrealizedConversionCastOp::create(
              b, loc, LLVM::LLVMPointerType::get(b.getContext()), desc)
              .getResult(0));
    }
    if (!launch.tensorMaps.empty()) {
      SmallVector<int64_t> params;
      for (size_t i = 0; i < launch.tensorMaps.size(); ++i)
        params.push_back(args.size() - launch.tensorMaps.size() + i);
      launch.kernel->setAttr(kTensorMapParamsAttrName,
                             b.getDenseI64ArrayAttr(params));
    }
    Value grid = arith::ConstantIndexOp::create(b, loc, launch.grid);
    Value block = arith::ConstantIndexOp::create(b, loc, launch.block);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value smem;
    if (launch.sharedMemory > 0)
      smem = arith::ConstantOp::create(
          b, loc,
          b.getI32IntegerAttr(static_cast<int32_t>(launch.sharedMemory)));
    auto launchOp = gpu::LaunchFuncOp::create(
        b, loc, launch.kernel, gpu::KernelDim3{grid, one, one},
        gpu::KernelDim3{block, one, one},
        /*dynamicSharedMemorySize=*/smem, args);
    if (launch.libraryCall)
      launchOp->setAttr(kLibraryCallAttrName, launch.libraryCall);
    // A persistent grid the runtime sizes for the device, unless sm-count
    // pinned it.
    if (launch.persistentWork > 0 && smCount == 0)
      launchOp->setAttr(kPersistentAttrName,
                        b.getDictionaryAttr(
                            {b.getNamedAttr("work", b.getI64IntegerAttr(
                                                        launch.persistentWork)),
                             b.getNamedAttr("ctas_per_sm",
                                            b.getI64IntegerAttr(
                                                launch.persistentCtasPerSM))}));
    auto replace = [&](Value r, Value buf) {
      Value t = bufferization::ToTensorOp::create(
          b, loc, r.getType(), buf, /*restrict=*/true, /*writable=*/true);
      r.replaceAllUsesWith(t);
      if (!earlier)
        return;
      // A result an earlier launch of the op wrote and this one writes
      // again in place (a concatenation's parts): its readers read it
      // after this launch.
      if (Value prev = earlier->lookup(r))
        prev.replaceUsesWithIf(t, [&](OpOperand &use) {
          return use.getOwner() != buf.getDefiningOp();
        });
      (*earlier)[r] = t;
    };
    for (auto [r, buf] : llvm::zip(launch.results, resultBuffers))
      replace(r, buf);
    for (auto &[r, index] : launch.inPlace)
      replace(r, args[index]);
  }
};
} // namespace
