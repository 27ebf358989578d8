//===- GemmTuning.cpp - Timing cuBLASLt's candidate algorithms ------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "GemmTuning.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using namespace sinter::rt;

bool sinter::rt::gemmTuningEnabled() {
  const char *v = std::getenv("SINTER_GEMM_TUNING");
  return !v || (std::strcmp(v, "0") != 0 && std::strcmp(v, "off") != 0);
}

namespace {
/// Two timing events, destroyed with the timer.
class Timer {
public:
  explicit Timer(const Driver &d) : d(d) {
    ok = d.cuEventCreate(&start, kEventDefault) == 0 &&
         d.cuEventCreate(&stop, kEventDefault) == 0;
  }
  ~Timer() {
    if (start)
      d.cuEventDestroy(start);
    if (stop)
      d.cuEventDestroy(stop);
  }
  /// Microseconds per run of `runs` calls of `run` on `stream`; a negative
  /// value when `run` failed, NaN when a driver call did.
  float perRun(CUstream stream, int runs, const std::function<bool()> &run) {
    if (!ok || d.cuEventRecord(start, stream) != 0)
      return std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < runs; ++i)
      if (!run())
        return -1;
    float ms = 0;
    if (d.cuEventRecord(stop, stream) != 0 || d.cuEventSynchronize(stop) != 0 ||
        d.cuEventElapsedTime(&ms, start, stop) != 0)
      return std::numeric_limits<float>::quiet_NaN();
    return ms * 1000 / runs;
  }
  bool ok = false;

private:
  const Driver &d;
  CUevent start = nullptr, stop = nullptr;
};

} // namespace

TuningResult
sinter::rt::fastestCandidate(const Driver &d, CUstream stream, size_t count,
                             const std::function<bool(size_t)> &run) {
  TuningResult r;
  int status = 0;
  if (count < 2) {
    r.skipped = "one candidate";
  } else if (!d.canTime()) {
    r.skipped = "the driver has no event timing";
  } else if (d.cuStreamIsCapturing(stream, &status) != 0 ||
             status != kCaptureStatusNone) {
    r.skipped = "the stream is being captured";
  }
  if (!r.skipped.empty())
    return r;
  RelaxedCaptureMode relaxed(d);
  Timer timer(d);
  std::vector<float> us(count);
  for (size_t i = 0; i < count; ++i) {
    auto once = [&] { return run(i); };
    us[i] = timer.perRun(stream, 1, once); // warm-up
    if (us[i] >= 0)
      us[i] = timer.perRun(stream, kTimedRuns, once);
    if (us[i] != us[i]) { // NaN: a driver call failed
      r.skipped = "a timing event failed";
      return r;
    }
  }
  for (size_t i = 1; i < count; ++i)
    if (us[i] >= 0 && (us[r.index] < 0 || us[i] < us[r.index]))
      r.index = i;
  if (us[r.index] < 0) {
    r.skipped = "no candidate ran";
    r.index = 0;
    return r;
  }
  r.timed = true;
  r.fastestUs = us[r.index];
  r.firstUs = us[0];
  return r;
}
