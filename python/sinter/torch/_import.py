# Part of the Sinter project.
"""FX graph -> linalg-on-tensors with torch-mlir, Sinter's custom ops kept.

torch-mlir's FX importer turns an operator it does not know into
`torch.operator "torch.sinter.attention_forward"(...)`, which its lowering
to linalg rejects. Before that lowering, each such op becomes a call of a
private declaration that says which sinter op it stands for (the custom
call contract, docs/Torch.md and `sinter-raise-custom-calls`):

    func.func private @sinter_call_0(tensor<...>, ...) -> (...)
        attributes {sinter.call = "sinter.attention",
                    sinter.attributes = {causal, scale = 0.125 : f32}}

Its tensor operands are the op's, in the op's order (an optional mask is a
tensor after the op's fixed operands); its scalar arguments, constants in
the FX graph, become the op's attributes. torch-mlir then lowers the rest
of the graph as usual, converting the call's types with everything else;
its final backend-contract check, which knows no calls, is left out.
`sinter-raise-custom-calls`, the first pass of Sinter's fusion pipeline,
replaces each call by its op. So a graph with attention in it is one
Sinter program instead of partitions around the attention.
"""

import math

import torch

# torch custom op (namespace::name) -> the sinter op its calls stand for.
CUSTOM_CALLS = {
    "sinter::attention_forward": "sinter.attention",
    "sinter::attention_backward": "sinter.attention_backward",
}

# The attribute that names the op on a call's declaration, and the one that
# holds the op's attributes (lib/Dialect/Sinter/Transforms/RaiseCustomCalls.cpp
# reads the same names).
CALL_ATTR = "sinter.call"
ATTRIBUTES_ATTR = "sinter.attributes"


def _schema_name(node):
    target = node.target
    schema = getattr(target, "_schema", None)
    return schema.name if schema is not None else None


def custom_call_args(node):
    """The sinter op's attributes of a custom op node ({name: value}, None
    for an absent optional), or None when the node cannot be a custom call:
    not one of CUSTOM_CALLS, or a scalar argument that is not a constant
    of the graph (a seed drawn at run time)."""
    name = _schema_name(node) if node.op == "call_function" else None
    if name not in CUSTOM_CALLS:
        return None
    schema = node.target._schema
    values = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            value = node.args[i]
        else:
            value = node.kwargs.get(arg.name, arg.default_value)
        values[arg.name] = value
    attrs = {}
    for key, value in values.items():
        if isinstance(value, torch.fx.Node):
            if key == "seed":
                return None  # a run-time seed: the op stays in torch
            continue
        attrs[key] = value
    if attrs.get("dropout_p"):
        return None  # dropout's seed must change per step: stays in torch
    return attrs


def _attribute_text(attrs):
    """The sinter op's attribute dictionary, in MLIR syntax."""
    parts = []
    if attrs.get("causal"):
        parts.append("causal")
    if attrs.get("scale") is not None:
        scale = float(attrs["scale"])
        if not math.isfinite(scale):
            raise ValueError("attention scale %r is not finite" % scale)
        parts.append("scale = %r : f32" % scale)
    if attrs.get("deterministic"):
        parts.append("deterministic")
    return "{%s}" % ", ".join(parts)


def _custom_call_ops(module):
    """The torch.operator ops of `module` that are Sinter custom ops, with
    the sinter op each stands for."""
    from torch_mlir import ir
    found = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    if inner.name == "torch.operator":
                        name = ir.StringAttr(inner.attributes["name"]).value
                        for custom, sinter_op in CUSTOM_CALLS.items():
                            if name.startswith(
                                    "torch." + custom.replace("::", ".")):
                                found.append((inner, sinter_op))
                    visit(inner)
    visit(module.operation)
    return found


def _results_of(op):
    """The op's results as values, a list result through the
    torch.prim.ListUnpack that reads it (the backward returns a list)."""
    results = list(op.results)
    if len(results) == 1 and str(results[0].type).startswith("!torch.list"):
        users = [u.owner for u in results[0].uses]
        if len(users) != 1 or users[0].name != "torch.prim.ListUnpack":
            raise ValueError("a Sinter custom op's list result is read by "
                             "other than one torch.prim.ListUnpack")
        return users[0], list(users[0].results)
    return None, results


def _rewrite_custom_calls(module, call_attrs):
    """Replaces each Sinter custom op of `module` (in the order of
    `call_attrs`, the FX nodes' attributes) by a call of a marked private
    declaration."""
    from torch_mlir import ir
    from torch_mlir.dialects import func as func_d
    ops = _custom_call_ops(module)
    if len(ops) != len(call_attrs):
        raise ValueError("torch-mlir imported %d Sinter custom ops, the graph "
                         "has %d" % (len(ops), len(call_attrs)))
    with module.context:
        body = module.body
        for n, ((op, sinter_op), attrs) in enumerate(zip(ops, call_attrs)):
            loc = op.location
            tensors = [v for v in op.operands
                       if str(v.type).startswith("!torch.vtensor")]
            unpack, results = _results_of(op)
            types = [r.type for r in results]
            name = "sinter_call_%d" % n
            with loc:
                decl = func_d.FuncOp(
                    name, ir.FunctionType.get([t.type for t in tensors], types),
                    visibility="private",
                    ip=ir.InsertionPoint.at_block_begin(body))
                decl.attributes[CALL_ATTR] = ir.StringAttr.get(sinter_op)
                decl.attributes[ATTRIBUTES_ATTR] = ir.Attribute.parse(
                    _attribute_text(attrs))
                call = func_d.CallOp(types, ir.FlatSymbolRefAttr.get(name),
                                     tensors, ip=ir.InsertionPoint(op))
            for old, new in zip(results, call.results):
                old.replace_all_uses_with(new)
            if unpack is not None:
                unpack.erase()
            op.erase()


def _lowering_pipeline():
    """torch-mlir's pipeline from the torch backend to linalg-on-tensors,
    as its own pass manager spells it, without the final backend-contract
    check (which rejects the custom calls)."""
    import torch_mlir.fx  # noqa: F401 -- registers torch-mlir's passes
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager
    with ir.Context():
        pm = PassManager.parse(
            "builtin.module(torch-backend-to-linalg-on-tensors-backend-"
            "pipeline{allow-non-finites=true})")
        text = str(pm)
    check = "torch-verify-linalg-on-tensors-backend-contract"
    if check not in text:
        raise RuntimeError("torch-mlir's linalg pipeline has changed: no %s "
                           "in %s" % (check, text))
    return text.replace("," + check, "").replace(check, "")


def import_graph(gm):
    """linalg-on-tensors MLIR text of `gm`, its Sinter custom ops as marked
    calls. `device=` arguments (meta, when tracing ahead of time) are
    imported as cpu and restored: the IR is device-agnostic."""
    import torch_mlir.fx as fx
    from torch_mlir.compiler_utils import run_pipeline_with_repro_report
    changed = []
    for node in gm.graph.nodes:
        dev = node.kwargs.get("device")
        if isinstance(dev, torch.device) and dev.type != "cpu":
            changed.append((node, dict(node.kwargs)))
            node.kwargs = {**node.kwargs, "device": torch.device("cpu")}
    calls = [custom_call_args(n) for n in gm.graph.nodes
             if n.op == "call_function" and _schema_name(n) in CUSTOM_CALLS]
    try:
        if not calls:
            return str(fx.stateless_fx_import(
                gm, output_type="linalg-on-tensors", model_name="main"))
        module = fx.stateless_fx_import(gm, output_type="raw",
                                        model_name="main")
    finally:
        for node, kwargs in changed:
            node.kwargs = kwargs
    if any(c is None for c in calls):
        raise ValueError("a Sinter custom op with run-time scalar arguments "
                         "cannot be imported")
    _rewrite_custom_calls(module, calls)
    run_pipeline_with_repro_report(
        module, "builtin.module(func.func(torch-match-quantized-custom-ops), "
        "torchdynamo-export-to-torch-backend-pipeline)",
        "Lowering TorchFX IR -> Torch Backend IR")
    run_pipeline_with_repro_report(
        module, _lowering_pipeline(),
        "Lowering Torch Backend IR -> Linalg-on-Tensors Backend IR")
    return str(module)
