# Part of the Sinter project.
"""sinter.cuda's argument checks without a GPU: a tensor that looks like a
CUDA tensor of the right dtype, shape, layout and alignment passes (the
fast path, no message built); each way of being wrong still raises its
message (the slow path). A whole call's arguments, checked a list at a
time, give the pointer array the runtime gets; any wrong one falls back to
the argument-by-argument checks and their message."""

import torch

from sinter.cuda import CudaFunction
from sinter.errors import ArgumentError

f = CudaFunction(None, {"name": "main", "arguments": [
    {"name": "x", "role": "input", "kind": "tensor", "dtype": "float32",
     "shape": [2, 3]}]})
spec = f.inputs[0]


class Fake:
    """The attributes _check_tensor reads, as a CUDA tensor has them."""
    is_cuda = True
    device = torch.device("cuda", 0)
    dtype = torch.float32
    shape = torch.Size([2, 3])

    def is_contiguous(self):
        return True

    def get_device(self):
        return self.device.index

    def data_ptr(self):
        return 4096

    def numel(self):
        return 6


f._check_tensor(0, spec, Fake(), None)
f._check_tensor(0, spec, Fake(), torch.device("cuda", 0))
print("ok")


def wrong(**attrs):
    t = Fake()
    for k, v in attrs.items():
        setattr(t, k, v)
    return t


for t, device in [(wrong(dtype=torch.float16), None),
                  (wrong(shape=torch.Size([3, 2])), None),
                  (wrong(is_contiguous=lambda: False), None),
                  (wrong(data_ptr=lambda: 4098), None),
                  (Fake(), torch.device("cuda", 1)),
                  (torch.zeros(2, 3), None)]:
    try:
        f._check_tensor(0, spec, t, device)
        print("accepted")
    except ArgumentError as e:
        print(e)


# A whole call: two tensors, a scalar, an output updated in place into the
# first tensor (AdamW's form; no allocation, so no GPU is needed).
import ctypes  # noqa: E402

import sinter.cuda  # noqa: E402

sinter.cuda._as_tensor = lambda value: value  # Fake is no torch.Tensor

g = CudaFunction(None, {"name": "update", "arguments": [
    {"name": "p", "role": "input", "kind": "tensor", "dtype": "float32",
     "shape": [2, 3]},
    {"name": "lr", "role": "input", "kind": "scalar", "dtype": "float32"},
    {"name": "g", "role": "input", "kind": "tensor", "dtype": "float32",
     "shape": [2, 3]},
    {"name": "p_out", "role": "output", "kind": "tensor", "dtype": "float32",
     "shape": [2, 3], "alias_of": "p"}]})
p_, g_ = Fake(), wrong(data_ptr=lambda: 8192)
array, keep, outs, device, scalars = g._prepare((p_, 0.5, g_), None)
print("fast:", g._prepare_fast((p_, 0.5, g_)) is not None,
      [array[0], array[2], array[3]], outs[0] is p_,
      ctypes.cast(array[1], ctypes.POINTER(ctypes.c_float))[0],
      scalars[0].value)
for args in [(p_, 0.5, wrong(dtype=torch.float16)),
             (p_, 0.5, wrong(data_ptr=lambda: 8200)),
             (p_, 0.5, wrong(device=torch.device("cuda", 1))),
             (p_, 0.5)]:
    print("fast:", g._prepare_fast(args) is not None)
    try:
        g._prepare(args, None)
        print("accepted")
    except ArgumentError as e:
        print(e)
