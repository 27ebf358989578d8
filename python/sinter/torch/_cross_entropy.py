# Part of the Sinter project.
"""Cross-entropy whose backward recomputes the probabilities from the
logits and the saved log-sum-exp.

AOTAutograd differentiates `F.cross_entropy` as `_log_softmax` then
`nll_loss`, and the forward saves the log-softmax for the backward: for a
GPT-2 step (8192 tokens, a 50257-word vocabulary) that is 1.6 GB of f32
written by the forward and read back by the backward, beside the logits
themselves. Here the forward saves only the logits (which the step keeps
anyway) and one float per row (its log-sum-exp); the backward is one
elementwise pass, `(exp(x - lse) - onehot(target)) * scale`, written in the
logits' dtype -- what fused cross-entropy kernels (inductor's online
softmax, Liger's) do.

`route_cross_entropy` replaces the `F.cross_entropy` calls of Dynamo's
graph whose arguments it supports (2-d logits, class-index targets, no
class weights or label smoothing, `mean` or `sum`) by `cross_entropy`;
others stay as they were.
"""

import torch
import torch.nn.functional as F


class _CrossEntropy(torch.autograd.Function):
    """Mean or summed cross-entropy of `logits` [N, C] against class
    indices `target` [N], rows whose target is `ignore_index` left out."""

    @staticmethod
    def forward(ctx, logits, target, ignore_index, mean):
        x = logits.float()
        lse = torch.logsumexp(x, dim=1)
        valid = target != ignore_index
        safe = torch.where(valid, target, torch.zeros_like(target))
        picked = torch.gather(x, 1, safe.unsqueeze(1)).squeeze(1)
        losses = torch.where(valid, lse - picked, torch.zeros_like(lse))
        count = valid.sum().float() if mean else None
        loss = losses.sum() / count if mean else losses.sum()
        ctx.mean = mean
        ctx.save_for_backward(logits, safe, valid, lse,
                              *([count] if mean else []))
        return loss

    @staticmethod
    def backward(ctx, grad):
        logits, safe, valid, lse, *count = ctx.saved_tensors
        scale = grad / count[0] if ctx.mean else grad
        row_scale = torch.where(valid, scale, torch.zeros_like(lse))
        p = torch.exp(logits.float() - lse.unsqueeze(1))
        columns = torch.arange(logits.shape[1], device=logits.device)
        onehot = (columns.unsqueeze(0) == safe.unsqueeze(1)).float()
        dlogits = (p - onehot) * row_scale.unsqueeze(1)
        return dlogits.to(logits.dtype), None, None, None


def _supported(input, target, weight, size_average, reduce, reduction,
               label_smoothing):
    return (isinstance(input, torch.Tensor) and input.dim() == 2 and
            isinstance(target, torch.Tensor) and target.dim() == 1 and
            not target.dtype.is_floating_point and weight is None and
            size_average is None and reduce is None and
            reduction in ("mean", "sum") and not label_smoothing and
            input.dtype in (torch.float32, torch.float16, torch.bfloat16))


def cross_entropy(input, target, weight=None, size_average=None,
                  ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """F.cross_entropy's signature: _CrossEntropy where it applies, else
    F.cross_entropy itself."""
    if _supported(input, target, weight, size_average, reduce, reduction,
                  label_smoothing):
        return _CrossEntropy.apply(input, target, int(ignore_index),
                                   reduction == "mean")
    return F.cross_entropy(input, target, weight, size_average, ignore_index,
                           reduce, reduction, label_smoothing)


def route_cross_entropy(gm):
    """Replaces the F.cross_entropy calls of Dynamo's graph `gm` by
    cross_entropy (checked per call when AOTAutograd traces it). Returns
    how many."""
    routed = 0
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is F.cross_entropy:
            node.target = cross_entropy
            routed += 1
    if routed:
        gm.recompile()
    return routed
