# backend="sinter" inside torch's distributed engines, on the CPU with the
# gloo backend and two processes: DistributedDataParallel (small buckets,
# so that Dynamo's DDPOptimizer splits the graph at bucket boundaries) and
# FSDP2 (fully_shard per block and at the root), each with
# torch.compile(backend="sinter") and sinter.torch.AdamW (on each rank's
# shards under FSDP2). Both must follow a single process that trains the
# same model in eager torch on the whole global batch: the first step's
# gradients (all-reduced, or reduce-scattered and gathered here) and every
# step's loss (parameters are not compared: Adam turns a 1e-9 difference
# of a near-zero gradient into a full learning-rate step), and the two ranks,
# sharing one cache directory, must compile each program once between them
# (one compiles under the cache's lock, the other loads it).
#
# REQUIRES: torch, torch_mlir
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t ddp %sinter_src_root/bench 2>&1 | FileCheck %s --check-prefix=DDP
# RUN: %python %s %t fsdp2 %sinter_src_root/bench 2>&1 | FileCheck %s --check-prefix=FSDP

# DDP: ddp: losses match one process: True
# DDP: ddp: first gradients match one process: True
# DDP: ddp: programs compiled once across ranks: True
# FSDP: fsdp2: losses match one process: True
# FSDP: fsdp2: first gradients match one process: True
# FSDP: fsdp2: programs compiled once across ranks: True

import json
import logging
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

OUT, ENGINE, BENCH = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, BENCH)
from train_gpt2 import GPT, wrap  # noqa: E402

WORLD, STEPS, BATCH, SEQ = 2, 3, 4, 32  # BATCH: the global batch


def make_model():
    torch.manual_seed(0)
    return GPT(vocab=512, seq=SEQ, layers=3, d=128, heads=4)


def batches():
    gen = torch.Generator().manual_seed(1)
    return [torch.randint(0, 512, (BATCH, SEQ + 1), generator=gen)
            for _ in range(STEPS)]


def single_process():
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses, grads = [], None
    for x in batches():
        opt.zero_grad()
        loss = model(x[:, :-1], x[:, 1:])
        loss.backward()
        if grads is None:
            grads = full_grads(model)
        opt.step()
        losses.append(loss.item())
    return losses, grads


def full_grads(model):
    """Every parameter's gradient, whole (FSDP2's are sharded DTensors)."""
    out = {}
    for name, p in model.named_parameters():
        name = name.replace("module.", "", 1)
        full = getattr(p.grad, "full_tensor", None)
        out[name] = (full() if full else p.grad).detach().clone()
    return out


def rank_main(rank, engine):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533",
                      SINTER_CACHE_DIR=os.path.join(OUT, "cache"))
    log = os.path.join(OUT, "%s-rank%d.log" % (engine, rank))
    handler = logging.FileHandler(log, mode="w")
    logging.getLogger("sinter.torch").addHandler(handler)
    logging.getLogger("sinter.torch").setLevel(logging.INFO)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    import sinter.torch as st
    # Under DDP, 1 MB buckets (Dynamo's first-bucket size) over ~2.7 MB of
    # parameters, three buckets, so the graph is split twice.
    model = wrap(make_model(), engine, bucket_cap_mb=1)
    opt = st.AdamW(model.parameters(), lr=1e-2)
    step = torch.compile(model, backend="sinter", dynamic=False)
    local = BATCH // WORLD
    losses, grads = [], None
    for x in batches():
        x = x[rank * local:(rank + 1) * local]
        opt.zero_grad()
        loss = step(x[:, :-1], x[:, 1:])
        loss.backward()
        if grads is None:
            grads = full_grads(model)
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        losses.append(mean.item() / WORLD)
    if rank == 0:
        torch.save({"losses": losses, "grads": grads},
                   os.path.join(OUT, engine + ".pt"))
    dist.barrier()
    dist.destroy_process_group()


def compile_counts(engine):
    compiled = cached = 0
    for rank in range(WORLD):
        with open(os.path.join(OUT, "%s-rank%d.log" % (engine, rank))) as f:
            for line in f:
                compiled += " compiled for " in line
                cached += " from the cache " in line
    return compiled, cached


def main():
    mp.spawn(rank_main, args=(ENGINE,), nprocs=WORLD, join=True)
    ref_losses, ref_grads = single_process()
    got = torch.load(os.path.join(OUT, ENGINE + ".pt"))
    loss_diff = max(abs(a - b) for a, b in zip(ref_losses, got["losses"]))
    assert sorted(got["grads"]) == sorted(ref_grads)
    grad_diff, worst = max(((ref_grads[n] - g).abs().max().item() /
                            max(ref_grads[n].abs().max().item(), 1e-12), n)
                           for n, g in got["grads"].items())
    print("%s: losses %s vs %s" % (ENGINE, json.dumps(got["losses"]),
                                   json.dumps(ref_losses)))
    print("%s: losses match one process: %s" % (ENGINE, loss_diff < 1e-4))
    print("%s: first gradients match one process: %s (largest difference "
          "%.2e of the largest element, in %s)" % (
              ENGINE, grad_diff < 1e-3, grad_diff, worst))
    compiled, cached = compile_counts(ENGINE)
    artifacts = [d for d in os.listdir(os.path.join(OUT, "cache"))
                 if len(d) == 32]
    # Each program compiled by one rank; the other rank (and, for the second
    # engine, both) found it in the cache.
    print("%s: programs compiled once across ranks: %s (%d compiled, %d "
          "from the cache, %d artifacts)" % (
              ENGINE, compiled <= len(artifacts) and cached >= compiled,
              compiled, cached, len(artifacts)))


if __name__ == "__main__":
    main()
