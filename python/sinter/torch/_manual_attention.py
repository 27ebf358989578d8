# Part of the Sinter project.
"""Attention written by hand, raised to SDPA in Dynamo's graph.

A model that spells attention out (nanoGPT, older Hugging Face models)
gives Dynamo this FX graph (the scale and the mask are optional):

    %t   = call_method[transpose](%k, -2, -1)
    %mm  = call_function[operator.matmul](%q, %t)         # q: [B, H, S, D]
    %s   = call_function[operator.mul](%mm, 0.125)        # or truediv by c
    %eq  = ...                                            # a bool tensor
    %s2  = call_method[masked_fill](%s, %eq, -inf)        # or %s + %mask
    %p   = call_function[torch.nn.functional.softmax](%s2, dim=-1)
    (casts of %p to V's dtype -- after softmax(dtype=f32) too -- and
     dropout(%p, p=0.0) are allowed here)
    %y   = call_function[operator.matmul](%p, %v)

AOTAutograd would decompose it into matmuls and a softmax whose S x S
output the forward saves for the backward. Replaced here, before
AOTAutograd traces, by one call of SDPA's replacement (the backend's
`_sdpa_or_torch`, Sinter's attention custom op: the forward saves O and
the logsumexp, the backward is Sinter's attention backward) with
`scale = c` (or 1/c) and, for the masked_fill, the boolean mask
`logical_not(%eq)` (True = attend), or the additive mask as it is:
exactly the same function; keys and values that Hugging Face's
`repeat_kv` repeated for grouped-query attention are passed as they were
before it (Sinter's attention takes Hkv < Hq heads). Each
intermediate must have no other user (attention weights a model returns
keep the graph as it is). Why a candidate was not raised is logged at
DEBUG level on logger `sinter.torch`.
"""

import logging
import math
import operator

import torch

log = logging.getLogger("sinter.torch")

_SOFTMAX = {torch.nn.functional.softmax, torch.softmax, torch.Tensor.softmax}


def _is_call(node, targets, method=None):
    if node.op == "call_function" and node.target in targets:
        return True
    return method is not None and node.op == "call_method" and \
        node.target == method


def _val(node):
    """The example tensor Dynamo recorded for `node`, or None."""
    if not isinstance(node, torch.fx.Node):
        return None
    val = node.meta.get("example_value", node.meta.get("val"))
    return val if isinstance(val, torch.Tensor) else None


def _rank(node):
    val = _val(node)
    return None if val is None else val.dim()


def _only_user(node, user):
    return list(node.users) == [user]


def _softmax_last_dim(p):
    """Whether `p` is a softmax over the last dimension (no dtype)."""
    if not _is_call(p, _SOFTMAX, "softmax") or \
            p.kwargs.get("dtype") not in (None, torch.float32):
        return False
    dim = p.kwargs.get("dim", p.args[1] if len(p.args) > 1 else None)
    return dim in (-1, 3) and _rank(p) == 4


def _transposed_key(t):
    """k when `t` is k.transpose(-2, -1) of a 4-d k, else None."""
    if not _is_call(t, {torch.transpose}, "transpose") or len(t.args) != 3:
        return None
    k, a, b = t.args
    return k if {a, b} in ({-2, -1}, {2, 3}) and _rank(k) == 4 else None


def _scores(top):
    """(q, k, scale) when `top` is q @ k.transpose(-2, -1), optionally times
    or divided by a constant, each step used only by the next."""
    scale, mm = 1.0, top
    if _is_call(top, {operator.mul, torch.mul}) and len(top.args) == 2:
        a, b = top.args
        mm, c = (a, b) if isinstance(b, (int, float)) else (b, a)
        if not isinstance(c, (int, float)):
            return None
        scale = float(c)
    elif _is_call(top, {operator.truediv, torch.div}) and \
            len(top.args) == 2 and isinstance(top.args[1], (int, float)) \
            and top.args[1] != 0:
        mm, scale = top.args[0], 1.0 / float(top.args[1])
    if not isinstance(mm, torch.fx.Node) or (mm is not top and
                                             not _only_user(mm, top)):
        return None
    if not _is_call(mm, {operator.matmul, torch.matmul}) or \
            len(mm.args) != 2:
        return None
    q, t = mm.args
    if not isinstance(t, torch.fx.Node) or _rank(q) != 4 or \
            not _only_user(t, mm):
        return None
    k = _transposed_key(t)
    return None if k is None else (q, k, scale)


def _dtype(node):
    val = _val(node)
    return None if val is None else val.dtype


def _shape(node):
    val = _val(node)
    return None if val is None else tuple(val.shape)


def _grouped(node):
    """The [B, Hkv, S, D] tensor that Hugging Face's repeat_kv repeated into
    `node` ([B, Hkv * n, S, D]: x[:, :, None].expand(B, Hkv, n, S, D)
    .reshape(B, Hkv * n, S, D)), so that attention reads it as grouped-query
    keys or values instead of the copy; else `node` itself."""
    reshape = node
    if reshape.op != "call_method" or reshape.target not in ("reshape",
                                                             "view"):
        return node
    expand = reshape.args[0]
    if not isinstance(expand, torch.fx.Node) or expand.op != "call_method" \
            or expand.target != "expand" or not _only_user(expand, reshape):
        return node
    index = expand.args[0]
    full = slice(None)
    if not isinstance(index, torch.fx.Node) or \
            not _is_call(index, {operator.getitem}) or \
            index.args[1] != (full, full, None, full, full) or \
            not _only_user(index, expand):
        return node
    base = index.args[0]
    b, e, r = _shape(base), _shape(expand), _shape(reshape)
    if not (b and e and r) or len(b) != 4 or len(e) != 5 or \
            e[:2] + e[3:] != b or r != (b[0], b[1] * e[2]) + b[2:]:
        return node
    return base


def _cast_to(node, dtype):
    """The input of `node` when `node` is `.type(dtype)` or `.to(dtype)`."""
    if node.op != "call_method" or node.target not in ("type", "to") or \
            not isinstance(node.args[0], torch.fx.Node):
        return None
    args = node.args[1:] or (node.kwargs.get("dtype"),)
    if len(args) != 1 or set(node.kwargs) - {"dtype"} or args[0] != dtype:
        return None
    return node.args[0]


def _identity_input(node, dtype):
    """The input of `node` when it only brings the probabilities to
    `dtype` (V's): a cast to it (`.type(v.dtype)`, `.to(q.dtype)` after a
    softmax taken in f32 -- Sinter's softmax is f32 too), or dropout with p
    = 0 (Hugging Face's eager attentions have these); else None."""
    if _cast_to(node, dtype) is not None:
        return node.args[0]
    if _is_call(node, {torch.nn.functional.dropout}):
        p = node.kwargs.get("p", node.args[1] if len(node.args) > 1 else 0.5)
        if p == 0.0:
            return node.args[0]
    return None


def _match(y):
    """The SDPA call that replaces the attention ending at matmul `y`:
    (q, k, v, mask or None, scale), the mask ("fill", condition) or ("add",
    additive mask); the reason it is not one (a str) for a
    softmax-then-matmul that does not match; None otherwise."""
    if not _is_call(y, {operator.matmul, torch.matmul}) or len(y.args) != 2:
        return None
    p, v = y.args
    user = y  # identities between the softmax and @ v are consumed too
    vtype = _dtype(v)
    while isinstance(p, torch.fx.Node) and \
            _identity_input(p, vtype) is not None and _only_user(p, user):
        user, p = p, _identity_input(p, vtype)
    if not isinstance(p, torch.fx.Node) or not _softmax_last_dim(p):
        return None
    if not _only_user(p, user) or _rank(v) != 4:
        return "the probabilities have other users"
    if _dtype(p.args[0]) != vtype:
        return "the scores are %s, V is %s" % (_dtype(p.args[0]), vtype)
    s, mask, masked = p.args[0], None, None
    if _is_call(s, set(), "masked_fill"):
        fill = s.args[2] if len(s.args) > 2 else s.kwargs.get("value")
        if not (isinstance(fill, float) and math.isinf(fill) and fill < 0):
            return "the mask fills with %r, not -inf" % (fill,)
        if not _only_user(s, p):
            return "the masked scores have other users"
        mask, masked, s = ("fill", s.args[1]), s, s.args[0]
    elif _is_call(s, {operator.add, torch.add}) and len(s.args) == 2 and \
            not s.kwargs and all(isinstance(a, torch.fx.Node)
                                 for a in s.args):
        if not _only_user(s, p):
            return "the masked scores have other users"
        # scores + mask, in either order: the scores are the matmul side.
        a, b = s.args
        first = _scores(a) if _only_user(a, s) else None
        scores_node, add_mask = (a, b) if first is not None else (b, a)
        mask, masked, s = ("add", add_mask), s, scores_node
    if not isinstance(s, torch.fx.Node):
        return "the scores are not a node"
    if not _only_user(s, masked or p):
        return "the scores have other users"
    scores = _scores(s)
    if scores is None:
        return "the scores are not q @ k.transpose(-2, -1) times a constant"
    q, k, scale = scores
    return q, k, v, mask, scale


def _erase_unused(graph, node):
    """Erases `node` and, recursively, the inputs it alone used (the
    matched chain: y, the softmax, the masked_fill, the scale, q @ k^T and
    the transpose), never anything with another user."""
    inputs = [a for a in node.all_input_nodes]
    graph.erase_node(node)
    for a in inputs:
        if not a.users and a.op in ("call_function", "call_method"):
            _erase_unused(graph, a)


def route_manual_attention(gm, replacement):
    """Replaces every hand-written attention of `gm` by `replacement`
    (SDPA's signature); returns how many."""
    routed = 0
    for y in list(gm.graph.nodes):
        if y.op not in ("call_function", "call_method"):
            continue
        m = _match(y)
        if m is None:
            continue
        if isinstance(m, str):
            log.debug("sinter: %s is not raised to attention: %s", y.name, m)
            continue
        q, k, v, how, scale = m
        # Grouped-query keys and values as they were before repeat_kv.
        k, v = _grouped(k), _grouped(v)
        with gm.graph.inserting_before(y):
            mask = None
            if how is not None and how[0] == "fill":
                mask = gm.graph.call_function(torch.logical_not, (how[1],))
            elif how is not None:
                mask = how[1]
            out = gm.graph.call_function(
                replacement, (q, k, v),
                {"attn_mask": mask, "scale": scale, "is_causal": False})
        out.meta.update(y.meta)
        y.replace_all_uses_with(out)
        _erase_unused(gm.graph, y)
        routed += 1
    if routed:
        gm.recompile()
        log.info("sinter: %d hand-written attention(s) raised to Sinter's "
                 "attention", routed)
    return routed
