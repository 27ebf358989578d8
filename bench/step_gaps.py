#!/usr/bin/env python3
# Part of the Sinter project.
"""Where the GPU waits for the host in one traced training step.

    python3 bench/step_gaps.py TRACE.json [--top N]

TRACE.json is a chrome trace of one step from torch.profiler with CPU and
CUDA activities (bench/train_gpt2.py run ... --trace DIR writes one per
run). The step's window runs from its first host event to its last
kernel's end; the GPU is idle wherever no kernel (or memcpy/memset) runs.
Printed: the idle time before the first kernel (the host's preamble),
between kernels, and the largest gaps, each with the kernels on either side
and the host operations that started during it (what the host was doing
while the GPU waited).
"""

import argparse
import json

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
HOST_CATS = ("cpu_op", "python_function", "user_annotation")


def load(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    gpu = sorted((e for e in events if e.get("cat") in GPU_CATS
                  and "dur" in e), key=lambda e: e["ts"])
    host = [e for e in events if e.get("cat") in HOST_CATS and "dur" in e]
    return gpu, host


def busy_spans(gpu):
    """The GPU events merged into maximal busy stretches, in time order:
    [start, end, last event of the stretch, first event]."""
    spans = []
    for e in gpu:
        start, end = e["ts"], e["ts"] + e["dur"]
        if spans and start <= spans[-1][1]:
            if end > spans[-1][1]:
                spans[-1][1], spans[-1][2] = end, e
        else:
            spans.append([start, end, e, e])
    return spans


def gaps(spans, min_us=2.0):
    """(start, end, previous event, next event) of every idle stretch
    between busy spans longer than min_us."""
    return [(a[1], b[0], a[2], b[3]) for a, b in zip(spans, spans[1:])
            if b[0] - a[1] > min_us]


def summarize(path, top=10):
    gpu, host = load(path)
    if not gpu:
        return "%s: no GPU events" % path
    t0 = min([e["ts"] for e in host] + [gpu[0]["ts"]])
    spans = busy_spans(gpu)
    t1 = spans[-1][1]
    busy = sum(end - start for start, end, _, _ in spans)
    between = gaps(spans)
    lines = ["%s: window %.2f ms, GPU busy %.2f ms, idle %.2f ms "
             "(before the first kernel %.2f ms, %d gaps over 2 us between "
             "kernels %.2f ms)" % (
                 path, (t1 - t0) / 1e3, busy / 1e3, (t1 - t0 - busy) / 1e3,
                 (gpu[0]["ts"] - t0) / 1e3, len(between),
                 sum(b - a for a, b, _, _ in between) / 1e3)]
    for a, b, prev, nxt in sorted(between, key=lambda g: g[0] - g[1])[:top]:
        during = sorted((e for e in host if a <= e["ts"] < b),
                        key=lambda e: -e["dur"])[:3]
        lines.append("  %7.1f us at +%.2f ms  after %s  before %s" % (
            b - a, (a - t0) / 1e3, prev["name"][:40], nxt["name"][:40]))
        for e in during:
            lines.append("      host: %s (%.1f us)" % (e["name"][:70],
                                                      e["dur"]))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("traces", nargs="+")
    p.add_argument("--top", type=int, default=10)
    a = p.parse_args()
    for path in a.traces:
        print(summarize(path, a.top))


if __name__ == "__main__":
    main()
