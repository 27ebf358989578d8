# The GPU checks' slack for outputs that round an f32 value to a narrower
# type (test/Integration/GPU/gpu_checks.py, rounding_error; the cases in
# gpu_cases.ROUNDED): an element one unit in the last place of the output's
# type away from the reference counts as within the bound, two units do
# not, and other elements keep their error.
#
# REQUIRES: torch
# RUN: %python %s 2>&1 | FileCheck %s
# CHECK: one unit: 0.001
# CHECK: two units: 0.0234
# CHECK: far off elsewhere: 0.5

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "GPU"))
from gpu_checks import rounding_error  # noqa: E402

# Near a bf16 rounding midpoint in [2, 4), where its unit is 2^-6.
ref = torch.tensor([2.0 + 2 ** -7 * 1.01, 1.0, -3.0], dtype=torch.float64)
one = torch.tensor([2.0 + 2 ** -6, 1.0, -3.0]).to(torch.bfloat16)
two = torch.tensor([2.0 + 2 ** -5, 1.0, -3.0]).to(torch.bfloat16)
far = torch.tensor([2.0 + 2 ** -6, 1.5, -3.0]).to(torch.bfloat16)
print("one unit: %.3g" % rounding_error(torch, one, ref, 1e-3))
print("two units: %.3g" % rounding_error(torch, two, ref, 1e-3))
print("far off elsewhere: %.3g" % rounding_error(torch, far, ref, 1e-3))
