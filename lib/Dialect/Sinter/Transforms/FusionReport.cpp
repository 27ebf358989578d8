//===- FusionReport.cpp - Remarks, records and the JSON fusion report -----===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/FusionReport.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace sinter {
#define GEN_PASS_DEF_FUSIONREPORT
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace sinter

using namespace mlir;

int64_t sinter::tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = t.getElementType().getIntOrFloatBitWidth();
  return t.getNumElements() * ((bits + 7) / 8);
}

void sinter::reportFusion(Operation *fusedOp, StringRef pattern,
                          int64_t intermediateBytesAvoided) {
  fusedOp->emitRemark() << "fused " << pattern << ": "
                        << intermediateBytesAvoided
                        << " bytes of intermediates no longer written";
  Builder b(fusedOp->getContext());
  SmallVector<Attribute> records;
  if (auto old = fusedOp->getAttrOfType<ArrayAttr>(kFusionAttrName))
    records.append(old.begin(), old.end());
  records.push_back(b.getDictionaryAttr(
      {b.getNamedAttr("bytes_avoided",
                      b.getI64IntegerAttr(intermediateBytesAvoided)),
       b.getNamedAttr("pattern", b.getStringAttr(pattern))}));
  fusedOp->setAttr(kFusionAttrName, b.getArrayAttr(records));
}

void sinter::reportNearMiss(Operation *anchor, StringRef pattern,
                            const llvm::Twine &reason) {
  anchor->emitRemark() << "not fused as " << pattern << ": " << reason;
}

static std::string locationString(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return locationString(fused.getLocations().front());
  if (auto named = dyn_cast<NameLoc>(loc))
    return locationString(named.getChildLoc());
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return locationString(callsite.getCallee());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

namespace {
struct SinterFusionReportPass
    : public sinter::impl::FusionReportBase<SinterFusionReportPass> {
  using Base::Base;

  /// Accepts a bare file name as the whole option string
  /// (`--sinter-fusion-report=out.json`), besides `file=... summary=...`.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    StringRef trimmed = options.trim();
    if (!trimmed.empty() && !trimmed.contains('=') && !trimmed.contains(' ') &&
        !trimmed.contains('{'))
      return Base::initializeOptions(("file=" + trimmed).str(), errorHandler);
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

void SinterFusionReportPass::runOnOperation() {
  struct PatternStats {
    int64_t count = 0;
    int64_t bytes = 0;
  };
  // Sorted by pattern, so that summaries read the same however the IR is
  // ordered.
  std::map<std::string, PatternStats> stats;
  llvm::json::Array fusions;
  int64_t total = 0;
  bool malformed = false;

  getOperation()->walk([&](Operation *op) {
    Attribute attr = op->getAttr(sinter::kFusionAttrName);
    if (!attr)
      return;
    auto records = dyn_cast<ArrayAttr>(attr);
    for (Attribute rec : records ? records.getValue() : ArrayRef<Attribute>{}) {
      auto dict = dyn_cast<DictionaryAttr>(rec);
      auto pattern = dict ? dict.getAs<StringAttr>("pattern") : StringAttr();
      auto bytes =
          dict ? dict.getAs<IntegerAttr>("bytes_avoided") : IntegerAttr();
      if (!pattern || !bytes) {
        records = nullptr;
        break;
      }
      PatternStats &s = stats[pattern.getValue().str()];
      ++s.count;
      s.bytes += bytes.getInt();
      total += bytes.getInt();
      fusions.push_back(
          llvm::json::Object{{"pattern", pattern.getValue()},
                             {"op", op->getName().getStringRef()},
                             {"location", locationString(op->getLoc())},
                             {"bytes_avoided", bytes.getInt()}});
    }
    if (!records) {
      op->emitError() << "malformed '" << sinter::kFusionAttrName
                      << "' attribute: expected an array of {pattern, "
                         "bytes_avoided} dictionaries";
      malformed = true;
      return;
    }
    if (!keepAttrs)
      op->removeAttr(sinter::kFusionAttrName);
  });
  if (malformed)
    return signalPassFailure();

  if (summary || file.empty()) {
    if (stats.empty())
      llvm::errs() << "sinter-fusion-report: no fusions\n";
    for (auto &[pattern, s] : stats)
      llvm::errs() << "sinter-fusion-report: " << pattern << ": " << s.count
                   << " fused, " << s.bytes << " bytes avoided\n";
  }
  if (file.empty())
    return;

  llvm::json::Object counts;
  for (auto &[pattern, s] : stats)
    counts[pattern] = s.count;
  llvm::json::Value report(llvm::json::Object{
      {"patterns", std::move(counts)},
      {"total_fusions", static_cast<int64_t>(fusions.size())},
      {"total_bytes_avoided", total},
      {"fusions", std::move(fusions)}});

  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    getOperation()->emitError()
        << "cannot write fusion report '" << file << "': " << ec.message();
    return signalPassFailure();
  }
  os << llvm::formatv("{0:2}", report) << "\n";
}
