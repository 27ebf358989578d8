# Part of the Sinter project.
"""torch.compile(model, backend="sinter").

Dynamo hands the backend a graph; AOTAutograd splits it into a forward and
a backward graph of core ATen ops (the decompositions torch-mlir imports);
each is imported with torch-mlir's FX importer to linalg-on-tensors, fused
and compiled by Sinter for the device its inputs are on (sinter.compile:
the raising passes find attention, norms, softmax and elementwise chains in
it), cached on disk by IR and target, and run by Sinter's runtime.

Each graph is partitioned (torch's CapabilityBasedPartitioner): runs of
ATen operators and Sinter's attention custom ops (imported as calls that
become sinter.attention and sinter.attention_backward, _import.py) go to
Sinter, the operators that stay in torch (_IN_TORCH, and custom ops whose
scalar arguments are not constants) run between them. A partition that cannot be imported or compiled runs in
torch too ($SINTER_TORCH_DUMP=DIR keeps each partition's IR), with a log line (logger "sinter.torch") naming it, the reason
and its operators: the model still runs. SDPA becomes Sinter's attention
custom op, so that the backward graph gets Sinter's attention backward and
the forward saves O and the logsumexp, never the S x S matrix. Shapes are static per compile: with torch.compile(..., dynamic=False) a
new shape is a new Dynamo graph, compiled again (and logged); a graph
Dynamo made dynamic runs in torch, with a log line saying so.

A machine without torch-mlir (a GPU node) finds artifacts compiled
elsewhere in the cache by each partition's FX key; with
$SINTER_TORCH_EXPORT=DIR it writes the partitions it could not find there,
for `python -m sinter.torch.export DIR` to compile on a machine that has
the compiler (export.py).
"""

import copy
import functools
import hashlib
import logging
import operator
import os
import re
import time

import torch

from . import _cache, _graph_cache, _spare_outputs
from ._import import custom_call_args, import_graph
from ._cross_entropy import route_cross_entropy
from ._manual_attention import route_manual_attention
from ._partition import partition
from ._output_code import CompiledGraph, bundled, mark_incomplete
from ._tensors import from_numpy, to_numpy

log = logging.getLogger("sinter.torch")

_graph_counter = iter(range(1 << 62))

# Operators that stay in torch: the embedding backward (its decomposition,
# an accumulating index_put, imports as tm_tensor.scatter, which Sinter does
# not compile yet) and random number generation.
_IN_TORCH = {torch.ops.aten.embedding_dense_backward,
             torch.ops.aten.rand, torch.ops.aten.randn,
             torch.ops.aten.randint, torch.ops.aten.bernoulli,
             torch.ops.aten.native_dropout}


def _plan_outputs(gm):
    """Leaves in `gm`'s output tuple only what its program must compute:
    each value once, no None (AOTAutograd's backward returns None for inputs
    without gradients) and no input passed through (a forward may save an
    input for the backward, _partition.py). Returns where each original
    output comes from -- None, ("arg", input index) or ("out", program
    output index) -- and whether the output was a single value."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    outs = out.args[0]
    single = not isinstance(outs, (tuple, list))
    outs = [outs] if single else list(outs)
    inputs = {n: i for i, n in enumerate(n for n in gm.graph.nodes
                                         if n.op == "placeholder")}
    computed, plan = [], []
    for o in outs:
        if o is None:
            plan.append(None)
        elif o in inputs:
            plan.append(("arg", inputs[o]))
        else:
            if o not in computed:
                computed.append(o)
            plan.append(("out", computed.index(o)))
    out.args = (tuple(computed),)
    gm.recompile()
    return plan, single


class _Support:
    """The nodes Sinter compiles: ATen operators, except those that
    torch-mlir cannot import to linalg-on-tensors or that Sinter runs
    better outside (they stay in torch, partitions form around them), and
    Sinter's own attention custom ops with constant scalar arguments
    (imported as custom calls, _import.py)."""

    def is_node_supported(self, submodules, node):
        if node.op != "call_function":
            return False
        target = node.target
        if target is operator.getitem:
            return all(self.is_node_supported(submodules, a)
                       for a in node.args[:1]
                       if isinstance(a, torch.fx.Node))
        if not isinstance(target, torch._ops.OpOverload):
            return False
        if target.namespace == "sinter":
            return custom_call_args(node) is not None
        return (target.namespace == "aten"
                and target.overloadpacket not in _IN_TORCH)


# Operators that only create, view or rearrange tensors: a partition made
# of nothing else is left to torch (views are free there; a kernel would
# copy).
_DATA_MOVEMENT = {"alias", "view", "_unsafe_view", "permute", "expand",
                  "full", "zeros", "ones", "empty", "arange", "clone", "t",
                  "transpose", "unsqueeze", "squeeze", "slice", "select",
                  "as_strided", "scalar_tensor", "lift_fresh_copy"}


def _only_data_movement(gm):
    return all(n.target is operator.getitem or
               getattr(n.target, "_opname", None) in _DATA_MOVEMENT
               for n in gm.graph.nodes if n.op == "call_function")


def _dump(name, text, suffix=".mlir"):
    """Writes a partition's IR (or a partitioned graph's code, .py) to
    $SINTER_TORCH_DUMP/<name><suffix> when set (to replay it with
    sinterc)."""
    directory = os.environ.get("SINTER_TORCH_DUMP")
    if directory:
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, name.replace(" ", "_") + suffix),
                  "w") as f:
            f.write(text)


def _device_of(example_inputs):
    for t in example_inputs:
        if isinstance(t, torch.Tensor):
            return t.device
    return torch.device("cpu")


def _expected_strides(gm):
    """The strides AOTAutograd traced for each output of `gm` (None where
    unknown): the torch code around a partition may view its outputs as it
    traced them, so an output traced non-contiguous (a transpose saved for
    the backward) must come back with those strides."""
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    outs = out if isinstance(out, (tuple, list)) else [out]
    strides = []
    for o in outs:
        val = o.meta.get("val") if isinstance(o, torch.fx.Node) else None
        strides.append(tuple(val.stride()) if isinstance(val, torch.Tensor)
                       else None)
    return strides


def _restride(t, stride):
    """`t` with the traced `stride` (a copy into a tensor laid out so),
    unless it already has it or is contiguous where the trace was too."""
    if stride is None or t.dim() == 0 or tuple(t.stride()) == stride:
        return t
    if any(st == 0 and n > 1 for st, n in zip(stride, t.shape)):
        return t  # a broadcast (expanded) output: dense is as good
    out = torch.empty_strided(t.shape, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _dense_strides(shape):
    """The strides torch.empty(shape) has."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _runner(prog, plan, single, device, strides=None, watch=()):
    """Calls the compiled `main` on the graph's inputs and puts the outputs
    back at their positions (_plan_outputs' plan: None where the graph
    returned None, an input where it returned one), with the strides the
    trace gave them. `watch`: the program outputs whose death allocates the
    next call's outputs (_spare_outputs.py)."""
    fn = prog["main"]
    cuda = device.type == "cuda"
    if not (cuda and _spare_outputs.enabled()):
        watch = ()
    # Per output: (from an input?, its index, the strides it must be given
    # or None). The program's outputs are dense: only those traced
    # otherwise are restrided (decided here once, not per call); inputs
    # passed through are checked per call.
    shapes = [tuple(o["shape"] if isinstance(o, dict) else o.shape)
              for o in fn.outputs]
    where = []
    for i, w in enumerate(plan):
        stride = strides[i] if strides else None
        if w is not None and w[0] == "out" and stride == _dense_strides(
                shapes[w[1]]):
            stride = None
        where.append(None if w is None else (w[0] == "arg", w[1], stride))
    # The positions of the watched program outputs among the returned ones
    # (each output's first).
    watched = sorted({next(p for p, w in enumerate(where)
                           if w is not None and not w[0] and w[1] == k)
                      for k in watch})

    def run(*args):
        if cuda:
            outs = fn(*[a if not isinstance(a, torch.Tensor)
                        or a.is_contiguous() else a.contiguous()
                        for a in args])
        else:
            outs = fn(*[to_numpy(a) if isinstance(a, torch.Tensor) else a
                        for a in args])
        outs = outs if isinstance(outs, tuple) else (outs,)
        if not cuda:
            outs = tuple(from_numpy(o) for o in outs)
        full = []
        for w in where:
            if w is None:
                full.append(None)
                continue
            is_arg, index, stride = w
            o = args[index] if is_arg else outs[index]
            full.append(o if stride is None else _restride(o, stride))
        # (The tensors returned: maybe restrided. Under a CUDA graph's
        # capture the outputs are the graph's and are not watched: their
        # finalizer would run on the autograd thread, whose stream
        # spare_outputs cannot be sure is the captured one.)
        if watched and not torch.cuda.is_current_stream_capturing():
            _spare_outputs.watch(fn, [full[p] for p in watched], device,
                                 _spare_outputs.owner_of(args))
        return full[0] if single else tuple(full)
    return run


def _fx_key(gm, example_inputs, target):
    """The key of a partition without importing it: its FX code (devices
    elided), its inputs' shapes and dtypes, the target and torch's
    version. A machine without torch-mlir (a GPU node) finds the artifact
    that a machine with it compiled for the same graph."""
    code = re.sub(r"device\(type='[a-z]+'(, index=\d+)?\)", "device(*)",
                  gm.code)
    metas = [(tuple(t.shape), str(t.dtype)) for t in example_inputs
             if isinstance(t, torch.Tensor)]
    key_text = "\n".join((target, torch.__version__, code, repr(metas)))
    h = hashlib.sha256()
    for part in (target, torch.__version__, code, repr(metas)):
        h.update(part.encode())
        h.update(b"\0")
    key = "fx-" + h.hexdigest()[:32]
    _dump(key, key_text, ".key")
    return key


def _aot_targets():
    """$SINTER_TORCH_AOT: more targets (comma-separated, e.g.
    cuda:sm_90a) to compile every partition for, into the cache, so that
    another machine finds them; with it set the graphs themselves run in
    torch (tracing on meta tensors compiles without running)."""
    return [t.strip() for t in os.environ.get("SINTER_TORCH_AOT", "").split(",")
            if t.strip()]


def _have_importer():
    """Whether partitions can be imported here: torch-mlir is installed and
    $SINTER_TORCH_IMPORT is not 0 (0: cache-only, as on a GPU machine
    that must not compile at run time)."""
    if os.environ.get("SINTER_TORCH_IMPORT", "1") == "0":
        return False
    try:
        import torch_mlir.fx  # noqa: F401
        return True
    except ImportError:
        return False


class _Partition:
    """One partition on its way to Sinter: what _prepare_partition learned
    (targets, FX keys, the traced strides, the outputs kept, the imported
    IR) and what _finish_partition needs to build its runner."""

    def __init__(self, name, gm, example_inputs):
        self.name, self.gm = name, gm
        self.device = _device_of(example_inputs)
        self.out = next(n for n in gm.graph.nodes if n.op == "output")
        self.saved = self.out.args
        self.t0 = time.time()
        self.target = (_cache.target_of(self.device)
                       if self.device.type != "meta" else None)
        # The FX keys are of the graph as AOTAutograd made it.
        self.keys = {t: _fx_key(gm, example_inputs, t)
                     for t in [self.target] + _aot_targets() if t}
        self.strides = _expected_strides(gm)
        self.ir = None
        # The outputs only the backward reads (_spare_outputs.py).
        self.backward_only = set()

    def in_torch(self, error=None):
        """Restores the partition's graph (it runs in torch); logs why."""
        if error is not None:
            mark_incomplete()
            reason = str(error).strip().splitlines()
            ops = sorted({str(n.target) for n in self.gm.graph.nodes
                          if n.op == "call_function"})
            log.warning("sinter: %s runs in torch (%s); its ops: %s",
                        self.name,
                        reason[0] if reason else type(error).__name__,
                        ", ".join(ops))
        self.out.args = self.saved
        self.gm.recompile()
        return None

    def compilations(self):
        """(IR, target) of every program this partition needs compiled."""
        if self.ir is None:
            return []
        return [(self.ir, t) for t in [self.target] + _aot_targets() if t]


def _prepare_partition(name, gm, example_inputs):
    """Drops the partition's None outputs and imports it with torch-mlir
    where torch-mlir is installed; None (with a log line, the graph
    restored) when that fails."""
    part = _Partition(name, gm, example_inputs)
    try:
        # A warm start finds the artifact by the FX key and skips the
        # import (~0.05 s a partition, ~1 s for the first).
        warm = (part.target and not _aot_targets() and
                _cache.indexed_current(part.keys[part.target]))
        # Not asked on a warm start: importing torch-mlir costs ~0.1-1 s.
        importer = not warm and _have_importer()
        if not importer and not warm and part.target:
            # The graph as its key was taken, for a machine with the
            # compiler (export.py), where $SINTER_TORCH_EXPORT asks.
            from . import export
            if export.export_dir():
                export.export_partition(export.export_dir(), name,
                                        part.keys[part.target], part.target,
                                        gm, example_inputs)
        part.plan, part.single = _plan_outputs(gm)
        if importer and not warm:
            t0 = time.time()
            part.ir = import_graph(gm)
            log.info("sinter: %s imported with torch-mlir in %.2f s", name,
                     time.time() - t0)
            _dump(name, part.ir)
    except Exception as e:
        return part.in_torch(e)
    part.prepare_s = time.time() - part.t0
    return part


def _compile_all(parts):
    """Compiles the programs of `parts` into the cache, the distinct ones
    concurrently (the C API releases the GIL, each compilation has its own
    MLIR context): a graph's cold start costs its slowest partition rather
    than the sum. Failures are left for _finish_partition, which compiles
    again and logs them."""
    from concurrent.futures import ThreadPoolExecutor
    work = {}
    for part in parts:
        for ir, target in part.compilations():
            work.setdefault(_cache.key_of(ir, target, True), (ir, target))
    if len(work) < 2:
        return
    t0 = time.time()
    workers = min(len(work), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for f in [pool.submit(_cache.precompile, ir, target, True)
                  for ir, target in work.values()]:
            try:
                f.result()
            except Exception:  # noqa: BLE001 -- reported by the finish
                pass
    log.info("sinter: %d distinct programs ready in %.2f s (%d threads)",
             len(work), time.time() - t0, workers)


def _partition_program(part):
    """The partition's program for its target (None: compiled only for the
    ahead-of-time targets): from its IR (cached by IR), or, without
    torch-mlir or on a warm start, found in the cache by its FX key."""
    target = part.target
    if part.ir is None:
        ir_key = _cache.index_get(part.keys[target]) if target else None
        part.ir_key = ir_key
        if ir_key is None:
            raise RuntimeError("torch-mlir is not installed here and the "
                               "cache has no artifact for this graph "
                               "(compile it ahead of time with "
                               "SINTER_TORCH_AOT=%s, or export it with "
                               "SINTER_TORCH_EXPORT=DIR for python -m "
                               "sinter.torch.export)" % target)
        return _cache.load_key(ir_key, target)
    for extra in _aot_targets():
        _cache.precompile(part.ir, extra, fusion=True)
        _cache.index_put(part.keys[extra], _cache.key_of(part.ir, extra, True))
    if target is None:
        return None
    prog = _cache.program(part.ir, target, fusion=True)
    part.ir_key = _cache.key_of(part.ir, target, True)
    _cache.index_put(part.keys[target], part.ir_key)
    return prog


def _finish_partition(part):
    """The _Compiled module of a prepared partition, or None (it runs in
    torch, with a log line; also in ahead-of-time mode). Its logged time
    is its import and its own compile or load, not the others' concurrent
    compiles."""
    part.t0 = time.time() - part.prepare_s
    try:
        prog = _partition_program(part)
    except Exception as e:
        return part.in_torch(e)
    if prog is None or _aot_targets():
        mark_incomplete()
        log.info("sinter: %s compiled ahead of time for %s in %.2f s",
                 part.name, ", ".join(_aot_targets()), time.time() - part.t0)
        return part.in_torch()
    calls = [n for n in part.gm.graph.nodes if n.op == "call_function"]
    # Sinter's custom ops compiled inside the partition, by name.
    custom = {}
    for n in calls:
        if getattr(n.target, "namespace", None) == "sinter":
            custom[str(n.target)] = custom.get(str(n.target), 0) + 1
    log.info("sinter: %s (%d ops%s) ready for %s in %.2f s", part.name,
             len(calls), "".join(", %d %s" % (c, name) for name, c in
                                 sorted(custom.items())),
             part.device, time.time() - part.t0)
    watch = ()
    if part.device.type == "cuda":
        watch = _spare_outputs.watched_outputs(part.plan, part.backward_only)
    spec = (part.ir_key, part.target, part.plan, part.single, part.device,
            part.strides, watch)
    return _Compiled(part.name, _runner(prog, *spec[2:]), spec)


class _Compiled(torch.nn.Module):
    """A partition replaced by its Sinter program. With
    $SINTER_TORCH_VERIFY set, each call also runs the partition in torch and
    logs the largest difference of each output. `spec` is what rebuilds it:
    the artifact's cache key, its target and _runner's arguments."""

    def __init__(self, name, run, spec, original=None):
        super().__init__()
        self.name = name
        self.run = run
        self.spec = spec
        self.original = original

    def __reduce__(self):
        """Pickled (in a saved compiled model, precompile.py) as its
        artifact's files and `spec`: loading needs no compiler and no
        cache."""
        return (_restore_compiled,
                (self.name, _cache.artifact_files(self.spec[0]), self.spec))

    def __deepcopy__(self, memo):
        return self  # immutable: AOTAutograd copies its cache entries

    def forward(self, *args):
        outs = self.run(*args)
        if os.environ.get("SINTER_TORCH_VERIFY"):
            try:
                want = self.original(*args)
            except RuntimeError as e:  # e.g. a view of our dense outputs
                log.info("sinter verify: %s not checked (%s)", self.name,
                         str(e).splitlines()[0])
                return outs
            pairs = zip(outs, want) if isinstance(want, (tuple, list)) \
                else [(outs, want)]
            for i, (o, w) in enumerate(pairs):
                if isinstance(w, torch.Tensor):
                    d = (o.double() - w.double()).abs()
                    d = torch.where(o.double() == w.double(),
                                    torch.zeros_like(d), d)  # equal infs
                    err = d.max().item() if o.numel() else 0.0
                    log.info("sinter verify: %s output %d %s max err %.3g",
                             self.name, i, tuple(w.shape), err)
        return outs


def _stage_partitions(gm, support):
    """The fewest partitions of the nodes `support` takes: each node's stage
    is the largest number of nodes left to torch on a path from the graph's
    inputs to it, and the supported nodes of one stage are one partition.
    Stages only grow along a path, so no partition reaches itself through
    torch (fusing one makes no cycle). A backward graph whose only node in
    torch is the embedding's backward becomes all its gradients in one
    program and the tied weight's final sum in another; torch's
    CapabilityBasedPartitioner merges greedily and had split the weight
    gradients from the norms' backwards that compute them together."""
    from torch.fx.passes.infra.partitioner import Partition
    stage, groups = {}, {}
    for node in gm.graph.nodes:
        before = max((stage[a] for a in node.all_input_nodes), default=0)
        if node.op != "call_function":
            stage[node] = before
        elif support.is_node_supported(None, node):
            stage[node] = before
            groups.setdefault(before, []).append(node)
        else:
            stage[node] = before + 1
    return [Partition(id=i, nodes=nodes)
            for i, (_, nodes) in enumerate(sorted(groups.items()))]


def _compile_graph(kind):
    def compile_graph(gm, example_inputs):
        from torch.fx.passes.infra.partitioner import \
            CapabilityBasedPartitioner
        graph_id = next(_graph_counter)
        if _graph_cache.has_dynamic_shapes(example_inputs):
            log.warning("sinter: %s graph %d runs in torch: its shapes are "
                        "dynamic (Sinter compiles static shapes; use "
                        "torch.compile(..., dynamic=False) to compile each "
                        "new shape)", kind, graph_id)
            return CompiledGraph(gm)
        shapes = [tuple(a.shape) for a in example_inputs
                  if isinstance(a, torch.Tensor)]
        log.info("sinter: %s graph %d: compiling for input shapes %s", kind,
                 graph_id, shapes)
        partitioner = CapabilityBasedPartitioner(
            gm, _Support(), allows_single_node_partition=True)
        fused = partitioner.fuse_partitions(_stage_partitions(gm, _Support()))
        # What stays in torch, named once per graph.
        left = sorted({str(n.target) for n in fused.graph.nodes
                       if n.op == "call_function"
                       and n.target is not operator.getitem})
        if left:
            log.info("sinter: %s graph %d: ops run by torch: %s", kind,
                     graph_id, ", ".join(left))
        # A training forward's outputs that go only to the backward.
        users = _spare_outputs.take_user_outputs() if kind == "forward" \
            else None
        parts = []
        for child, sub in list(fused.named_children()):
            inputs = [n.meta.get("val") for n in sub.graph.nodes
                      if n.op == "placeholder"]
            if _only_data_movement(sub):
                continue
            name = "%s graph %d %s" % (kind, graph_id, child)
            original = copy.deepcopy(sub) if os.environ.get(
                "SINTER_TORCH_VERIFY") else None
            part = _prepare_partition(name, sub, inputs)
            if part is not None:
                part.backward_only = set() if users is None else \
                    _spare_outputs.backward_only_outputs(fused, child, users)
                parts.append((child, part, original))

        def finish():
            _compile_all([part for _, part, _ in parts])
            for child, part, original in parts:
                compiled = _finish_partition(part)
                if compiled is not None:
                    compiled.original = original
                    setattr(fused, child, compiled)
            fused.recompile()
            _dump("%s graph %d" % (kind, graph_id), fused.code, ".py")
        if kind == "forward" and parts:
            return CompiledGraph(fused, finish)  # compiles in the background
        finish()
        return CompiledGraph(fused)
    return compile_graph


def _restore_compiled(name, files, spec):
    """A pickled _Compiled: its artifact put into the cache (unless there)
    and loaded."""
    _cache.put_artifact(spec[0], files)
    return _Compiled(name, _runner(_cache.load_key(spec[0], spec[1]),
                                   *spec[2:]), spec)


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0,
          is_causal=False, scale=None, enable_gqa=False):
    """SDPA as Sinter's attention custom op (forward saves O and lse; the
    backward graph gets sinter::attention_backward). Dropout stays with
    torch's SDPA: a traced seed would be the same on every step."""
    if dropout_p:
        return NotImplemented
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros_like(attn_mask, dtype=query.dtype).masked_fill(
            attn_mask.logical_not(), float("-inf"))
    out, _ = torch.ops.sinter.attention_forward(
        query, key, value, attn_mask, bool(is_causal),
        None if scale is None else float(scale), 0.0, 0)
    return out


def _squeeze_dims(x, dims):
    """aten.squeeze.dims (which torch-mlir's linalg lowering rejects) as a
    view."""
    dims = [d % max(x.dim(), 1) for d in dims]
    shape = [s for i, s in enumerate(x.shape) if not (i in dims and s == 1)]
    return torch.ops.aten.view.default(x, shape)


def _scatter_value(self, dim, index, value):
    """aten.scatter.value with one index per slice along `dim` (the
    gradient of cross-entropy: one target per row) as a compare and
    select; torch-mlir would make it tm_tensor.scatter."""
    dim = dim % self.dim()
    if index.dim() != self.dim() or index.shape[dim] != 1 or any(
            index.shape[d] != self.shape[d] for d in range(self.dim())
            if d != dim):
        return NotImplemented
    shape = [1] * self.dim()
    shape[dim] = self.shape[dim]
    iota = torch.arange(self.shape[dim], device=self.device).view(shape)
    return torch.where(iota == index, torch.full_like(self, value), self)


def decompositions():
    """Core ATen, with the ops that stay in torch (_IN_TORCH) kept whole
    (made once: ~0.15 s)."""
    global _DECOMPOSITIONS
    if _DECOMPOSITIONS is None:
        from torch._decomp import core_aten_decompositions
        aten = torch.ops.aten
        table = {op: fn for op, fn in core_aten_decompositions().items()
                 if op.overloadpacket not in _IN_TORCH}
        table[aten.squeeze.dims] = _squeeze_dims
        table[aten.scatter.value] = _scatter_value
        _DECOMPOSITIONS = table
    return dict(_DECOMPOSITIONS)


_DECOMPOSITIONS = None


def _route_sdpa(gm):
    """Replaces the SDPA calls of Dynamo's graph by _sdpa (Sinter's
    attention custom op, whose autograd formula is Sinter's backward).
    SDPA is CompositeImplicit: AOTAutograd would decompose it into the
    device's flash-attention ops before any decomposition table is
    consulted, so it is routed here, before AOTAutograd traces."""
    sdpa = {torch._C._nn.scaled_dot_product_attention,
            torch.nn.functional.scaled_dot_product_attention}
    routed = 0
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in sdpa:
            node.target = _sdpa_or_torch
            routed += 1
    if routed:
        gm.recompile()
    return routed


def _sdpa_or_torch(*args, **kwargs):
    out = _sdpa(*args, **kwargs)
    if out is NotImplemented:
        return torch.nn.functional.scaled_dot_product_attention(*args,
                                                                **kwargs)
    return out


def sinter_backend(gm, example_inputs, **kwargs):
    """The torch.compile backend (also registered as "sinter")."""
    from torch._dynamo.backends.common import aot_autograd
    route_manual_attention(gm, _sdpa_or_torch)
    _route_sdpa(gm)
    route_cross_entropy(gm)
    # Saved products padded for cuBLASLt's aligned rows: CUDA's programs
    # (run here, or compiled ahead of time).
    pad = ((_device_of(example_inputs).type == "cuda"
            or any(t.startswith("cuda") for t in _aot_targets()))
           and os.environ.get("SINTER_TORCH_PAD_SAVED", "1") != "0")
    backend = aot_autograd(fw_compiler=_compile_graph("forward"),
                           bw_compiler=_compile_graph("backward"),
                           partition_fn=functools.partial(
                               partition, pad_products=pad),
                           decompositions=decompositions())
    if torch._functorch.config.bundled_autograd_cache:
        # Inside torch's ahead-of-time compile (sinter.torch.compile).
        return bundled(backend(gm, example_inputs, **kwargs))
    # Not in ahead-of-time mode, whose graphs run in torch, nor when each
    # call is verified ($SINTER_TORCH_GRAPH_CACHE=0 turns the cache off, as
    # tests of compile logs do).
    key = (_graph_cache.graph_key(gm, example_inputs)
           if os.environ.get("SINTER_TORCH_GRAPH_CACHE", "1") != "0"
           and not _aot_targets() and not os.environ.get("SINTER_TORCH_VERIFY")
           else None)
    if key is None:
        return backend(gm, example_inputs, **kwargs)
    return _graph_cache.load(key) or _graph_cache.compile_and_save(
        key, lambda: backend(gm, example_inputs, **kwargs))


def register():
    """Registers backend="sinter" with torch._dynamo (done on import of
    sinter.torch; the wheel's torch_dynamo_backends entry point does it for
    an installed Sinter)."""
    from torch._dynamo import list_backends, register_backend
    if "sinter" not in list_backends(exclude_tags=()):
        register_backend(name="sinter", compiler_fn=sinter_backend)
