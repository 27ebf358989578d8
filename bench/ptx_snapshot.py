#!/usr/bin/env python3
# Part of the Sinter project.
"""PTX of every attention kernel form, to check that a refactoring of the
attention builders leaves the generated code alone.

    python3 bench/ptx_snapshot.py snap /work/ptx-baseline      # before
    python3 bench/ptx_snapshot.py snap /work/ptx-after          # after
    python3 bench/ptx_snapshot.py compare /work/ptx-baseline /work/ptx-after \
        [--ptxas]

`snap` compiles each case with sinterc (--emit=ptx) or, for the lit tests'
own PTX RUN lines, sinter-opt, and writes <dir>/<case>.ptx (or the
compiler's error, for a configuration it rejects) and <dir>/index.tsv
(case, sha256, command). Needs no GPU.

The cases:
  * every attention case of test/Integration/GPU/gpu_cases.py (the GPU
    suite's correctness cases with their forced configurations, and the
    benchmark shapes with the shipped table's), and the GPT block, for
    sm_90a and sm_80;
  * every candidate configuration of bench/autotune_attention.py at head
    dims 64, 128 and 256, causal and not, with a ragged GQA shape, on
    sm_90a; the mma.sync candidates on sm_80 too;
  * every entry of lib/GPU/Attention/AttentionConfigs.inc on its chip;
  * the CUDA-core kernel (f32; bf16 forced with cuda-cores), masks, lse,
    dropout;
  * the PTX RUN lines of test/GPU/attention-*.mlir, as written.

`compare` says which cases are byte-identical; for the others it compares
the instruction sequences with register names and inline-asm markers
abstracted away and, with --ptxas, the registers, spills and stack that
`ptxas -v -arch=<chip>` reports per kernel. It also counts the distinct
kernels (.entry bodies) of the corpus.
"""

import argparse
import concurrent.futures
import hashlib
import itertools
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "GPU"))
sys.path.insert(0, HERE)

import gpu_cases  # noqa: E402
from autotune_attention import CANDIDATES  # noqa: E402

TABLE_CANDIDATES = [os.path.join(ROOT, "lib", "GPU", "Attention",
                                 "AttentionConfigs.inc"),
                    os.path.join(ROOT, "lib", "GPU", "AttentionConfigs.inc")]


def _tt(shape, t):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), t)


def attention_source(B, Hq, Hkv, Sq, Skv, D, t, causal):
    q, kv = _tt([B, Hq, Sq, D], t), _tt([B, Hkv, Skv, D], t)
    return ("func.func @main(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = sinter.attention %%q, %%k, %%v%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, kv, kv, q,
                                        " {causal}" if causal else "",
                                        q, kv, kv, q, q))


def sinterc_cases():
    """(name, mlir text, chip, extra flags) of the sinterc cases."""
    cases = []
    suite = [c for c in gpu_cases.correctness_cases()
             if c[0].startswith("attention") or c[0] == "gpt_block_f32"]
    suite += gpu_cases.attention_bench_cases()
    seen = set()
    for name, ir, *_ in suite:
        if name in seen:
            continue
        seen.add(name)
        flags = gpu_cases.FLAGS.get(name, [])
        cfg = " ".join(flags)
        for chip in ("sm_90a", "sm_80"):
            # sm_80 cannot run the wgmma forms: the suite's sm_90a-only
            # cases are compiled for sm_90a alone.
            if chip == "sm_80" and "wgmma" in cfg:
                continue
            cases.append(("suite-%s-%s" % (chip, name), ir, chip, flags))
    # The tuner's candidates on a ragged GQA shape per head dim and mask.
    shapes = [(1, 4, 2, 200, 333, d, "bf16", causal)
              for d in (64, 128, 256) for causal in (False, True)]
    for shape, cfg in itertools.product(shapes, CANDIDATES):
        B, Hq, Hkv, Sq, Skv, D, t, causal = shape
        tag = "d%d%s-%s" % (D, "c" if causal else "",
                            cfg.replace(",", "_").replace("=", ""))
        ir = attention_source(*shape)
        cases.append(("cand-sm_90a-" + tag, ir, "sm_90a",
                      ["--attention-config=" + cfg]))
        if "wgmma" not in cfg and D == 128:
            cases.append(("cand-sm_80-" + tag, ir, "sm_80",
                          ["--attention-config=" + cfg]))
    # The shipped table's entries, each on its chip, and the table's own
    # pick (no --attention-config) for f16 and bf16 at every head dim.
    table = next(p for p in TABLE_CANDIDATES if os.path.exists(p))
    entries = re.findall(r'^SINTER_ATTENTION_CONFIG\((\d+), "([^"]+)", '
                         r'(\d+), (true|false), (\d+), "([^"]+)"\)',
                         open(table).read(), re.M)
    for i, (sm, dtypes, d, causal, max_seq, cfg) in enumerate(entries):
        chip = "sm_90a" if int(sm) >= 90 else "sm_%s" % sm
        ir = attention_source(1, 2, 2, 96, 96, int(d), "bf16",
                              causal == "true")
        cases.append(("table-%d" % i, ir, chip,
                      ["--attention-config=" + cfg]))
    for chip, t, d, causal, s in itertools.product(
            ("sm_90a", "sm_80"), ("bf16", "f16"), (64, 128, 256),
            (False, True), (512, 4096)):
        ir = attention_source(1, 2, 2, s, s, d, t, causal)
        cases.append(("pick-%s-%s-d%d%s-s%d" % (chip, t, d,
                                                "c" if causal else "", s),
                      ir, chip, []))
    # The CUDA-core kernel.
    for chip, t, d, causal in itertools.product(
            ("sm_90a", "sm_80"), ("f32", "bf16"), (32, 64, 128),
            (False, True)):
        ir = attention_source(1, 4, 2, 77, 130, d, t, causal)
        cases.append(("cores-%s-%s-d%d%s" % (chip, t, d, "c" if causal else
                                             ""), ir, chip,
                      ["--attention-config=cuda-cores"]))
    return cases


def lit_cases():
    """(name, sinter-opt arguments) of the PTX RUN lines of the attention
    lit tests."""
    out = []
    gpu = os.path.join(ROOT, "test", "GPU")
    for fn in sorted(os.listdir(gpu)):
        if not (fn.startswith("attention") and fn.endswith(".mlir")):
            continue
        path = os.path.join(gpu, fn)
        for i, line in enumerate(open(path)):
            m = re.match(r"// RUN: sinter-opt %s (.*--sinter-lower-to-nvvm="
                         r"\"[^\"]*format=isa[^\"]*\")", line)
            if m:
                args = shlex.split(m.group(1).replace("%s", path))
                out.append(("lit-%s-%d" % (fn[:-5], i + 1), [path] + args))
    return out


def lit_ptx(text):
    """sinter-opt's output with each gpu.binary's PTX decoded (MLIR prints
    it as an escaped string) after the module, and the compile time the
    binary records dropped."""
    text = re.sub(r"LLVMIRToISATimeInMs = \d+ : i64, ", "", text)
    ptx = []

    def decode(m):
        ptx.append(re.sub(r"\\([0-9A-Fa-f]{2})",
                          lambda h: chr(int(h.group(1), 16)), m.group(1)))
        return 'assembly = "<PTX %d below>"' % (len(ptx) - 1)

    text = re.sub(r'assembly = "((?:[^"\\]|\\.)*)"', decode, text)
    return text + "".join("\n// PTX %d\n%s" % (i, p)
                          for i, p in enumerate(ptx))


def run_case(case, out_dir, tools):
    kind, name = case[0], case[1]
    if kind == "sinterc":
        _, name, ir, chip, flags = case
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as f:
            f.write(ir)
            src = f.name
        cmd = [tools["sinterc"], src, "--target=cuda:" + chip, "--emit=ptx",
               "-o", "-", "--quiet"] + list(flags)
        r = subprocess.run(cmd, capture_output=True, text=True)
        os.unlink(src)
        shown = ["sinterc", "<%s>" % name, "--target=cuda:" + chip,
                 "--emit=ptx"] + list(flags)
    else:
        _, name, args = case
        cmd = [tools["sinter-opt"]] + args
        r = subprocess.run(cmd, capture_output=True, text=True)
        r.stdout = lit_ptx(r.stdout)
        shown = ["sinter-opt"] + [os.path.relpath(a, ROOT)
                                  if a.startswith(ROOT) else a for a in args]
    if r.returncode == 0:
        text = r.stdout
    else:
        # A rejected configuration: its message is part of the behaviour.
        err = [l for l in r.stderr.splitlines() if "error" in l]
        text = "REJECTED\n" + "\n".join(
            re.sub(r"^/tmp/\S+?:\d+:\d+: ", "", l) for l in err) + "\n"
    with open(os.path.join(out_dir, name + ".ptx"), "w") as f:
        f.write(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return name, digest, " ".join(shlex.quote(s) for s in shown)


def snap(args):
    os.makedirs(args.dir, exist_ok=True)
    tools = {"sinterc": os.path.join(args.build, "bin", "sinterc"),
             "sinter-opt": os.path.join(args.build, "bin", "sinter-opt")}
    cases = [("sinterc",) + c for c in sinterc_cases()]
    cases += [("lit",) + c for c in lit_cases()]
    if args.only:
        cases = [c for c in cases if re.search(args.only, c[1])]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(run_case, c, args.dir, tools) for c in cases]
        for i, fut in enumerate(futs):
            name, digest, cmd = fut.result()
            rows.append((name, digest, cmd))
            if args.verbose:
                print("[%d/%d] %s %s" % (i + 1, len(cases), digest[:12],
                                         name), flush=True)
    with open(os.path.join(args.dir, "index.tsv"), "w") as f:
        for row in sorted(rows):
            f.write("\t".join(row) + "\n")
    kernels = distinct_kernels(args.dir, [r[0] for r in rows])
    rejected = sum(1 for r in rows if open(os.path.join(
        args.dir, r[0] + ".ptx")).read().startswith("REJECTED"))
    print("%d cases (%d rejected configurations), %d distinct attention "
          "kernels -> %s" % (len(rows), rejected, len(kernels), args.dir))


def read_index(d):
    rows = {}
    for line in open(os.path.join(d, "index.tsv")):
        name, digest, cmd = line.rstrip("\n").split("\t")
        rows[name] = (digest, cmd)
    return rows


ENTRY = re.compile(r"^\.(?:visible|weak)? ?\.entry (\w+)\(", re.M)


def entries(text):
    """{kernel name: its PTX from .entry to the closing brace}."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in ENTRY.finditer(text)]
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out[name] = text[pos:end]
    return out


def distinct_kernels(d, names):
    seen = set()
    for n in names:
        text = open(os.path.join(d, n + ".ptx")).read()
        for k, body in entries(text).items():
            if k.startswith("attention"):
                seen.add(hashlib.sha256(body.encode()).hexdigest())
    return seen


REG = re.compile(r"%(r|rd|f|fd|p|rs|h|hh|ssa|rq)[0-9]+")


def normalized(text):
    """The instructions of `text` with register numbers, register
    declarations, inline-asm markers, comments, labels, spacing and hex
    immediates abstracted."""
    out = []
    labels = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("//") or s.startswith(".reg"):
            continue
        s = re.sub(r"//.*", "", s).strip()
        s = re.sub(r"\s+", " ", s)
        s = re.sub(r"\b0x([0-9a-fA-F]+)\b",
                   lambda m: str(int(m.group(1), 16)), s)
        s = REG.sub(lambda m: "%" + m.group(1), s)
        s = re.sub(r"\$L__\w+", lambda m: labels.setdefault(
            m.group(0), "L%d" % len(labels)), s)
        out.append(s)
    return out


def ptxas_module_stats(text, chip, prefix=""):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(text)
        f.flush()
        r = subprocess.run(["/usr/local/cuda/bin/ptxas", "-v",
                            "-arch=" + chip, f.name, "-o", os.devnull],
                           capture_output=True, text=True)
    stats, fn = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            fn = prefix + m.group(1)
            stats[fn] = []
            continue
        if fn and ("Used" in line or "stack frame" in line):
            stats[fn].append(re.sub(r"^ptxas info\s*:\s*", "", line.strip()))
    if r.returncode != 0:
        stats[prefix + "<ptxas error>"] = [r.stderr.strip()[-300:]]
    return stats


def ptxas_stats(path, chip):
    """{kernel: ptxas -v lines} of the PTX in `path` (a lit case's file
    holds sinter-opt's module and then the PTX of each binary)."""
    text = open(path).read()
    if text.startswith("//\n// Generated by LLVM NVPTX"):
        return ptxas_module_stats(text, chip)
    stats = {}
    for i, ptx in enumerate(re.split(r"\n// PTX \d+\n", text)[1:]):
        m = re.search(r"^\.target (sm_\w+)", ptx, re.M)
        stats.update(ptxas_module_stats(ptx, m.group(1) if m else chip,
                                        "binary%d:" % i))
    return stats


def chip_of(cmd):
    m = re.search(r"(?:cuda:|chip=)(sm_\w+)", cmd)
    return m.group(1) if m else "sm_90a"


def compare(args):
    a, b = read_index(args.before), read_index(args.after)
    missing = sorted(set(a) ^ set(b))
    same, normsame, differ = [], [], []
    for name in sorted(set(a) & set(b)):
        if a[name][0] == b[name][0]:
            same.append(name)
            continue
        ta = open(os.path.join(args.before, name + ".ptx")).read()
        tb = open(os.path.join(args.after, name + ".ptx")).read()
        (normsame if normalized(ta) == normalized(tb) else differ).append(
            name)
    kernels = distinct_kernels(args.after, list(b))
    print("%d cases, %d distinct attention kernels: %d byte-identical, "
          "%d identical modulo register names, %d differ%s" % (
              len(set(a) & set(b)), len(kernels), len(same), len(normsame),
              len(differ), (", %d only on one side: %s" %
                            (len(missing), " ".join(missing[:5]) +
                             (" ..." if len(missing) > 5 else ""))
                            if missing else "")))
    for name in differ[:args.show]:
        print("  differs:", name)
    if args.ptxas:
        regress = 0
        checked = 0
        for name in normsame + differ:
            pa = os.path.join(args.before, name + ".ptx")
            if open(pa).read().startswith("REJECTED"):
                continue
            chip = chip_of(a[name][1])
            sa = ptxas_stats(pa, chip)
            sb = ptxas_stats(os.path.join(args.after, name + ".ptx"), chip)
            checked += 1
            if sa != sb:
                regress += 1
                print("  ptxas -v differs:", name)
                for k in sorted(set(sa) | set(sb)):
                    if sa.get(k) != sb.get(k):
                        print("    %s\n      before: %s\n      after:  %s"
                              % (k, sa.get(k), sb.get(k)))
        print("ptxas -v: %d of %d non-identical cases report the same "
              "registers, spills and stack" % (checked - regress, checked))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snap")
    s.add_argument("dir")
    s.add_argument("--build", default=os.path.join(ROOT, "build"))
    s.add_argument("--jobs", "-j", type=int, default=1)
    s.add_argument("--only", help="regex over case names")
    s.add_argument("--verbose", "-v", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--ptxas", action="store_true")
    c.add_argument("--show", type=int, default=20)
    a = p.parse_args()
    snap(a) if a.cmd == "snap" else compare(a)


if __name__ == "__main__":
    main()
