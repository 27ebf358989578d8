# Part of the Sinter project.
"""A synthetic chrome trace for bench/step_gaps.py: a host op before the
first kernel, two overlapping kernels, a memset, and a 33 us gap while the
host ran the optimizer."""
import json
import sys

ev = [{"cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5},
      {"cat": "kernel", "name": "k1", "ts": 10, "dur": 10},
      {"cat": "kernel", "name": "k2", "ts": 15, "dur": 12},
      {"cat": "gpu_memset", "name": "Memset", "ts": 27.5, "dur": 1},
      {"cat": "cpu_op", "name": "opt_step", "ts": 30, "dur": 25},
      {"cat": "kernel", "name": "k3", "ts": 61.5, "dur": 10}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
