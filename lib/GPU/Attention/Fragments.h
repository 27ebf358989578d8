//===- Fragments.h - Register fragments of the MMA kernels ------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Ops on the per-thread register fragments of the tensor-core attention
// kernel. The accumulator of one m16n8 tile is a vector<2x2xf32> per
// thread (rows quadRow and quadRow + 8, columns quadCol and quadCol + 1),
// the layout of mma.sync m16n8k16 and, per warp, of wgmma m64nNk16, so the
// softmax code serves both generations.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_GPU_ATTENTION_FRAGMENTS_H
#define SINTER_LIB_GPU_ATTENTION_FRAGMENTS_H

#include "KernelBuilder.h"
#include "Kernels.h"
#include "SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

#include <utility>

namespace sinter::gpu_kernels::attention {

class FragmentBuilder;

/// The rows of one (batch, head) of an attention operand in its flattened
/// buffer (HeadLayout): row r starts at element (seqBase + r) * stride of a
/// dense [B, H, S, D] operand, or at elementBase + r * stride of heads read
/// or written in place ([B, S, Hbuf, D]: stride Hbuf * D).
struct OperandRows {
  mlir::Value seqBase;     // dense: the (batch, head)'s first flat row
  mlir::Value elementBase; // in place: its first row's first element
  int64_t stride = 0;      // elements between rows
  /// The flat index of element `col` of row `row` (col null: 0).
  mlir::Value element(FragmentBuilder &mb, mlir::Value row,
                      mlir::Value col = {}) const;
  /// The rows of head `head` of batch `batch` (seqLen rows of headDim
  /// elements) where `layout` puts them; `seqBase` is the first flat row
  /// of that (batch, head) in the dense [B, H, S, D] form.
  static OperandRows of(FragmentBuilder &mb, const HeadLayout &layout,
                        mlir::Value seqBase, mlir::Value batch,
                        mlir::Value head, int64_t seqLen, int64_t headDim);
};

class FragmentBuilder {
public:
  FragmentBuilder(mlir::ImplicitLocOpBuilder &b, mlir::Type elt);

  mlir::ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  mlir::Type elt;
  /// Accumulator tile, A operand (ldmatrix.x4), B operand, f32 pair and
  /// element pair.
  mlir::VectorType acc2x2, frag4x2, frag2x2, f32x2, elt2;

  // Index arithmetic (`c` folded away when 0 for add).
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value add(mlir::Value x, int64_t c);
  mlir::Value mul(mlir::Value x, int64_t c);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y);
  /// An index as i32 (PTX operands).
  mlir::Value toI32(mlir::Value index);

  /// A zero accumulator tile.
  mlir::Value zeroAcc();
  mlir::Value splat2(mlir::Value s);
  /// Row r (0: quadRow, 1: quadRow + 8) of an accumulator tile, and back.
  mlir::Value row(mlir::Value acc, int64_t r);
  mlir::Value setRow(mlir::Value acc, mlir::Value v, int64_t r);
  mlir::Value elem(mlir::Value v2, int64_t c);
  /// The f32 accumulators of tiles `accs` in register order d0..d3 per
  /// tile, and back.
  llvm::SmallVector<mlir::Value> flatten(llvm::ArrayRef<mlir::Value> accs);
  llvm::SmallVector<mlir::Value> unflatten(llvm::ArrayRef<mlir::Value> regs);
  llvm::SmallVector<mlir::Value> callAsm(llvm::StringRef text,
                                         llvm::StringRef cons,
                                         llvm::ArrayRef<mlir::Value> operands,
                                         llvm::ArrayRef<mlir::Type> types);

  /// The source of a cp.async of elements [col, col + vecElems) of
  /// sequence row `seqRow` of `rows`: the flat element index and the
  /// bytes' element count to read (null: all). With `ragged`, a row at or
  /// past `seqLen` reads row 0 with a count of 0, so the copy zero-fills it.
  std::pair<mlir::Value, mlir::Value>
  rowChunkSource(const OperandRows &rows, mlir::Value seqRow, int64_t seqLen,
                 mlir::Value col, int64_t vecElems, bool ragged);

  // mma.sync (MmaSync.cpp).
  /// The row (element) offsets each lane gives ldmatrix.x4 (lane l names
  /// row l % 8 of matrix l / 8): (rowA, colA) for A operands and
  /// transposed B operands, whose matrices are ordered (rows lo, k lo),
  /// (rows hi, k lo), (rows lo, k hi), (rows hi, k hi); (rowK, colK) for
  /// untransposed B operands: (n lo, k lo), (n lo, k hi), (n hi, k lo),
  /// (n hi, k hi).
  struct LdmatrixLanes {
    mlir::Value rowA, colA, rowK, colK;
  };
  LdmatrixLanes ldmatrixLanes(mlir::Value lane);
  /// ldmatrix.x4 at (r, c) of a padded row-major tile.
  mlir::Value ldmatrix(mlir::Value smem, mlir::Value r, mlir::Value c,
                       bool transpose);
  /// Rows [2*h, 2*h+1] of an ldmatrix.x4 result: one B fragment.
  mlir::Value half(mlir::Value x4, int64_t h);
  /// One mma.sync.m16n8k16 (row.col, f32 accumulators).
  mlir::Value mma(mlir::Value a, mlir::Value bFrag, mlir::Value c);

  // wgmma (Wgmma.cpp).
  /// Inline PTX `text` with `vals` tied through as in/out operands.
  llvm::SmallVector<mlir::Value> asmTied(llvm::StringRef text,
                                         llvm::ArrayRef<mlir::Value> vals);
  /// wgmma.mma_async m64nNk16 with f32 accumulators `acc` (N/2 per thread):
  /// A from the descriptor `descA` or the four registers `aRegs`; B from
  /// `descB` (transposed when `transB`).
  llvm::SmallVector<mlir::Value> wgmma(int64_t n,
                                       llvm::ArrayRef<mlir::Value> acc,
                                       llvm::ArrayRef<mlir::Value> aRegs,
                                       mlir::Value descA, mlir::Value descB,
                                       bool accumulate, bool transB);
  /// The wgmma matrix descriptor of the swizzled tile `tile` (1024-byte
  /// aligned) at `byteOffset` plus `rowOffset` (bytes, a value; may be
  /// null), read in `layout`.
  mlir::Value descriptor(mlir::Value tile, int64_t byteOffset,
                         const WgmmaDescriptor &layout,
                         mlir::Value rowOffset = mlir::Value());

  // Softmax (Softmax.cpp).
  /// 2^x (f32 or vector<2xf32>) as one ex2.approx.ftz.f32 per element.
  mlir::Value exp2(mlir::Value x);
  /// max or sum of `vals` as a balanced tree.
  mlir::Value tree(llvm::SmallVector<mlir::Value> vals, bool isMax);
  /// max or sum across the four lanes of a quad (one row of a tile).
  mlir::Value quadReduce(mlir::Value v, bool isMax);

private:
  mlir::Value exp2Scalar(mlir::Value x);
};

} // namespace sinter::gpu_kernels::attention

#endif // SINTER_LIB_GPU_ATTENTION_FRAGMENTS_H
