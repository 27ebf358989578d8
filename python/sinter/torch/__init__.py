# Part of the Sinter project.
"""Sinter from PyTorch: torch.compile(model, backend="sinter"),
sinter.torch.compile(model) (the same, its compiled forward saved and
loaded by the next process without tracing again), a drop-in AdamW on the
multi-tensor kernel and attention as a custom op with autograd (also a
Hugging Face attention implementation). Programs compile on first use and
are cached on disk (sinter.torch.cache_dir())."""

from ._cache import cache_dir
from .attention import attention, hf_attention_forward, register_hf_attention
from .backend import register as _register_backend, sinter_backend
from .optim import AdamW
from .precompile import PrecompiledModule, compile

_register_backend()

__all__ = ["AdamW", "PrecompiledModule", "attention", "cache_dir", "compile",
           "hf_attention_forward", "register_hf_attention", "sinter_backend"]
