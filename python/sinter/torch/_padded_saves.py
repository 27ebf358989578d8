# Part of the Sinter project.
"""Saved GEMM products with misaligned rows saved padded (a CUDA partition).

GPT-2's logits are [8192, 50257] bf16: rows of 100514 bytes, not 16-byte
aligned. The forward's program computes them padded (sinter-pad-matmuls:
50264 columns, for cuBLASLt) and the backward reads them again, so when
they are saved the forward wrote a dense [8192, 50257] copy out of the
padded product (823 MB read, 823 MB written, beside the statistics'
read), and the backward read misaligned rows.

`pad_saved_products` changes what is saved instead: the forward computes
`mm(a, pad(b))` -- the padded product itself, [M, N + p] -- reads
`slice(., 1, 0, N)` of it wherever it read the product, and saves the
padded product; the backward reads the same slice of what it receives.
Both slices are read in place by Sinter's kernels (the statistics'
reduction, the gradient's elementwise kernel), so no copy is left:

    forward:   mm = aten.mm(a, b)                   [M, N]      (saved)
    ->         bp = aten.constant_pad_nd(b, [0, p])  [K, N + p]
               mp = aten.mm(a, bp)                   [M, N + p]  (saved)
               mm = aten.slice.Tensor(mp, 1, 0, N)   (its readers)
    backward:  mm (placeholder, [M, N])
    ->         mp (placeholder, [M, N + p]); mm = aten.slice.Tensor(mp, 1, 0, N)

Which products: those sinter-pad-matmuls pads (2- and 4-byte floats whose
rows are not 16-byte aligned), and only for CUDA programs (the alignment is
cuBLASLt's; the CPU's GEMMs have none).
"""

import torch
from torch.fx.passes.shape_prop import _extract_tensor_metadata

aten = torch.ops.aten

# Row alignment in bytes that cuBLASLt's fast kernels want (16-byte
# vectors): lib/GPU/TargetInfo.h's kLibraryGemmRowAlignmentBytes.
ROW_ALIGNMENT_BYTES = 16


def _padding(val):
    """Columns that align the rows of `val`, a 2-D fake tensor of 2- or
    4-byte floats (what sinter-pad-matmuls pads), or 0."""
    if (not isinstance(val, torch.Tensor) or val.dim() != 2
            or not val.dtype.is_floating_point
            or val.element_size() not in (2, 4)
            or getattr(val, "fake_mode", None) is None):
        return 0
    per_row = ROW_ALIGNMENT_BYTES // val.element_size()
    if val.shape[1] % per_row == 0:
        return 0
    return per_row - val.shape[1] % per_row


def _set_val(node, val):
    """`node`'s value: its fake tensor and the metadata importers read
    first (torch-mlir's FX importer takes `tensor_meta` over `val`)."""
    node.meta["val"] = val
    node.meta["tensor_meta"] = _extract_tensor_metadata(val)


def _padded_product(fw, node, pad):
    """Inserts the padded product of `node` (aten.mm) before it in `fw`;
    returns (the padded product, the slice that replaces `node`)."""
    a, b = node.args
    columns = node.meta["val"].shape[1]
    fake = node.meta["val"].fake_mode
    with fw.graph.inserting_before(node):
        bp = fw.graph.call_function(aten.constant_pad_nd.default,
                                    (b, [0, pad], 0.0))
        mp = fw.graph.call_function(aten.mm.default, (a, bp))
        sl = fw.graph.call_function(aten.slice.Tensor, (mp, 1, 0, columns))
    with fake:
        _set_val(bp, aten.constant_pad_nd.default(b.meta["val"], [0, pad], 0.0))
        _set_val(mp, aten.mm.default(a.meta["val"], bp.meta["val"]))
        _set_val(sl, aten.slice.Tensor(mp.meta["val"], 1, 0, columns))
    return mp, sl


def _slice_in_backward(bw, placeholder, padded_val, columns):
    """`placeholder` now receives the padded product: its readers read a
    slice of it."""
    readers = list(placeholder.users)
    last = [n for n in bw.graph.nodes if n.op == "placeholder"][-1]
    with bw.graph.inserting_after(last):
        sl = bw.graph.call_function(aten.slice.Tensor,
                                    (placeholder, 1, 0, columns))
    placeholder.meta = dict(placeholder.meta)
    _set_val(placeholder, padded_val)
    with padded_val.fake_mode:
        _set_val(sl, aten.slice.Tensor(padded_val, 1, 0, columns))
    for reader in readers:
        reader.replace_input_with(placeholder, sl)


def saved_names(fw, num_fwd_outputs):
    """The names of the values `fw` saves, which are those of the backward's
    placeholders that receive them (taken before save_view_bases makes a
    position save another value)."""
    out = next(n for n in fw.graph.nodes if n.op == "output")
    return [o.name if isinstance(o, torch.fx.Node) else None
            for o in out.args[0][num_fwd_outputs:]]


def pad_saved_products(fw, bw, num_fwd_outputs, names):
    """Rewrites the partitioned `fw` and `bw` (module docstring), `names`
    (saved_names) naming the backward's placeholder of each saved position;
    returns the number of saved products now saved padded."""
    out = next(n for n in fw.graph.nodes if n.op == "output")
    outs = list(out.args[0])
    placeholders = {n.name: n for n in bw.graph.nodes if n.op == "placeholder"}
    done, slices = {}, {}
    for i in range(num_fwd_outputs, len(outs)):
        node = outs[i]
        if not isinstance(node, torch.fx.Node):
            continue
        if node in done:
            outs[i] = done[node]
            continue
        placeholder = placeholders.get(names[i - num_fwd_outputs])
        pad = _padding(node.meta.get("val"))
        if (node.op != "call_function" or node.target != aten.mm.default
                or not pad or placeholder is None):
            continue
        mp, sl = _padded_product(fw, node, pad)
        columns = node.meta["val"].shape[1]
        node.replace_all_uses_with(sl)
        fw.graph.erase_node(node)
        slices[node] = sl
        _slice_in_backward(bw, placeholder, mp.meta["val"], columns)
        done[node] = outs[i] = mp
    if done:
        # Every saved position reads the padded product, a user output the
        # slice.
        outs[:num_fwd_outputs] = [slices.get(o, o) if isinstance(o, torch.fx.Node)
                                  else o for o in outs[:num_fwd_outputs]]
        out.args = (tuple(outs),)
        fw.recompile()
        bw.recompile()
    return len(done)
