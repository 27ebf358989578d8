# Part of the Sinter project.
"""sinter.cuda's argument checks without a GPU: a tensor that looks like a
CUDA tensor of the right dtype, shape, layout and alignment passes (the
fast path, no message built); each way of being wrong still raises its
message (the slow path)."""

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
