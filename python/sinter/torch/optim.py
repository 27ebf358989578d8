# Part of the Sinter project.
"""sinter.torch.AdamW: torch.optim.AdamW on Sinter's multi-tensor kernel.

Same arguments, defaults and state (`step`, `exp_avg`, `exp_avg_sq` per
parameter): a state dict of torch.optim.AdamW loads into it and back. Each
step updates a group's parameters of one device, dtype and step count with
one sinter.adamw program (compiled once per shapes, dtypes and
hyperparameters; the learning rate and the step count are runtime values).
On CUDA the program updates the tensors in place on the current stream.
The programs the first step will need are compiled on background threads
from the optimizer's construction on (where the compiler is installed), so
that they are ready by then: GPT-2's three took ~8 s of a cold first step,
one after the other, at the step.

capturable=True (as torch's): each parameter's `step` is a 0-d f32 tensor
on its device, incremented there, and the programs read the step count
from it inside the kernel -- nothing is read back to the host, so a step
can be captured in a CUDA graph and replayed (torch.cuda.graph; the
learning rate, a float, is fixed at capture, as with torch's). Parameters
updated together must have stepped together: their counts are compared
once after the state is made or loaded.
"""

import logging
import threading

import torch

from . import _cache
from ._tensors import flt, tensor_type, to_numpy, from_numpy

# Parameters per program: large groups are split (each program compiles
# once; the CUDA kernel itself takes up to 32 tensors per launch).
_TENSORS_PER_PROGRAM = 64


def adamw_ir(shapes_types, beta1, beta2, eps, weight_decay, capturable=False):
    """The program of one AdamW update of tensors of the MLIR types
    `shapes_types` (params, then grads, exp_avgs and exp_avg_sqs alike);
    `capturable`: the step count is a tensor<f32> the kernel reads (a
    device tensor), not a value passed at the call."""
    n = len(shapes_types)
    names = {k: ["%%%s%d" % (k, i) for i in range(n)] for k in "pgmv"}
    types = shapes_types
    args = []
    for k in "pgmv":
        args += ["%s: %s" % (a, t) for a, t in zip(names[k], types)]
    results = types * 3
    res = ["%%r%d" % i for i in range(3 * n)]

    def lst(k):
        return "%s : %s" % (", ".join(names[k]), ", ".join(types))
    step_arg, step_read = "%step: f32", ""
    if capturable:
        step_arg = "%step_t: tensor<f32>"
        step_read = "  %step = tensor.extract %step_t[] : tensor<f32>\n"
    return """func.func @adamw(%s, %%lr: f32, %s) -> (%s) {
%s  %s = sinter.adamw params(%s) grads(%s) exp_avgs(%s) exp_avg_sqs(%s) lr(%%lr) step(%%step) {beta1 = %s : f64, beta2 = %s : f64, eps = %s : f64, weight_decay = %s : f64}
  return %s : %s
}
""" % (", ".join(args), step_arg, ", ".join(results), step_read,
       ", ".join(res), lst("p"),
       lst("g"), lst("m"), lst("v"), flt(beta1), flt(beta2), flt(eps),
       flt(weight_decay), ", ".join(res), ", ".join(results))


def _local(t):
    """This rank's shard of a DTensor (FSDP2's fully_shard parameters,
    gradients and, through zeros_like, optimizer state): AdamW is
    elementwise, so each rank updates its own shard in place; other
    tensors are themselves."""
    to_local = getattr(t, "to_local", None)
    return to_local() if to_local is not None else t


def _buckets(params, counts):
    """(device, step count, indices into `params`) of each program a step
    runs: one per device, dtype and step count (None for all: capturable
    counts stay on the device), split into programs of at most
    _TENSORS_PER_PROGRAM."""
    buckets = {}
    for i, (p, count) in enumerate(zip(params, counts)):
        buckets.setdefault((p.device, p.dtype, count), []).append(i)
    for (device, _, count), indices in buckets.items():
        for i in range(0, len(indices), _TENSORS_PER_PROGRAM):
            yield device, count, indices[i:i + _TENSORS_PER_PROGRAM]


def _is_sharded(params):
    """Whether `params` are DTensors (FSDP2's fully_shard)."""
    return any([hasattr(p, "to_local") for p in params])


def _program_ir(group, params, sharded):
    """The adamw IR of `params` (their local shards when `sharded`) with
    the group's hyperparameters."""
    beta1, beta2 = group["betas"]
    local = [_local(p) for p in params] if sharded else params
    return adamw_ir([tensor_type(p) for p in local], beta1, beta2,
                    group["eps"], group["weight_decay"],
                    bool(group["capturable"]))


def first_step_programs(group, params):
    """(device, IR) of each program the first step of `group` runs over
    `params`, bucketed as that step buckets them (step counts 0, or on the
    device when capturable)."""
    counts = [None if group["capturable"] else 0.0] * len(params)
    for device, _, chunk in _buckets(params, counts):
        ps = [params[i] for i in chunk]
        yield device, _program_ir(group, ps, _is_sharded(ps))


def _precompile_quietly(ir, target):
    try:
        _cache.precompile(ir, target)
    except Exception as e:  # noqa: BLE001 -- step() compiles and reports
        logging.getLogger("sinter.torch").debug(
            "sinter: AdamW's program not compiled ahead (%s)", e)


class AdamW(torch.optim.Optimizer):
    """Drop-in for torch.optim.AdamW (decoupled weight decay). amsgrad,
    maximize and differentiable are not supported."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2, amsgrad=False, *, maximize=False,
                 foreach=None, capturable=False, differentiable=False,
                 fused=None):
        if isinstance(lr, torch.Tensor):
            lr = float(lr)
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError("Invalid beta parameter at index {}: {}"
                                 .format(i, b))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}"
                             .format(weight_decay))
        for name, on in (("amsgrad", amsgrad), ("maximize", maximize),
                         ("differentiable", differentiable)):
            if on:
                raise NotImplementedError(
                    "sinter.torch.AdamW: %s=True is not supported" % name)
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        # (device, hyperparameters, shapes and dtypes) -> adamw function,
        # made by _function.
        self._functions = {}
        # The groups (indices) whose capturable step counts were found
        # equal, program by program, since the state was made or loaded.
        self._counts_checked = set()
        self._compile_ahead()

    def _compile_ahead(self):
        """Compiles, on background threads, the programs of the first step
        as it will bucket the parameters (every parameter that requires a
        gradient, at step 0). Daemon threads: a process that ends sooner
        does not wait; a failure is left for step() to report."""
        self._compiling = []  # the threads (tests join them)
        if _cache.compiler_version() is None:
            return  # no compiler here: step() loads from the cache
        for group in self.param_groups:
            params = [p for p in group["params"] if p.requires_grad]
            if any(p.device.type == "meta" for p in params):
                continue
            for device, ir in first_step_programs(group, params):
                thread = threading.Thread(
                    target=_precompile_quietly,
                    args=(ir, _cache.target_of(device)), daemon=True)
                thread.start()
                self._compiling.append(thread)

    def _init_state(self, p, capturable):
        state = self.state[p]
        if len(state) == 0:
            # As torch.optim.AdamW: a CPU f32 step tensor, or (capturable)
            # one on the parameter's device.
            state["step"] = (torch.zeros((), dtype=torch.float32,
                                         device=p.device) if capturable
                             else torch.tensor(0.0, dtype=torch.float32))
            self._counts_checked = set()
            state["exp_avg"] = torch.zeros_like(
                p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(
                p, memory_format=torch.preserve_format)
        return state

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for index, group in enumerate(self.param_groups):
            params = [p for p in group["params"] if p.grad is not None]
            if any([p.grad.is_sparse for p in params]):
                raise RuntimeError("sinter.torch.AdamW does not support "
                                   "sparse gradients")
            capturable = group["capturable"]
            states = [self._init_state(p, capturable) for p in params]
            if capturable:
                self._check_counts(index, params, states)
                counts = [None] * len(states)
            else:
                # The step counts, read in one op (not one .item() each).
                counts = (torch.stack([s["step"] for s in states]).tolist()
                          if states else [])
            for device, count, chunk in _buckets(params, counts):
                self._update(group, device, count,
                             [(params[i], states[i]) for i in chunk])
        return loss

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._counts_checked = set()

    def _check_counts(self, index, params, states):
        """Capturable counts are not read per step; those of the parameters
        one program of group `index` updates must agree: checked (one read
        a program) after the state was made or loaded, outside a CUDA
        graph's capture."""
        if index in self._counts_checked or not states:
            return
        if (torch.cuda.is_available()
                and torch.cuda.is_current_stream_capturing()):
            raise RuntimeError(
                "sinter.torch.AdamW(capturable=True): run one step before "
                "capturing (the step counts are checked outside the graph)")
        for device, _, chunk in _buckets(params, [None] * len(params)):
            counts = torch.stack([states[i]["step"].float()
                                  for i in chunk]).cpu()
            if bool((counts != counts[0]).any()):
                raise RuntimeError(
                    "sinter.torch.AdamW(capturable=True): parameters of "
                    "one device and dtype have different step counts %s; "
                    "they are updated by one program with one count" %
                    sorted(set(counts.tolist())))
        self._counts_checked.add(index)

    def _function(self, group, device, params, sharded):
        """The sinter.adamw function of `params`' shapes and dtypes (their
        local shards when `sharded`) and the group's hyperparameters (its
        IR built and its program looked up once per such key, not per
        step)."""
        beta1, beta2 = group["betas"]
        key = (device, beta1, beta2, group["eps"], group["weight_decay"],
               bool(group["capturable"]), sharded,
               tuple((p.shape, p.dtype) for p in params))
        functions = self.__dict__.setdefault("_functions", {})
        fn = functions.get(key)
        if fn is None:
            ir = _program_ir(group, params, sharded)
            fn = _cache.program(ir, _cache.target_of(device))["adamw"]
            functions[key] = fn
        return fn

    def _update(self, group, device, count, members):
        params = [p for p, _ in members]
        states = [s for _, s in members]
        steps = [s["step"] for s in states]
        torch._foreach_add_(steps, 1)
        # Capturable: the first parameter's count (on the device, the
        # others' equal: _check_counts) is read by the kernel.
        step = steps[0] if count is None else float(count) + 1
        sharded = _is_sharded(params)
        fn = self._function(group, device, params, sharded)
        grads = [p.grad if p.grad.dtype == p.dtype else p.grad.to(p.dtype)
                 for p in params]
        ms = [s["exp_avg"] for s in states]
        vs = [s["exp_avg_sq"] for s in states]
        tensors = params + grads + ms + vs
        if sharded:
            tensors = [_local(t) for t in tensors]
        lr = float(group["lr"])
        if device.type == "cuda":
            # In place: the outputs alias params, exp_avgs and exp_avg_sqs.
            n = len(params)
            tensors[n:2 * n] = [g if g.is_contiguous() else g.contiguous()
                                for g in tensors[n:2 * n]]
            if not all([t.is_contiguous() for t in tensors]):
                raise RuntimeError("sinter.torch.AdamW updates contiguous "
                                   "CUDA parameters in place")
            fn(*tensors, lr, step)
            return
        if isinstance(step, torch.Tensor):
            step = to_numpy(step)
        outs = fn(*[to_numpy(t) for t in tensors], lr, step)
        n = len(params)
        for dst, new in zip(tensors[:n] + tensors[2 * n:], outs):
            dst.copy_(from_numpy(new))
