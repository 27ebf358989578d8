# Part of the Sinter project.
"""Torch tensors in and out of Sinter programs: MLIR type names, and the
CPU path's numpy views."""

import numpy as np

_MLIR = {"float32": "f32", "float16": "f16", "bfloat16": "bf16",
         "float64": "f64"}


def mlir_element(dtype):
    name = str(dtype).replace("torch.", "")
    try:
        return _MLIR[name]
    except KeyError:
        raise TypeError("sinter.torch: unsupported dtype %s (f32, f16, bf16)"
                        % dtype) from None


def tensor_type(t):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in t.shape),
                             mlir_element(t.dtype))


def flt(x):
    """A float literal MLIR parses."""
    return "%.17e" % float(x)


def to_numpy(t):
    """A contiguous numpy view (or, for a non-contiguous tensor, a copy) of
    a CPU tensor for the duration of a call; bf16 needs ml_dtypes.

    The view is made from the tensor's data pointer, not with
    Tensor.numpy(), which marks the storage non-resizable for good: FSDP2
    frees its unsharded parameters after the forward by resizing their
    storage to zero, and failed on parameters a Sinter partition had read.
    The array keeps the tensor alive (through its buffer's reference)."""
    import ctypes
    import torch
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("sinter.torch: bf16 CPU tensors need the "
                            "ml_dtypes package") from None
        return to_numpy(t.view(torch.int16)).view(ml_dtypes.bfloat16)
    dtype = torch.empty(0, dtype=t.dtype).numpy().dtype
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    buf = (ctypes.c_byte * (t.numel() * t.element_size())).from_address(
        t.data_ptr())
    buf._sinter_owner = t  # the tensor outlives every view of its data
    return np.frombuffer(buf, dtype=dtype).reshape(tuple(t.shape))


def from_numpy(a):
    """A CPU tensor of the numpy array `a` (ml_dtypes' bfloat16 as
    torch.bfloat16)."""
    import torch
    # (np.ascontiguousarray would make a 0-d array 1-d.)
    a = np.require(a, requirements="C")
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)
