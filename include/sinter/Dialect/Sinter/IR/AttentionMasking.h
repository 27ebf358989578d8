//===- AttentionMasking.h - Which keys a query may see ----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The one statement of which keys each query row of a `sinter.attention`
// may see, apart from the additive `mask` operand (which only adds to the
// scores). Every lowering -- the CPU loop nest (SinterToLoops), the CUDA-core
// kernel and the tensor-core kernels -- asks this helper instead of deriving
// the rule itself: the loop bound over key tiles, whether a tile needs the
// per-element test, and the per-element test.
//
// Kinds (docs/Rationale.md, "Causal alignment"):
//   * All:    every key.
//   * Causal: key j is visible to query i iff j <= i + (Skv - Sq), the
//             diagonal aligned to the bottom-right corner of the Sq x Skv
//             score matrix (FlashAttention-2 since v2.1).
// A sliding window (key j visible iff i + (Skv - Sq) - w < j <= i +
// (Skv - Sq)) is a third kind: it gives keyBegin() a lower bound and
// buildKeyBegin() a value, and buildTileNeedsMask() also checks the tile's
// last query against its first key; the lowerings already take their key
// range and tile test from here.
//
// The IR builders work on `index` values of non-negative query and key
// indices and compare without subtraction (j + Sq <= i + Skv rather than
// j <= i + (Skv - Sq)), so unsigned comparisons are exact.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_ATTENTIONMASKING_H
#define SINTER_DIALECT_SINTER_IR_ATTENTIONMASKING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace sinter {

class AttentionOp;
class AttentionBackwardOp;

class KeyVisibility {
public:
  enum class Kind { All, Causal };

  KeyVisibility(Kind kind, int64_t querySeqLen, int64_t keySeqLen)
      : kind(kind), sq(querySeqLen), skv(keySeqLen) {}
  /// The rule of `op` (static sequence lengths).
  static KeyVisibility of(AttentionOp op);
  static KeyVisibility of(AttentionBackwardOp op);

  Kind getKind() const { return kind; }
  /// Whether some key below Skv is hidden from some query.
  bool hidesKeys() const { return kind != Kind::All; }
  int64_t getQuerySeqLen() const { return sq; }
  int64_t getKeySeqLen() const { return skv; }

  /// Scalar form of the rule, for host-side decisions and tests (keys at
  /// or past Skv are the caller's to exclude, as in the IR builders).
  bool isVisible(int64_t query, int64_t key) const;
  /// Query `query` sees keys [keyBegin, keyEnd) (clamped to [0, Skv]; an
  /// empty range when it sees none, e.g. the first Sq - Skv causal rows).
  int64_t keyBegin(int64_t query) const;
  int64_t keyEnd(int64_t query) const;
  /// The first query that sees key `key` (Sq when none does): the
  /// backward's loop over query tiles starts there, a key tile's first key
  /// being the one its queries see last.
  int64_t queryBegin(int64_t key) const;

  /// i1: whether key `key` is visible to query `query`; null when every key
  /// is (All). Builds the key's side first.
  mlir::Value buildIsVisible(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value query, mlir::Value key) const;

  /// The rule for one query and many keys: the query's side is built once,
  /// by forQuery(), and each key's test by isVisible().
  class QueryBound {
  public:
    /// i1: whether `key` is visible; null when every key is.
    mlir::Value isVisible(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value key) const;

  private:
    friend class KeyVisibility;
    QueryBound(const KeyVisibility &rule, mlir::Value bound)
        : rule(rule), bound(bound) {}
    const KeyVisibility &rule;
    mlir::Value bound; // Causal: query + Skv
  };
  QueryBound forQuery(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value query) const;

  /// Index: the end of the keys that any query below `queryEnd` sees,
  /// clamped to [0, Skv] (the key loop's bound); the constant Skv when
  /// every key is visible.
  mlir::Value buildKeyEnd(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value queryEnd) const;

  /// Index: queryBegin(firstKey) for an index `firstKey` below Skv; the
  /// constant 0 when every key is visible.
  mlir::Value buildQueryBegin(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value firstKey) const;

  /// i1: whether some key of [firstKey, firstKey + numKeys) is hidden from
  /// some query of [firstQuery, firstQuery + numQueries): the tiles that
  /// need the per-element test. Null when no key is ever hidden. (Keys past
  /// Skv are the caller's: they are not part of the rule.)
  mlir::Value buildTileNeedsMask(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value firstQuery, int64_t numQueries,
                                 mlir::Value firstKey, int64_t numKeys) const;

private:
  Kind kind;
  int64_t sq, skv;
};

} // namespace sinter

#endif // SINTER_DIALECT_SINTER_IR_ATTENTIONMASKING_H
