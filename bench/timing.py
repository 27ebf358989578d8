# Part of the Sinter project.
"""do_bench-style event timing with a choice of L2 flush.

triton.testing.do_bench empties the L2 before every timed call by zeroing a
256 MB buffer. That leaves the L2 full of *dirty* lines, and the timed
kernel then pays for writing them back to DRAM (up to the L2's 60 MB) on top
of its own traffic. A 4 GiB copy hardly notices (1%); a 268 MB kernel such as
a norm over 16384x4096 bf16 is charged for ~20% more bytes than it moves.

`flush="read"` empties the L2 just as thoroughly (the timed kernel's inputs
are not cached) by reading the 256 MB buffer instead, so the lines left
behind are clean and the timed kernel pays only for its own bytes.
`flush="zero"` is do_bench's own method, `flush="none"` times back-to-back
calls (the working set must then be larger than the L2).

Like do_bench: the call's time is estimated from 5 runs, then warm-up calls
fill `warmup` ms and timed calls `rep` ms; each timed call sits between its
own pair of CUDA events, right after its flush.
"""

import torch

FLUSHES = ("read", "zero", "none")


class Timer:
    def __init__(self, flush="read", cache_bytes=256 << 20):
        if flush not in FLUSHES:
            raise ValueError("flush must be one of %s, not %r"
                             % (", ".join(FLUSHES), flush))
        self.flush = flush
        self.cache = torch.empty(cache_bytes // 4, dtype=torch.int32,
                                 device="cuda")
        self.cache.fill_(1)
        # The read flush's result lives here, so that the reduction writes
        # 8 bytes and allocates nothing.
        self.sink = torch.empty((), dtype=torch.int64, device="cuda")

    def flush_l2(self):
        if self.flush == "zero":
            self.cache.zero_()
        elif self.flush == "read":
            torch.sum(self.cache, 0, dtype=torch.int64, out=self.sink)

    def samples(self, fn, warmup=50, rep=200):
        """Per-call times in ms of `rep` ms worth of timed calls."""
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
        n_warm = max(1, int(warmup / est))
        n_rep = max(1, int(rep / est))
        for _ in range(n_warm):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        for s, e in zip(starts, ends):
            self.flush_l2()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return sorted(s.elapsed_time(e) for s, e in zip(starts, ends))

    def median_p90(self, fn, warmup=50, rep=200):
        t = self.samples(fn, warmup, rep)
        return t[len(t) // 2], t[min(len(t) - 1, int(0.9 * len(t)))]
