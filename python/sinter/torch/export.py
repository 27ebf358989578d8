# Part of the Sinter project.
"""Partitions traced where the model runs, compiled where the compiler is.

A GPU node without torch-mlir (or with $SINTER_TORCH_IMPORT=0) runs a
partition whose artifact its cache lacks in torch. With
$SINTER_TORCH_EXPORT=DIR it also writes the partition into DIR: its FX
graph, its inputs' shapes, dtypes and strides, the target and the FX key the
node looked the artifact up by. On a machine with torch-mlir,

    python -m sinter.torch.export DIR        # into $SINTER_CACHE_DIR

imports and compiles each exported partition for its target and files the
artifact under that key; the cache copied back to the node then has what it
looked for. Tracing on the node itself is what makes the keys agree: CUDA's
autocast (and any device-specific decomposition) traces other graphs than a
CPU stand-in would.
"""

import logging
import os
import sys
import time

import torch

log = logging.getLogger("sinter.torch")

_SUFFIX = ".sinter-partition"


def export_dir():
    """$SINTER_TORCH_EXPORT, or None."""
    return os.environ.get("SINTER_TORCH_EXPORT") or None


def export_partition(directory, name, key, target, gm, example_inputs):
    """Writes the partition `gm` (as AOTAutograd made it, before any change
    of its outputs) into `directory` as <key>.sinter-partition."""
    inputs = [(tuple(t.shape), str(t.dtype).replace("torch.", ""),
               tuple(t.stride())) if isinstance(t, torch.Tensor) else t
              for t in example_inputs]
    record = {"format": 1, "name": name, "key": key, "target": target,
              "torch": torch.__version__, "graph": _graph_record(gm.graph),
              "constants": {k: v.detach().cpu() for k, v in
                            gm.state_dict(keep_vars=False).items()},
              "inputs": inputs}
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, key + _SUFFIX)
    torch.save(record, path + ".tmp")
    os.replace(path + ".tmp", path)
    log.info("sinter: %s exported to %s (compile it with python -m "
             "sinter.torch.export %s)", name, path, directory)


def _target_name(target):
    """A call's target by name: an operator overload ("aten.add.Tensor",
    "sinter.attention_forward.default") or a Python function
    ("operator.getitem")."""
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return "%s.%s" % (target.__module__, target.__qualname__)


def _resolve_target(name):
    if name.startswith("_operator.") or name.startswith("operator."):
        import operator
        return getattr(operator, name.split(".", 1)[1])
    namespace, op, overload = name.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), op), overload)


def _value_record(v):
    """An argument with its nodes by name ("node", name) and torch's
    dtypes, devices, layouts and memory formats by name."""
    if isinstance(v, torch.fx.Node):
        return ("node", v.name)
    if isinstance(v, (list, tuple)):  # (FX's args are immutable lists)
        return ("list" if isinstance(v, list) else "tuple",
                [_value_record(x) for x in v])
    if isinstance(v, dict):
        return ("dict", {k: _value_record(x) for k, x in v.items()})
    if isinstance(v, (torch.dtype, torch.layout, torch.memory_format)):
        return ("torch", str(v).replace("torch.", ""))
    if isinstance(v, torch.device):
        return ("device", str(v))
    if v is None or isinstance(v, (bool, int, float, str)):
        return ("const", v)
    raise ValueError("cannot export the argument %r (%s)" % (v, type(v)))


def _value(r, nodes):
    kind, v = r
    if kind == "node":
        return nodes[v]
    if kind in ("list", "tuple"):
        items = [_value(x, nodes) for x in v]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: _value(x, nodes) for k, x in v.items()}
    if kind == "torch":
        return getattr(torch, v)
    if kind == "device":
        return torch.device(v)
    return v


def _graph_record(graph):
    """The nodes of `graph`, in order: op, name, target, args, kwargs. The
    graph is rebuilt from them node for node (symbolic tracing of its code
    would fold calls without tensor arguments into constants)."""
    nodes = []
    for n in graph.nodes:
        target = (_target_name(n.target) if n.op == "call_function"
                  else n.target)
        nodes.append((n.op, n.name, target, _value_record(n.args),
                      _value_record(n.kwargs)))
    return nodes


def _graph_module(record):
    """The exported graph rebuilt with its names, on the CPU (devices become
    cpu: the IR is device-agnostic), every node with its fake value."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp
    root = torch.nn.Module()
    for k, v in record["constants"].items():
        root.register_buffer(k, v)
    graph = torch.fx.Graph()
    nodes = {}
    for op, name, target, args, kwargs in record["graph"]:
        if op == "call_function":
            target = _resolve_target(target)
        kwargs = _value(kwargs, nodes)
        if isinstance(kwargs.get("device"), torch.device):
            kwargs["device"] = torch.device("cpu")
        node = graph.create_node(op, target, _value(args, nodes), kwargs,
                                 name=name)
        if node.name != name:
            raise ValueError("node %s was renamed %s" % (name, node.name))
        nodes[name] = node
    gm = torch.fx.GraphModule(root, graph)
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with mode:
        fakes = [torch.empty_strided(i[0], i[2], dtype=getattr(torch, i[1]))
                 if isinstance(i, tuple) else i for i in record["inputs"]]
    FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*fakes)
    return gm, fakes


def compile_export(path):
    """Imports and compiles the partition exported at `path` into the cache;
    returns its key. Fails when the rebuilt graph's FX key is not the one
    the node computed (the rebuild changed the graph)."""
    from . import _cache
    from ._import import import_graph
    from .backend import _dump, _fx_key, _plan_outputs
    record = torch.load(path, weights_only=False)
    if record.get("format") != 1:
        raise ValueError("%s: unknown export format %r" % (
            path, record.get("format")))
    if record["torch"] != torch.__version__:
        raise ValueError("%s was traced with torch %s, this is torch %s: the "
                         "keys would differ" % (path, record["torch"],
                                                torch.__version__))
    gm, fakes = _graph_module(record)
    key = _fx_key(gm, fakes, record["target"])
    if key != record["key"]:
        raise ValueError("%s: the rebuilt graph's key %s is not the exported "
                         "key %s" % (path, key, record["key"]))
    _plan_outputs(gm)
    ir = import_graph(gm)
    _dump(key, ir)
    _cache.precompile(ir, record["target"], fusion=True)
    _cache.index_put(key, _cache.key_of(ir, record["target"], True))
    return key


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m sinter.torch.export DIR\n\nImports and "
              "compiles every partition a torch.compile(backend=\"sinter\") "
              "run exported into DIR ($SINTER_TORCH_EXPORT) into the cache "
              "($SINTER_CACHE_DIR, else ~/.cache/sinter), each filed under "
              "the key the exporting machine looks it up by.",
              file=sys.stderr)
        return 2
    from . import _cache
    paths = sorted(os.path.join(argv[0], f) for f in os.listdir(argv[0])
                   if f.endswith(_SUFFIX))
    failed = 0
    for i, path in enumerate(paths):
        t0 = time.time()
        try:
            key = compile_export(path)
            print("[%d/%d] %s: compiled in %.1f s" % (
                i + 1, len(paths), key, time.time() - t0), flush=True)
        except Exception as e:  # noqa: BLE001 -- reported, others go on
            failed += 1
            print("[%d/%d] %s: %s: %s" % (i + 1, len(paths), path,
                                          type(e).__name__, e),
                  file=sys.stderr, flush=True)
    print("%d of %d partitions compiled into %s" % (
        len(paths) - failed, len(paths), _cache.cache_dir()))
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
