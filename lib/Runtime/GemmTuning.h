//===- GemmTuning.h - Timing cuBLASLt's candidate algorithms ----*- C++ -*-===//
//
// Part of the Sinter project.
//
// cuBLASLt's heuristic ranks algorithms by a model, and its first choice is
// not always the fastest: for GPT-2's MLP GEMMs on an H100 the GELU
// epilogue's first choice ran 82 us where another ran 77, the DGELU one's
// 82 where another ran 78 (bench/probe_cublaslt_algos.py). So when a
// library call decides its algorithm, it asks for up to kTunedCandidates
// and times each on the call's own operands and stream -- cuBLASLt's own
// autotuning pattern -- then keeps the fastest. Once per decision (the
// first call, or when the pointers' alignment changes), never while the
// stream is being captured into a CUDA graph (timing needs a
// synchronization; the heuristic's first choice is taken then), and never
// when running the GEMM again would change its inputs (D over C or aux).
// SINTER_GEMM_TUNING=0 turns it off.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_GEMMTUNING_H
#define SINTER_LIB_RUNTIME_GEMMTUNING_H

#include "Driver.h"

#include <cstddef>
#include <functional>
#include <string>

namespace sinter::rt {

/// At most this many of the heuristic's algorithms are timed.
constexpr int kTunedCandidates = 8;
/// Runs of each candidate: one to warm up, then kTimedRuns timed together.
constexpr int kTimedRuns = 3;

/// Whether SINTER_GEMM_TUNING leaves timing on (unset, or anything but
/// "0" / "off").
bool gemmTuningEnabled();

/// What timing the candidates found.
struct TuningResult {
  size_t index = 0;                 // the candidate to use
  bool timed = false;               // false: index 0, `skipped` says why
  float fastestUs = 0, firstUs = 0; // per run: the kept one, candidate 0
  std::string skipped;
};

/// Times `run(i)` (one GEMM with candidate i, enqueued on `stream`; false
/// when cuBLASLt refused it, which rules the candidate out) for each of
/// `count` candidates and returns the fastest. Timing needs the driver's
/// events and a stream that is not being captured; without them, or when
/// a driver call fails, candidate 0 is kept.
TuningResult fastestCandidate(const Driver &d, CUstream stream, size_t count,
                              const std::function<bool(size_t)> &run);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_GEMMTUNING_H
