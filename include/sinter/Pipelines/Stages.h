//===- Stages.h - Timed stages of a compile ---------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// A compile reports each of its stages (parsing, fusion, lowering, codegen
// and, for CUDA, codegen's own outline / nvvm / serialize) with its wall
// time and a note; sinterc prints them, embedders log them.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_PIPELINES_STAGES_H
#define SINTER_PIPELINES_STAGES_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <functional>
#include <string>

namespace sinter {

/// Called after a stage with its name, wall time and a note (a census,
/// "skipped: ...", or empty).
using StageCallback = std::function<void(
    llvm::StringRef stage, double milliseconds, llvm::StringRef note)>;

/// Times one stage from construction to done() and reports it through a
/// StageCallback (nothing when the callback is empty).
class StageTimer {
public:
  StageTimer(const StageCallback &callback, llvm::StringRef stage)
      : callback(callback), stage(stage.str()),
        start(std::chrono::steady_clock::now()) {}
  /// Milliseconds since construction.
  double elapsedMs() const {
    std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count();
  }
  void done(llvm::StringRef note = "") const {
    if (callback)
      callback(stage, elapsedMs(), note);
  }

private:
  const StageCallback &callback;
  std::string stage;
  std::chrono::steady_clock::time_point start;
};

} // namespace sinter

#endif // SINTER_PIPELINES_STAGES_H
