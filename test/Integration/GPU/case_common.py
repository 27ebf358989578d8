# Part of the Sinter project.
"""What the GPU case modules share: dtype names, the per-case sinterc flags
and expected library calls (filled as the cases are made), the attention
configuration prefixes, and the tensor type spelling."""

import os
import sys

# The numpy Philox reference shared with the CPU tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "CPU"))

TYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}

# Extra sinterc flags of some cases, by case name.
FLAGS = {}
# How many cublas_gemm library calls the manifest of some cases must hold,
# by case name (gpu_checks.py also checks which path ran them).
LIBRARY_CALLS = {}
# How many launches the manifest of some cases holds, by case name
# (gpu_checks.py build checks it: a kernel that should read its operands in
# place did not when there are more).
LAUNCHES = {}
# Outputs of some cases (by case name: their indices) that round to a
# narrower type a value computed in f32: where Sinter's f32 value and
# torch's differ in their last bits (another order of operations), the
# rounding may go the other way, so an element may be off by one unit in
# the last place of the output's type (gpu_checks.py allows that much).
ROUNDED = {}
# Prefix of the sm_90a warpgroup-MMA attention configurations.
WG = "wgmma,mtiles=1,"
# ... and of its two-stage (software-pipelined) form.
WGP = "wgmma,pipe,mtiles=1,"


def _tt(shape, t):
    if not shape:
        return "tensor<%s>" % t
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), t)
