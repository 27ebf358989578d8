//===- FusedKernel.cpp - sinter.fused chains on CUDA ----------------------===//
//
// Part of the Sinter project.
//
// One pass over the iteration space: each thread owns `width` consecutive
// elements along the innermost dimension (one 16-byte access for the
// narrowest type), loads each input once -- a vector when the input runs
// along the innermost dimension, one scalar when it is broadcast along it,
// `width` scalars when it is transposed -- evaluates the body per element in
// registers and stores each result once with a vector store. sinter.dropout
// draws its mask from Philox, one call per four elements.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "sinter/Conversion/Philox.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace sinter;
using namespace sinter::gpu_kernels;

/// Bytes an element takes in memory (an i1 takes a byte).
static int64_t storageBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// i1 buffers hold a byte per element (as the runtime and scalar loads see
/// them), but LLVM packs a vector<N x i1> into N bits in memory: i1
/// elements are loaded and stored one by one.
static bool isBitPackedInVectors(Type t) { return t.isInteger(1); }

KernelLaunch sinter::gpu_kernels::launchFor(Operation *op, int64_t grid,
                                            int64_t block) {
  KernelLaunch launch;
  launch.grid = grid;
  launch.block = block;
  launch.operands.append(op->getOperands().begin(), op->getOperands().end());
  launch.results.append(op->getResults().begin(), op->getResults().end());
  return launch;
}

SmallVector<Type> sinter::gpu_kernels::bufferTypes(const KernelLaunch &launch) {
  SmallVector<Type> types;
  auto convert = [&](Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      types.push_back(MemRefType::get(t.getShape(), t.getElementType()));
    else
      types.push_back(v.getType());
  };
  llvm::for_each(launch.operands, convert);
  llvm::for_each(launch.results, convert);
  // Tensor maps: the address of a by-value parameter once lowered.
  if (!launch.tensorMaps.empty())
    types.append(launch.tensorMaps.size(),
                 LLVM::LLVMPointerType::get(types.front().getContext()));
  return types;
}

namespace {
/// A body that yields its one argument of type `elt` (a copy); owns the
/// block.
class CopyBody {
public:
  CopyBody(Type elt, Location loc) {
    Value arg = body.addArgument(elt, loc);
    OpBuilder b(loc.getContext());
    b.setInsertionPointToEnd(&body);
    YieldOp::create(b, loc, ValueRange{arg});
  }
  ~CopyBody() { body.clear(); }
  Block &block() { return body; }

private:
  Block body;
};
} // namespace

FailureOr<KernelLaunch> sinter::gpu_kernels::buildCopyKernel(
    Operation *op, Value source, ArrayRef<int64_t> offsets, ValueRange results,
    gpu::GPUModuleOp module, StringRef name, const Tuning &tuning,
    const ElementwisePadding *padding, const ElementwisePlacement *placement) {
  auto type = cast<RankedTensorType>(source.getType());
  CopyBody copy(type.getElementType(), op->getLoc());
  SmallVector<SmallVector<int64_t>> inputOffsets;
  if (!offsets.empty())
    inputOffsets.emplace_back(offsets);
  return buildElementwiseKernel(
      op, ValueRange{source},
      {AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext())},
      copy.block(), results, module, name, tuning, inputOffsets, padding,
      placement);
}

FailureOr<KernelLaunch>
sinter::gpu_kernels::buildFusedKernel(FusedOp op, gpu::GPUModuleOp module,
                                      StringRef name, const Tuning &tuning) {
  SmallVector<AffineMap> maps;
  for (Attribute a : op.getIndexingMaps())
    maps.push_back(cast<AffineMapAttr>(a).getValue());
  return buildElementwiseKernel(op, op.getInputs(), maps, op.getBody().front(),
                                op.getResults(), module, name, tuning);
}

namespace {

/// The `width` consecutive elements one thread owns in one unrolled step:
/// where they lie, and each input's `width` scalars.
struct Slot {
  Value valid; // null when always in bounds
  Value first; // linear index of the slot's first element
  /// Coordinates of the first element; under a fused pad, outer ones are
  /// clamped into the source (the lanes past it store the pad value).
  SmallVector<Value> coords;
  /// Under a fused pad: whether the slot's outer coordinates lie in the
  /// source (null: always), and, when the innermost dimension is padded,
  /// each lane's clamped innermost coordinate and whether it lies inside.
  Value outerInside;
  SmallVector<Value> laneInner, laneInside;
  /// Slots across rows (rows of odd length): the outer coordinates of the
  /// next row, and which lanes lie in it (their inner coordinates are in
  /// `laneInner`).
  SmallVector<Value> nextCoords, laneWraps;
  SmallVector<SmallVector<Value>> lanes; // per input: `width` scalars
};

/// The vector width: one 16-byte access for the narrowest element type,
/// dividing the innermost extent.
int64_t vectorWidth(ValueRange inputs, ValueRange results, int64_t inner) {
  int64_t minBytes = kMaxVectorAccessBytes;
  for (Value v : llvm::concat<const Value>(inputs, results))
    if (auto rt = dyn_cast<RankedTensorType>(v.getType()))
      minBytes = std::min<int64_t>(minBytes, storageBytes(rt.getElementType()));
  int64_t width = kMaxVectorAccessBytes / std::max<int64_t>(minBytes, 1);
  while (width > 1 && inner % width != 0)
    width /= 2;
  return width;
}

/// Emits one elementwise kernel's per-slot code: locating a slot, loading
/// its inputs, evaluating the body and storing its results.
struct ElementwiseEmitter {
  ImplicitLocOpBuilder &b;
  KernelBuilder &kb;
  gpu::GPUFuncOp func;
  ArrayRef<int64_t> iter;  // the results' shape
  ArrayRef<int64_t> valid; // where the body runs (iter unless padded)
  int64_t width;
  const ElementwisePadding *padding;
  const ElementwisePlacement *placement;
  /// Slots of `width` consecutive elements that may run into the next row
  /// (rows whose length `width` does not divide).
  bool acrossRows = false;

  int64_t rank() const { return iter.size(); }
  /// Whether lanes have inner coordinates of their own.
  bool perLaneInner() const { return innerPadded() || acrossRows; }
  bool innerPadded() const {
    return padding && rank() > 0 && valid.back() < iter.back();
  }

  /// The coordinates of the slot starting at linear element `first`, and
  /// under a fused pad the masks of the lanes inside its source.
  void locate(Slot &slot) {
    slot.coords.assign(rank(), Value());
    Value rem = slot.first;
    for (int64_t d = rank() - 1; d >= 0; --d) {
      slot.coords[d] = arith::RemUIOp::create(b, rem, kb.idx(iter[d]));
      rem = arith::DivUIOp::create(b, rem, kb.idx(iter[d]));
    }
    if (acrossRows)
      locateAcrossRows(slot);
    if (!padding)
      return;
    for (int64_t d = 0; d + 1 < rank(); ++d) {
      if (valid[d] == iter[d])
        continue;
      Value in = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                       slot.coords[d], kb.idx(valid[d]));
      slot.outerInside = slot.outerInside
                             ? arith::AndIOp::create(b, slot.outerInside, in)
                             : in;
      slot.coords[d] =
          arith::MinUIOp::create(b, slot.coords[d], kb.idx(valid[d] - 1));
    }
    if (!innerPadded())
      return;
    for (int64_t j = 0; j < width; ++j) {
      Value c = arith::AddIOp::create(b, slot.coords.back(), kb.idx(j));
      slot.laneInside.push_back(arith::CmpIOp::create(
          b, arith::CmpIPredicate::ult, c, kb.idx(valid.back())));
      slot.laneInner.push_back(
          arith::MinUIOp::create(b, c, kb.idx(valid.back() - 1)));
    }
  }

  /// A slot that may run into the next row: lane j's inner coordinate
  /// c + j, less the row length where it wrapped (one row at most: the
  /// rows are at least `width` long), and the next row's outer coordinates.
  void locateAcrossRows(Slot &slot) {
    int64_t inner = iter.back();
    for (int64_t j = 0; j < width; ++j) {
      Value c = arith::AddIOp::create(b, slot.coords.back(), kb.idx(j));
      Value wraps =
          arith::CmpIOp::create(b, arith::CmpIPredicate::uge, c, kb.idx(inner));
      slot.laneWraps.push_back(wraps);
      slot.laneInner.push_back(arith::SelectOp::create(
          b, wraps, arith::SubIOp::create(b, c, kb.idx(inner)), c));
    }
    slot.nextCoords.assign(rank(), Value());
    Value rem = arith::AddIOp::create(
        b, arith::DivUIOp::create(b, slot.first, kb.idx(inner)), kb.idx(1));
    for (int64_t d = rank() - 2; d >= 0; --d) {
      slot.nextCoords[d] = arith::RemUIOp::create(b, rem, kb.idx(iter[d]));
      rem = arith::DivUIOp::create(b, rem, kb.idx(iter[d]));
    }
  }

  /// Under a padded innermost dimension, whether input `type` (read by
  /// `map` at `offsets`) has rows that reach the padded width, unit-stride
  /// along it: the padded product the forward saved, read through its
  /// slice (python/sinter/torch/_padded_saves.py). Its lanes then load
  /// whole vectors at their unclamped coordinates; those past the source
  /// read the input's own padding, and their results are replaced by the
  /// pad value.
  bool coversPaddedRows(RankedTensorType type, AffineMap map,
                        ArrayRef<int64_t> offsets) const {
    if (!innerPadded() || acrossRows || map.getNumResults() == 0)
      return false;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim || static_cast<int64_t>(dim.getPosition()) != rank() - 1)
      return false;
    int64_t off = offsets.empty() ? 0 : offsets.back();
    return off + iter.back() <= type.getShape().back();
  }

  /// Input `arg`'s `width` scalars for `slot`: a vector when it runs along
  /// the innermost dimension with aligned rows, one scalar when broadcast
  /// along it, `width` scalars otherwise (transposed, odd rows, a slice at
  /// an odd offset, or a padded innermost dimension).
  SmallVector<Value> loadInput(Slot &slot, Value arg, RankedTensorType type,
                               AffineMap map, ArrayRef<int64_t> offsets) {
    SmallVector<int64_t> strides = computeStrides(type.getShape());
    Value flat = kb.flatten(arg);
    // A constant start (a slice's offsets) shifts the whole access.
    int64_t start = 0;
    for (auto [k, off] : llvm::enumerate(offsets))
      start += off * strides[k];
    Value index = kb.idx(start), nextIndex = index;
    int64_t innerStride = 0; // element stride along the innermost iter dim
    // A vector access starts at a multiple of `width` elements (aligned)
    // when the start and the strides of the outer dimensions are
    // multiples of it; across rows, when the input is the iteration space
    // itself (row-major, no offsets).
    bool covers = coversPaddedRows(type, map, offsets);
    bool alignedVectors = start % width == 0 && (!perLaneInner() || covers);
    bool contiguous =
        acrossRows && start == 0 && map.isIdentity() && type.getShape() == iter;
    for (auto [k, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        continue; // constant 0 on a size-1 dimension
      unsigned p = dim.getPosition();
      if (static_cast<int64_t>(p) == rank() - 1) {
        innerStride = strides[k];
        if (perLaneInner() && !covers)
          continue; // added lane by lane
      } else if (strides[k] % width != 0) {
        alignedVectors = false;
      }
      index = arith::AddIOp::create(
          b, index,
          arith::MulIOp::create(b, slot.coords[p], kb.idx(strides[k])));
      if (acrossRows)
        nextIndex = arith::AddIOp::create(
            b, nextIndex,
            arith::MulIOp::create(b, slot.nextCoords[p], kb.idx(strides[k])));
    }
    Type elt = type.getElementType();
    SmallVector<Value> vals;
    if (contiguous && !isBitPackedInVectors(elt)) {
      alignedVectors = true;
      index = slot.first;
    }
    if (innerStride == 1 && width > 1 && alignedVectors &&
        !isBitPackedInVectors(elt)) {
      auto load =
          vector::LoadOp::create(b, VectorType::get({width}, elt), flat, index);
      load.setAlignment(
          std::min(kMaxVectorAccessBytes, width * storageBytes(elt)));
      for (int64_t j = 0; j < width; ++j)
        vals.push_back(
            vector::ExtractOp::create(b, load, ArrayRef<int64_t>{j}));
      return vals;
    }
    if (innerStride == 0) {
      // Broadcast along rows: one load per row the slot touches.
      Value here = memref::LoadOp::create(b, flat, ValueRange{index});
      if (!acrossRows) {
        vals.assign(width, here);
        return vals;
      }
      Value next = memref::LoadOp::create(b, flat, ValueRange{nextIndex});
      for (int64_t j = 0; j < width; ++j)
        vals.push_back(
            arith::SelectOp::create(b, slot.laneWraps[j], next, here));
      return vals;
    }
    for (int64_t j = 0; j < width; ++j) {
      Value at;
      if (perLaneInner() && !covers) {
        Value row = acrossRows ? arith::SelectOp::create(b, slot.laneWraps[j],
                                                         nextIndex, index)
                               : index;
        at = arith::AddIOp::create(
            b, row,
            arith::MulIOp::create(b, slot.laneInner[j], kb.idx(innerStride)));
      } else {
        at = arith::AddIOp::create(b, index, kb.idx(j * innerStride));
      }
      vals.push_back(memref::LoadOp::create(b, flat, ValueRange{at}));
    }
    return vals;
  }

  /// Lane `j`'s coordinates in the iteration space.
  SmallVector<Value> laneCoords(const Slot &slot, int64_t j) {
    SmallVector<Value> c(slot.coords);
    if (acrossRows)
      for (int64_t d = 0; d + 1 < rank(); ++d)
        c[d] = arith::SelectOp::create(b, slot.laneWraps[j], slot.nextCoords[d],
                                       slot.coords[d]);
    if (rank() > 0)
      c.back() = perLaneInner()
                     ? slot.laneInner[j]
                     : arith::AddIOp::create(b, slot.coords.back(), kb.idx(j));
    return c;
  }

  /// The coordinates in `in`'s producer of the input element at `at`
  /// (shaped `shape`): through its reshape, linearized (expand_shape) or
  /// delinearized (collapse_shape) group by group.
  SmallVector<Value> producerCoords(const ComputedInput &in, ArrayRef<Value> at,
                                    ArrayRef<int64_t> shape) {
    if (!in.reshape)
      return SmallVector<Value>(at);
    ArrayRef<int64_t> src =
        cast<RankedTensorType>(in.reshape->getOperand(0).getType()).getShape();
    SmallVector<Value> pc(src.size());
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(in.reshape)) {
      for (auto [g, group] :
           llvm::enumerate(expand.getReassociationIndices())) {
        Value acc = kb.idx(0);
        for (int64_t d : group)
          acc = arith::AddIOp::create(
              b, arith::MulIOp::create(b, acc, kb.idx(shape[d])), at[d]);
        pc[g] = acc;
      }
      return pc;
    }
    auto collapse = cast<tensor::CollapseShapeOp>(in.reshape);
    for (auto [g, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      Value rem = at[g];
      for (int64_t d : llvm::reverse(group)) {
        pc[d] = arith::RemUIOp::create(b, rem, kb.idx(src[d]));
        rem = arith::DivUIOp::create(b, rem, kb.idx(src[d]));
      }
    }
    return pc;
  }

  /// A computed input's `width` values for `slot` (computedInputOf): its
  /// producer's body evaluated at each lane's coordinates.
  SmallVector<Value> computeInput(const Slot &slot, const ComputedInput &in,
                                  AffineMap map, RankedTensorType type) {
    Block &body = in.producer->getRegion(0).front();
    SmallVector<std::pair<Value, Value>> constantsAbove =
        cloneConstantsAbove(b, body);
    SmallVector<Value> vals;
    for (int64_t j = 0; j < width; ++j) {
      SmallVector<Value> it = laneCoords(slot, j), at;
      for (AffineExpr e : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          at.push_back(it[dim.getPosition()]);
        else
          at.push_back(kb.idx(cast<AffineConstantExpr>(e).getValue()));
      }
      SmallVector<Value> pc = producerCoords(in, at, type.getShape());
      IRMapping mapping;
      for (auto [above, inKernel] : constantsAbove)
        mapping.map(above, inKernel);
      for (Operation &bodyOp : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
          mapping.map(index.getResult(), pc[index.getDim()]);
          continue;
        }
        b.clone(bodyOp, mapping);
      }
      vals.push_back(
          mapping.lookupOrDefault(body.getTerminator()->getOperand(0)));
    }
    return vals;
  }

  /// Under a fused pad, lane `j`'s `value` where it lies in the source and
  /// result `r`'s pad value elsewhere.
  Value padded(const Slot &slot, int64_t j, unsigned r, Value value) {
    if (!padding)
      return value;
    Value inside = slot.outerInside;
    if (innerPadded())
      inside = inside ? arith::AndIOp::create(b, inside, slot.laneInside[j])
                      : slot.laneInside[j];
    if (!inside)
      return value;
    Value pad = arith::ConstantOp::create(b, padding->padValues[r]);
    return arith::SelectOp::create(b, inside, value, pad);
  }

  /// `vals` stored at `index`, `step` elements apart, into the 1-D `flat`:
  /// one aligned vector store when `vector` (contiguous, aligned) allows,
  /// element by element otherwise (i1 always: LLVM packs its vectors).
  void storeLanes(OpBuilder &ob, Location loc, Value flat, Value index,
                  int64_t step, bool vector, ArrayRef<Value> vals) {
    Type elt = cast<MemRefType>(flat.getType()).getElementType();
    if (vector && step == 1 && width > 1 && !isBitPackedInVectors(elt)) {
      Value vec = vector::FromElementsOp::create(
          ob, loc, VectorType::get({width}, elt), vals);
      auto store = vector::StoreOp::create(ob, loc, vec, flat, index);
      store.setAlignment(
          std::min(kMaxVectorAccessBytes, width * storageBytes(elt)));
      return;
    }
    for (auto [j, val] : llvm::enumerate(vals)) {
      Value at = arith::AddIOp::create(
          ob, loc, index, arith::ConstantIndexOp::create(ob, loc, j * step));
      memref::StoreOp::create(ob, loc, val, flat, ValueRange{at});
    }
  }

  /// Under a placement, the slot's elements stored into the destination at
  /// their placed indices: a vector where they are contiguous and aligned
  /// there.
  void storePlaced(OpBuilder &ob, Location loc, const Slot &slot, Value dest,
                   ArrayRef<Value> vals) {
    Value index = arith::ConstantIndexOp::create(ob, loc, placement->offset);
    bool aligned = placement->offset % width == 0;
    for (int64_t d = 0; d < rank(); ++d) {
      index = arith::AddIOp::create(
          ob, loc, index,
          arith::MulIOp::create(
              ob, loc, slot.coords[d],
              arith::ConstantIndexOp::create(ob, loc, placement->strides[d])));
      if (d + 1 < rank() && placement->strides[d] % width != 0)
        aligned = false;
    }
    storeLanes(ob, loc, kb.flatten(dest), index,
               rank() ? placement->strides.back() : 1, aligned, vals);
  }

  /// The `width` elements of each result in `slot`, stored with one vector
  /// store per result (i1 element by element), guarded by the slot's bound.
  void store(const Slot &slot, ArrayRef<SmallVector<Value>> outs,
             unsigned firstResultArg) {
    auto storeAll = [&](OpBuilder &ob, Location loc) {
      for (auto [r, vals] : llvm::enumerate(outs)) {
        if (placement) {
          storePlaced(ob, loc, slot, func.getArgument(firstResultArg), vals);
          continue;
        }
        Value flat = func.getArgument(firstResultArg + r);
        auto memType = cast<MemRefType>(flat.getType());
        if (memType.getRank() == 0) {
          flat =
              memref::ExpandShapeOp::create(ob, loc, ArrayRef<int64_t>{1}, flat,
                                            ArrayRef<ReassociationIndices>{});
        } else if (memType.getRank() != 1) {
          SmallVector<ReassociationIndices> all(1);
          for (int64_t d = 0; d < memType.getRank(); ++d)
            all[0].push_back(d);
          flat = memref::CollapseShapeOp::create(ob, loc, flat, all);
        }
        storeLanes(ob, loc, flat, slot.first, /*step=*/1, /*vector=*/true,
                   vals);
      }
    };
    if (!slot.valid) {
      storeAll(b, b.getLoc());
      return;
    }
    scf::IfOp::create(b, slot.valid, [&](OpBuilder &ob, Location loc) {
      storeAll(ob, loc);
      scf::YieldOp::create(ob, loc);
    });
  }
};

/// Dropout decisions of a slot's elements, per seed. One Philox call draws
/// eight consecutive elements (two per word, Philox.h); the slot's first
/// element is a multiple of `width` (a power of two), so a slot of 8k
/// elements takes k whole calls and a slot of 2 or 4 lies inside one call,
/// at a word its first element selects. A one-element slot takes a call.
struct DropoutWords {
  DropoutWords(ImplicitLocOpBuilder &b, Value firstI64, int64_t width)
      : b(b), firstI64(firstI64), width(width) {}
  ImplicitLocOpBuilder &b;
  Value firstI64;
  int64_t width;
  llvm::DenseMap<Value, SmallVector<Value>> bySeed;

  /// Whether element `j` of the slot is kept with probability `p`.
  Value keep(Value seed, int64_t j, double p) {
    if (width % kPhiloxDrawsPerWord != 0)
      return buildPhiloxKeepOnGPU(
          b, b.getLoc(),
          arith::AddIOp::create(
              b, firstI64, arith::ConstantIntOp::create(b, b.getI64Type(), j)),
          seed, p);
    SmallVector<Value> &words = bySeed[seed];
    if (words.empty())
      words = slotWords(seed);
    return buildPhiloxKeepHalf(b, b.getLoc(), words[j / kPhiloxDrawsPerWord],
                               j % kPhiloxDrawsPerWord, p);
  }

private:
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, b.getI64Type(), v);
  }

  /// The words holding the slot's draws, in order.
  SmallVector<Value> slotWords(Value seed) {
    Value c0 = arith::DivUIOp::create(b, firstI64, i64(kPhiloxDraws));
    SmallVector<Value> words;
    for (int64_t c = 0; c * kPhiloxDraws < width; ++c) {
      std::array<Value, kPhiloxWords> w = buildPhiloxOnGPU(
          b, b.getLoc(), arith::AddIOp::create(b, c0, i64(c)), seed);
      words.append(w.begin(), w.end());
    }
    if (width >= kPhiloxDraws)
      return words;
    // A narrower slot: its words start at word (first % 8) / 2 of the call.
    Value at = arith::TruncIOp::create(
        b, b.getI32Type(),
        arith::DivUIOp::create(
            b, arith::RemUIOp::create(b, firstI64, i64(kPhiloxDraws)),
            i64(kPhiloxDrawsPerWord)));
    SmallVector<Value> mine;
    for (int64_t k = 0; k < width / kPhiloxDrawsPerWord; ++k)
      mine.push_back(buildSelectPhiloxWord(
          b, b.getLoc(), words,
          arith::AddIOp::create(
              b, at, arith::ConstantIntOp::create(b, b.getI32Type(), k))));
    return mine;
  }
};

/// Evaluates `body` on lane `j` of `slot` into `mapping`: arith and math ops
/// cloned, sinter.dropout as a Philox keep-mask select.
void evaluateLane(ImplicitLocOpBuilder &b, Block &body, const Slot &slot,
                  int64_t j, ArrayRef<std::pair<Value, Value>> constantsAbove,
                  DropoutWords &dropout, bool fastTanh, IRMapping &mapping) {
  for (auto [above, inKernel] : constantsAbove)
    mapping.map(above, inKernel);
  for (auto [arg, vals] : llvm::zip(body.getArguments(), slot.lanes))
    mapping.map(arg, vals[j]);
  for (Operation &bodyOp : body.without_terminator()) {
    if (auto drop = dyn_cast<DropoutOp>(bodyOp)) {
      // Kept elements are scaled by 1/(1-p), dropped ones are zero.
      double p = drop.getP().convertToDouble();
      Value x = mapping.lookup(drop.getInput());
      Value keep = dropout.keep(mapping.lookup(drop.getSeed()), j, p);
      Type t = x.getType();
      Value scaled = arith::MulFOp::create(
          b, x,
          arith::ConstantOp::create(b, b.getFloatAttr(t, dropoutKeptScale(p))));
      Value zero = arith::ConstantOp::create(b, b.getFloatAttr(t, 0.0));
      mapping.map(drop.getResult(),
                  arith::SelectOp::create(b, keep, scaled, zero));
      continue;
    }
    cloneElementOp(b, bodyOp, mapping, fastTanh);
  }
}

} // namespace

FailureOr<KernelLaunch> sinter::gpu_kernels::buildElementwiseKernel(
    Operation *op, ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    Block &body, ValueRange results, gpu::GPUModuleOp module, StringRef name,
    const Tuning &tuning, ArrayRef<SmallVector<int64_t>> inputOffsets,
    const ElementwisePadding *padding, const ElementwisePlacement *placement) {
  ArrayRef<int64_t> iter =
      cast<RankedTensorType>(results.front().getType()).getShape();
  int64_t rank = iter.size();
  int64_t total = 1;
  for (int64_t d : iter)
    total *= d;
  for (Operation &bodyOp : body.without_terminator()) {
    // Dropout's counters are the elements' linear indices, which a pad
    // would shift.
    if (isa<DropoutOp>(bodyOp) && !padding)
      continue;
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            bodyOp.getDialect()))
      return bodyOp.emitOpError(
          "cannot run inside an elementwise CUDA kernel (only arith and "
          "math ops can, and dropout where no pad is fused)");
  }
  int64_t inner = rank ? iter.back() : 1;
  int64_t width = vectorWidth(inputs, results, inner);
  // Rows of odd length (GPT-2's 50257-word logits): slots of the full
  // width that may run into the next row, rather than element by element.
  int64_t full = vectorWidth(inputs, results, kMaxVectorAccessBytes);
  bool acrossRows = width < full && rank >= 2 && !padding && !placement &&
                    inner >= full && total % full == 0;
  if (acrossRows)
    width = full;

  // Each thread owns `unroll` vectors, `threads` apart, and issues all their
  // loads before any arithmetic so that enough bytes are in flight.
  int64_t nvec = total / width;
  int64_t unroll = nvec >= 2048 * tuning.fusedVectors
                       ? std::max<int64_t>(1, tuning.fusedVectors)
                       : 1;
  int64_t threads = llvm::divideCeil(nvec, unroll);
  KernelLaunch launch;
  launch.block = std::min<int64_t>(256, std::max<int64_t>(threads, 1));
  launch.grid = llvm::divideCeil(threads, launch.block);
  // Inputs computed from their indices (an iota) are not read: the
  // kernel's arguments are the others.
  SmallVector<std::optional<ComputedInput>> computed;
  SmallVector<unsigned> argOf;
  for (Value in : inputs) {
    computed.push_back(computedInputOf(in));
    argOf.push_back(launch.operands.size());
    if (!computed.back())
      launch.operands.push_back(in);
  }
  unsigned numInputArgs = launch.operands.size();
  if (placement && (padding || results.size() != 1))
    return op->emitOpError("an elementwise kernel places one unpadded result "
                           "only");
  if (!placement) {
    launch.results.append(results.begin(), results.end());
  } else if (placement->fresh) {
    launch.results.push_back(placement->dest);
  } else {
    // An earlier launch of the op allocated the destination: this one
    // writes it in place.
    launch.operands.push_back(placement->dest);
    launch.inPlace.push_back({placement->dest, numInputArgs});
  }

  // When every result is bf16 (8 significant bits), tanh may use the
  // hardware approximation (relative error below 2^-10.9): the rounding to
  // bf16 dominates. Other result types keep the accurate libdevice tanh.
  bool fastTanh = llvm::all_of(results, [](Value r) {
    return cast<RankedTensorType>(r.getType()).getElementType().isBF16();
  });

  ImplicitLocOpBuilder b(op->getLoc(), op->getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, name, bufferTypes(launch), launch.block);
  launch.kernel = func;
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(b);
  ElementwiseEmitter emit{b,
                          kb,
                          func,
                          iter,
                          padding ? ArrayRef<int64_t>(padding->valid) : iter,
                          width,
                          padding,
                          placement,
                          acrossRows};

  Value tid = arith::AddIOp::create(
      b, arith::MulIOp::create(b, kb.blockId(), kb.idx(launch.block)),
      kb.threadId());
  int64_t maxTid = launch.grid * launch.block - 1;
  SmallVector<Slot, 0> slots(unroll);
  for (int64_t u = 0; u < unroll; ++u) {
    Slot &slot = slots[u];
    Value v = arith::AddIOp::create(b, tid, kb.idx(u * threads));
    if (maxTid + u * threads >= nvec) {
      slot.valid =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v, kb.idx(nvec));
      // Out-of-range slots load from element 0 (always in bounds) and
      // store nothing: no branches around the loads.
      v = arith::SelectOp::create(b, slot.valid, v, kb.idx(0));
    }
    slot.first = arith::MulIOp::create(b, v, kb.idx(width));
    emit.locate(slot);
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (computed[i]) {
        slot.lanes.push_back(
            emit.computeInput(slot, *computed[i], inputMaps[i], type));
        continue;
      }
      if (!type) {
        slot.lanes.push_back(
            SmallVector<Value>(width, func.getArgument(argOf[i])));
        continue;
      }
      slot.lanes.push_back(emit.loadInput(
          slot, func.getArgument(argOf[i]), type, inputMaps[i],
          i < inputOffsets.size() ? ArrayRef<int64_t>(inputOffsets[i])
                                  : ArrayRef<int64_t>()));
    }
  }

  // The body, once per element, then one vector store per result.
  Operation *yield = body.getTerminator();
  // Constants the body uses from above its region are rematerialized in
  // the kernel.
  SmallVector<std::pair<Value, Value>> constantsAbove =
      cloneConstantsAbove(b, body);
  for (Slot &slot : slots) {
    SmallVector<SmallVector<Value>> outs(results.size());
    DropoutWords dropout(
        b, arith::IndexCastOp::create(b, b.getI64Type(), slot.first), width);
    for (int64_t j = 0; j < width; ++j) {
      IRMapping mapping;
      evaluateLane(b, body, slot, j, constantsAbove, dropout, fastTanh,
                   mapping);
      for (auto [r, v] : llvm::enumerate(yield->getOperands())) {
        // A yielded constant from above the region (a batch-1 iota folded
        // to 0) is rematerialized in the kernel.
        if (!mapping.contains(v) && matchPattern(v, m_Constant()) &&
            v.getDefiningOp())
          mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
        outs[r].push_back(emit.padded(slot, j, r, mapping.lookupOrDefault(v)));
      }
    }
    emit.store(slot, outs, numInputArgs);
  }
  return launch;
}
