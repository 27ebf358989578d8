# Part of the Sinter project.
"""What the forward saves for the backward (AOTAutograd's partition_fn).

torch's default partitioner saves the values the backward reads as the
forward computed them, views included: a transposed weight, the heads of a
fused QKV projection permuted for attention, `alias(x)` beside `x`. In
eager torch a view is free; a compiled program returns dense buffers, so
each saved view became a copy kernel in the forward, a copy by torch into
the traced strides, and another (`.contiguous()`) when the backward's
program read it.

`partition` runs the default partitioner, then saves the base of every
saved view chain instead and replays the chain at the start of the
backward graph, where it is part of the backward's Sinter program (which
reads transposes in place: matmul operands, attention heads). A base saved
twice (a view and its base, or `alias(x)` and `x`) is read through one
placeholder of the backward, so the raising passes see one value. The
forward may then return one value at two positions; the backend returns
one buffer for both (backend._plan_outputs).
"""

import operator

import torch

aten = torch.ops.aten

# View ops whose chains are replayed in the backward instead of saved (the
# result is a function of the first argument's values alone).
_VIEW_OPS = {aten.permute.default, aten.view.default, aten._unsafe_view.default,
             aten.t.default, aten.transpose.int, aten.unsqueeze.default,
             aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default,
             aten.expand.default, aten.alias.default, aten.slice.Tensor,
             aten.select.int, aten.reshape.default}


def _view_chain(node):
    """The view ops from `node` back to its base, last first, and the base:
    (chain, base); an empty chain when `node` is no view. A getitem of
    split_with_sizes counts as a view of the split's input."""
    chain = []
    while node.op == "call_function":
        if node.target in _VIEW_OPS:
            chain.append(node)
            node = node.args[0]
        elif (node.target is operator.getitem and
              isinstance(node.args[0], torch.fx.Node) and
              node.args[0].target is aten.split_with_sizes.default):
            chain.extend([node, node.args[0]])
            node = node.args[0].args[0]
        else:
            break
    return chain, node


def _replay(bw, chain, base, base_input, before):
    """Copies the view ops of `chain` (last first; the last reads `base`)
    into the backward graph `bw` before node `before`, reading `base_input`
    for `base`; returns the copy of the chain's first node."""
    env = {base: base_input}
    for node in reversed(chain):
        with bw.graph.inserting_before(before):
            args = torch.fx.node.map_arg(node.args, lambda a: env.get(a, a))
            copy = bw.graph.call_function(node.target, args, node.kwargs)
        copy.meta = dict(node.meta)
        env[node] = copy
    return env[chain[0]]


def save_view_bases(fw, bw, num_fwd_outputs):
    """Rewrites the partitioned `fw` and `bw` (module docstring). Returns
    the number of saved views replaced by their bases."""
    out = next(n for n in fw.graph.nodes if n.op == "output")
    outs = list(out.args[0])
    placeholders = [n for n in bw.graph.nodes if n.op == "placeholder"]
    by_name = {p.name: p for p in placeholders}
    first_user = next(n for n in bw.graph.nodes if n.op != "placeholder")
    saved_at = {}  # forward node saved -> its backward placeholder
    for i in range(num_fwd_outputs, len(outs)):
        node = outs[i]
        if isinstance(node, torch.fx.Node) and node.name in by_name:
            saved_at.setdefault(node, by_name[node.name])
    replaced = 0
    for i in range(num_fwd_outputs, len(outs)):
        node = outs[i]
        if not isinstance(node, torch.fx.Node) or node.name not in by_name:
            continue
        if not isinstance(node.meta.get("val"), torch.Tensor):
            continue
        chain, base = _view_chain(node)
        if not chain or not isinstance(base.meta.get("val"), torch.Tensor):
            continue
        placeholder = by_name[node.name]
        base_input = saved_at.get(base)
        if base_input is None:
            # This position now saves the base, read by this placeholder.
            base_input = placeholder
            saved_at[base] = placeholder
            placeholder.meta = dict(base.meta)
        # A base saved before is read through its first placeholder; this
        # one is left unread.
        outs[i] = base
        users = list(placeholder.users)
        view = _replay(bw, chain, base, base_input, first_user)
        for user in users:
            user.replace_input_with(placeholder, view)
        replaced += 1
    if replaced:
        out.args = (tuple(outs),)
        fw.recompile()
        bw.graph.eliminate_dead_code()
        bw.recompile()
    return replaced


def partition(joint_module, joint_inputs, *, num_fwd_outputs,
              pad_products=False, **kwargs):
    """AOTAutograd's partition_fn: torch's default partition, then saved
    views replaced by their bases (save_view_bases) and, with
    `pad_products` (CUDA), saved GEMM products with misaligned rows saved
    padded (_padded_saves.py)."""
    from torch._functorch.partitioners import default_partition
    from ._padded_saves import pad_saved_products, saved_names
    from ._spare_outputs import note_user_outputs
    fw, bw = default_partition(joint_module, joint_inputs,
                               num_fwd_outputs=num_fwd_outputs, **kwargs)
    names = saved_names(fw, num_fwd_outputs)
    save_view_bases(fw, bw, num_fwd_outputs)
    if pad_products:
        pad_saved_products(fw, bw, num_fwd_outputs, names)
    note_user_outputs(num_fwd_outputs)
    return fw, bw
