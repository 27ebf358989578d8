# Part of the Sinter project.
"""sinter.load of CUDA artifacts through the stand-in driver (see
python-cuda-artifacts.test): a corrupt or edited artifact is refused with
a LoadError naming the file or the field before anything reaches the
driver; scalars that do not fit their type are refused, not wrapped."""

import hashlib
import json
import os
import shutil
import sys

import sinter

work = sys.argv[1]
pristine = os.path.join(work, "dropout")


def fresh(name):
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(pristine, d)
    return d


def expect(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type as e:
        print("%s: %s" % (type(e).__name__, str(e).replace(work, "<work>")))
        return
    raise AssertionError("expected %s" % exc_type.__name__)


def rewrite(d, edit, resum=True):
    path = os.path.join(d, "manifest.json")
    with open(path) as f:
        m = json.load(f)
    m = edit(m)
    text = json.dumps(m, indent=2).encode()
    with open(path, "wb") as f:
        f.write(text)
    if resum:
        lines = []
        for name in ("manifest.json", "kernels.cubin", "kernels.ptx"):
            with open(os.path.join(d, name), "rb") as f:
                lines.append("%s  %s\n"
                             % (hashlib.sha256(f.read()).hexdigest(), name))
        with open(os.path.join(d, "SHA256SUMS"), "w") as f:
            f.write("".join(lines))


prog = sinter.load(pristine)
print(type(prog).__name__, sorted(prog.functions))

# A truncated cubin: refused by the runtime before cuModuleLoadData.
d = fresh("truncated")
with open(os.path.join(d, "kernels.cubin"), "r+b") as f:
    f.truncate(100)
expect(sinter.LoadError, sinter.load, d)

# An output made smaller: the checksum; with it redone, the bytes of the
# shape.
def smaller(m):
    out = m["functions"][0]["arguments"][-1]
    out["shape"] = [64, 16]
    return m


d = fresh("smaller")
rewrite(d, smaller, resum=False)
expect(sinter.LoadError, sinter.load, d)
rewrite(d, smaller)
expect(sinter.LoadError, sinter.load, d)

# A kernel the compiler did not emit.
def other_kernel(m):
    m["functions"][0]["launches"][0]["kernel"] = "abort"
    return m


d = fresh("kernel")
rewrite(d, other_kernel)
expect(sinter.LoadError, sinter.load, d)

# A JSON list is not a manifest.
d = fresh("list")
rewrite(d, lambda m: [m])
expect(sinter.LoadError, sinter.load, d)

# Scalars (the dropout seed, i64) are checked before they reach ctypes.
f = prog["dropout_residual"]
seed = f.inputs[2]
print(f._scalar(2, seed, 2**63 - 1).value)
expect(sinter.ArgumentError, f._scalar, 2, seed, 2**64)
expect(sinter.ArgumentError, f._scalar, 2, seed, "7")
print("ALL PASSED")
