# Part of the Sinter project.
"""do_bench-style event timing, with a choice of what surrounds each call.

A kernel of ~60 us (a norm over 16384x4096 bf16 moves 268 MB) is short
enough that the L2 (60 MB, write-back) and the launch itself show in its
time, and how a benchmark treats them moves the figure by several points
(bench/NOTES.md, "session 6"). The methods:

- `zero`: triton.testing.do_bench's own (the method of BENCHMARKS.md and
  of the peers' figures there): before each timed call the L2 is emptied
  by zeroing a 256 MB buffer. The L2 is then full of *dirty* lines, which
  the timed call has to write back to DRAM as its own lines evict them.
- `read`: the same buffer is read instead, so the lines left behind are
  clean. The timed call's inputs are cold all the same, but it now
  inherits no write-back, while its own last dirty lines stay in the L2
  when its end event fires: optimistic for short kernels.
- `none`: no flush. Each call inherits the previous call's dirty lines and
  leaves as many behind (the L2's steady state; working sets must be
  larger than the L2). Each call still sits between its own pair of
  events, so each pays the launch's dispatch after its start event.
- `batch`: no flush, and back-to-back calls between one pair of events
  (~1 ms per batch; the median over batches of the time per call): the
  steady state of a model's stream, where the next launch is prepared
  while the current kernel runs.

All: the call's time is estimated from 5 runs, then warm-up calls fill
`warmup` ms and timed calls `rep` ms.
"""

import torch

METHODS = ("zero", "read", "none", "batch")


class Timer:
    def __init__(self, method="zero", cache_bytes=256 << 20):
        if method not in METHODS:
            raise ValueError("method must be one of %s, not %r"
                             % (", ".join(METHODS), method))
        self.method = method
        self.cache = None
        if method in ("zero", "read"):
            self.cache = torch.empty(cache_bytes // 4, dtype=torch.int32,
                                     device="cuda")
            self.cache.fill_(1)
            # The read flush's result lives here, so that the reduction
            # writes 8 bytes and allocates nothing.
            self.sink = torch.empty((), dtype=torch.int64, device="cuda")

    def flush_l2(self):
        if self.method == "zero":
            self.cache.zero_()
        elif self.method == "read":
            torch.sum(self.cache, 0, dtype=torch.int64, out=self.sink)

    def samples(self, fn, warmup=50, rep=200):
        """Per-call times in ms, sorted: one per timed call, or with
        `batch` one per batch (its time divided by its calls)."""
        fn()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            self.flush_l2()
            fn()
        end.record()
        torch.cuda.synchronize()
        est = max(start.elapsed_time(end) / 5, 1e-3)
        for _ in range(max(1, int(warmup / est))):
            fn()
        per = max(1, int(1.0 / est)) if self.method == "batch" else 1
        n = max(1, int(rep / (est * per)))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        for s, e in zip(starts, ends):
            self.flush_l2()
            s.record()
            for _ in range(per):
                fn()
            e.record()
        torch.cuda.synchronize()
        return sorted(s.elapsed_time(e) / per for s, e in zip(starts, ends))

    def median_p90(self, fn, warmup=50, rep=200):
        t = self.samples(fn, warmup, rep)
        return t[len(t) // 2], t[min(len(t) - 1, int(0.9 * len(t)))]
