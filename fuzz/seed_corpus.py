#!/usr/bin/env python3
# Part of the Sinter project.
"""Writes the fuzz targets' seed corpora from files committed in the repo.

  seed_corpus.py <repo> <out>

<out>/compiler: every chunk of test/**/*.mlir (split at `// -----` and at
split-file's `//--- name` markers), examples/*.mlir, the real model IR of
test/Frontends/Inputs and the reproducers of fuzz/corpus/compiler.
<out>/manifest: fuzz/corpus/manifest (manifests and SHA256SUMS of compiled
artifacts, refreshed with fuzz/update_manifest_seeds.sh).
Inputs larger than MAX_BYTES are left out: the fuzzer's -max_len.
"""
import glob
import hashlib
import os
import re
import shutil
import sys

MAX_BYTES = 65536


def chunks(text):
    """The inputs of a test file, without its comment lines (CHECK lines and
    prose: mutations there would only rerun the same program)."""
    if "\n//--- " in "\n" + text:
        parts = re.split(r"^//--- .*$", text, flags=re.M)[1:]
    else:
        parts = re.split(r"^// -----\s*$", text, flags=re.M)
    parts = [re.sub(r"^\s*//.*\n?", "", p, flags=re.M) for p in parts]
    return [p.strip() + "\n" for p in parts if p.strip()]


def write(directory, data):
    data = data.encode() if isinstance(data, str) else data
    if len(data) > MAX_BYTES:
        return 0
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)
    return 1


def main(repo, out):
    compiler = os.path.join(out, "compiler")
    manifest = os.path.join(out, "manifest")
    for d in (compiler, manifest):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    n = 0
    for path in sorted(glob.glob(os.path.join(repo, "test", "**", "*.mlir"),
                                 recursive=True) +
                       glob.glob(os.path.join(repo, "examples", "*.mlir")) +
                       glob.glob(os.path.join(repo, "fuzz", "corpus",
                                              "compiler", "*"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            for chunk in chunks(f.read()):
                n += write(compiler, chunk)
    m = 0
    for path in sorted(glob.glob(os.path.join(repo, "fuzz", "corpus",
                                              "manifest", "*"))):
        with open(path, "rb") as f:
            m += write(manifest, f.read())
    print("seed corpus: %d compiler inputs, %d manifest inputs" % (n, m))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
