# Part of the Sinter project.
"""A training forward's outputs, allocated while the GPU runs its backward.

A training step starts on an idle GPU (the loop reads the loss), so the
host work before the forward's first kernel is step time. For GPT-2 most
of Sinter's is the forward program's ~230 outputs, one torch.empty each:
inductor's generated code interleaves its allocations with its launches,
but Sinter's runtime launches a whole program in one call, after all of
them.

The tensors a forward saves for its backward die together once the
backward has run (autograd frees a node's saved tensors right after
calling it), while the GPU still runs the backward and the host goes on
to the optimizer. When the last of the outputs that only the backward
reads has died (one token object referenced by all of them, and a
finalizer on it), the next call's outputs are allocated
(CudaFunction.spare_outputs): the caching allocator hands back the blocks
just freed (stream-ordered: the next forward's kernels run after the
backward's on the same stream), so peak memory does not grow, and the
next forward launches without allocating. They are fresh tensors:
nothing a caller holds is reused. A user output is never watched (the
caller may keep it, and a spare set would live beside it).

On by default ($SINTER_TORCH_SPARE_OUTPUTS=0 turns it off). Measured on
an H100 (2026-12-06, bench/NOTES.md): GPT-2's step 21.5-21.8 ms against
22.1-23.4 without, peak memory 5.88 GiB against 5.90. (A first version,
which allocated when the largest of those outputs died, raised the peak
to 9.3 GiB: the others were still alive.) A forward run with gradients but
no backward frees its saved tensors only when its graph is dropped
(often after the next call), and a spare set then lives beside that
call's outputs.
"""

import operator
import os
import weakref

import torch

# The number of user outputs of the forward graph that AOTAutograd's
# partition function split last (partition() notes it, the forward
# compiler takes it: both run in the compiling thread, one after the
# other). None for a graph with no backward.
_user_outputs = None


def enabled():
    return os.environ.get("SINTER_TORCH_SPARE_OUTPUTS", "1") != "0"


def note_user_outputs(count):
    """Called by the partition function with its num_fwd_outputs."""
    global _user_outputs
    _user_outputs = count


def take_user_outputs():
    """The count noted for the forward graph being compiled now, once
    (None for an inference graph: no partition function ran for it)."""
    global _user_outputs
    count, _user_outputs = _user_outputs, None
    return count


def backward_only_outputs(fused, child, user_outputs):
    """The indices of the outputs of partition `child` (a submodule called
    by graph module `fused`) that the graph returns only past its first
    `user_outputs` outputs: what the forward saves for the backward."""
    call = next(n for n in fused.graph.nodes
                if n.op == "call_module" and n.target == child)
    returned = next(n for n in fused.graph.nodes if n.op == "output").args[0]
    returned = list(returned) if isinstance(returned, (tuple, list)) \
        else [returned]
    getitems = [u for u in call.users if u.target is operator.getitem]
    # (A single-output partition's value is its call.)
    values = {u: u.args[1] for u in getitems} if getitems else {call: 0}
    positions = {}
    for p, value in enumerate(returned):
        if value in values:
            positions.setdefault(values[value], []).append(p)
    return {j for j, ps in positions.items()
            if min(ps) >= user_outputs}


def watched_outputs(plan, backward_only):
    """The program outputs to watch, sorted: those that go only to the
    backward (`plan` maps the partition's outputs to the program's,
    backend._plan_outputs); none also returned at a user position."""
    outs = {w[1] for j, w in enumerate(plan)
            if w is not None and w[0] == "out" and j in backward_only}
    outs -= {w[1] for j, w in enumerate(plan)
             if w is not None and w[0] == "out" and j not in backward_only}
    return sorted(outs)


def _allocate(fn, device, owner_ref):
    """The token's finalizer: the next outputs, unless the model died first
    (its saved tensors outlived it: nothing would take them)."""
    if owner_ref is None or owner_ref() is not None:
        fn.spare_outputs(device)


class _Token:
    """Referenced by every watched output of one call; dies with the last."""


# A weak reference to the owner each function's spare set is released
# with (see watch).
_owners = weakref.WeakKeyDictionary()


def owner_of(args):
    """The first nn.Parameter among a call's arguments: what lives as long
    as the model whose forward it is (None if there is none)."""
    return next((a for a in args if isinstance(a, torch.nn.Parameter)),
                None)


def watch(fn, tensors, device, owner=None):
    """Allocates `fn`'s next outputs once every tensor of `tensors` has
    died (a tensor's Python object lives as long as the tensor itself).
    With `owner` (a parameter of the model), the spare set made last is
    released when the owner dies: a model deleted after training does not
    leave its next forward's outputs allocated (the compiled function lives
    on in the program cache)."""
    token = _Token()
    for t in tensors:
        t._sinter_spare_outputs = token
    owner_ref = weakref.ref(owner) if owner is not None else None
    finalizer = weakref.finalize(token, _allocate, fn, device, owner_ref)
    finalizer.atexit = False  # nothing to allocate for at exit
    known = _owners.get(fn)
    if owner is not None and (known is None or known() is not owner):
        _owners[fn] = weakref.ref(owner)  # (not the owner: it must die)
        release = weakref.finalize(owner, fn.release_spare)
        release.atexit = False
