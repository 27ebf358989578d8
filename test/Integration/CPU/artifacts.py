# Loading CPU artifacts (issue #17): a corrupt, truncated, mismatched or
# edited artifact is refused with a LoadError naming the file or the field,
# never run; only the entry points the compiler exported are called.
# Every case edits a freshly compiled artifact the way a bad copy, a bad
# disk or a hand edit would, in this process (a crash fails the test).
#
# REQUIRES: numpy
# RUN: %python %s %t | FileCheck %s

import ctypes
import hashlib
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402

work = sys.argv[1]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
gen = refs.rng("artifacts")

SCALE = """
func.func @scale(%x: tensor<64x32xf32>, %s: f32) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %s : f32
    linalg.yield %v : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
func.func @seeded(%x: tensor<4xi64>, %seed: i64) -> tensor<4xi64> {
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%a: i64, %o: i64):
    %v = arith.xori %a, %seed : i64
    linalg.yield %v : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}
"""
PRISTINE = os.path.join(work, "pristine")
sinter.compile(SCALE, fusion=False, out_dir=PRISTINE)
x = refs.random(gen, (64, 32), np.float32)


def fresh(name):
    """A copy of the compiled artifact to spoil."""
    d = os.path.join(work, name)
    shutil.copytree(PRISTINE, d)
    return d


def read_manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def write_manifest(d, manifest, resum=True):
    """Writes `manifest`; with `resum`, redoes SHA256SUMS as well (as
    someone who edits an artifact on purpose would)."""
    text = (manifest if isinstance(manifest, str)
            else json.dumps(manifest, indent=2)).encode()
    with open(os.path.join(d, "manifest.json"), "wb") as f:
        f.write(text)
    if resum:
        lines = []
        for name in ("manifest.json", "kernels.so"):
            with open(os.path.join(d, name), "rb") as f:
                lines.append("%s  %s\n"
                             % (hashlib.sha256(f.read()).hexdigest(), name))
        with open(os.path.join(d, "SHA256SUMS"), "w") as f:
            f.write("".join(lines))


def expect(exc_type, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        # Paths differ from run to run.
        print("%s: %s" % (type(e).__name__, str(e).replace(work, "<work>")))
        return
    raise AssertionError("expected %s" % exc_type.__name__)


def output(m):
    return m["functions"][0]["arguments"][2]


out = sinter.load(PRISTINE).run("scale", x, 2.0)
refs.assert_close("pristine artifact", out, refs.f64(x) * 2, atol=0)
# CHECK: pristine artifact: ok

# Item 8: an output shape smaller than what the kernel writes. The edit is
# caught by the checksum; redone checksums, by the bytes the shape must
# match; with those made to agree too, by the manifest digest in kernels.so.
d = fresh("smaller")
m = read_manifest(d)
output(m)["shape"] = [8, 32]
write_manifest(d, m, resum=False)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/smaller: manifest.json does not match its SHA-256 in SHA256SUMS ({{[0-9]+}} bytes with digest {{[0-9a-f]+}}, recorded {{[0-9a-f]+}}): the artifact is corrupt, truncated or was modified after it was compiled
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[2].bytes: 8192, but its shape and dtype make 1024
output(m)["bytes"] = 1024
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/smaller: manifest.json is not the manifest kernels.so was compiled with (SHA-256 {{[0-9a-f]+}}, kernels.so records {{[0-9a-f]+}}): refusing to run kernels with buffers described by another manifest

# Item 9: an argument's kind changed; an output removed.
d = fresh("kind")
m = read_manifest(d)
m["functions"][0]["arguments"][1]["kind"] = "buffer"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# (A scalar's shape is [] and its bytes its dtype's: the same numbers as a
# one-element buffer's, so the digest tells them apart.)
# CHECK: LoadError: <work>/kind: manifest.json is not the manifest kernels.so was compiled with
d = fresh("removed")
m = read_manifest(d)
del m["functions"][0]["arguments"][2]
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/removed: manifest.json is not the manifest kernels.so was compiled with

# Item 10: "symbol": "abort" (any symbol visible from kernels.so, libc's
# included, could be called) -- only the compiler's entry point of the
# function is.
d = fresh("abort")
m = read_manifest(d)
m["functions"][0]["symbol"] = "abort"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/abort/manifest.json: function 'scale': symbol 'abort' is not the entry point '_mlir_ciface_scale' among the artifact's entry_points
m["functions"][0]["symbol"] = "_mlir_ciface_seeded"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/abort/manifest.json: function 'scale': symbol '_mlir_ciface_seeded' is not the entry point '_mlir_ciface_scale'

# Item 11: a truncated or bit-flipped kernels.so is never opened.
d = fresh("truncated")
so = os.path.join(d, "kernels.so")
with open(so, "rb") as f:
    library = f.read()
with open(so, "wb") as f:
    f.write(library[:len(library) // 2])
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/truncated: kernels.so does not match its SHA-256 in SHA256SUMS
flipped = bytearray(library)
flipped[len(flipped) // 3] ^= 0x10
with open(so, "wb") as f:
    f.write(bytes(flipped))
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/truncated: kernels.so does not match its SHA-256 in SHA256SUMS

# Accepted silently before: float shapes, a changed dtype, duplicate
# function names, a missing key, an unknown one.
d = fresh("fields")
m = read_manifest(d)
m["functions"][0]["arguments"][0]["shape"] = [64.0, 32]
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[0].shape[0]: expected an integer >= 0, got 64.0
m = read_manifest(PRISTINE)
m["functions"][0]["arguments"][0]["dtype"] = "float64"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[0].bytes: 8192, but its shape and dtype make 16384
m["functions"][0]["arguments"][0]["bytes"] = 16384
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/fields: manifest.json is not the manifest kernels.so was compiled with
m = read_manifest(PRISTINE)
m["functions"][1]["name"] = "scale"
m["functions"][1]["symbol"] = "_mlir_ciface_scale"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[1].name: a second function named 'scale'
m = read_manifest(PRISTINE)
del m["functions"][0]["arguments"][0]["dtype"]
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[0]: missing key "dtype"
m = read_manifest(PRISTINE)
m["functions"][0]["arguments"][0]["stride"] = 1
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[0].stride: unknown key (not a field of argument)
m = read_manifest(PRISTINE)
m["functions"][0]["arguments"][0]["role"] = "inout"
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/{{[a-z]+}}/manifest.json: functions[0].arguments[0].role: expected one of "input", "output", got "inout"
write_manifest(d, '{"format_version": 2, "target": "cpu", "target": "cuda"}')
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/fields/manifest.json: a second member "target" in one object

# A JSON list or null is not a manifest; neither is an older format nor a
# directory without SHA256SUMS.
for text in ("[]", "null"):
    write_manifest(d, text)
    expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/fields/manifest.json: expected a JSON object, got list
# CHECK: LoadError: <work>/fields/manifest.json: expected a JSON object, got null
m = read_manifest(PRISTINE)
m["format_version"] = 1
write_manifest(d, m)
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/fields/manifest.json: manifest format 1 is not supported (this package reads format 2 for target "cpu"; recompile the artifact with this version of sinterc)
d = fresh("nosums")
os.remove(os.path.join(d, "SHA256SUMS"))
expect(sinter.LoadError, sinter.load, d)
# CHECK: LoadError: <work>/nosums has no SHA256SUMS: an artifact records the SHA-256 of its files there (the directory is incomplete)
expect(sinter.LoadError, sinter.load, None)
# CHECK: LoadError: sinter.load expects the path of an artifact directory, not NoneType

# Two programs compiled into one directory, loaded one after the other in
# one process: each runs its own kernels (the dynamic loader hands back a
# library already loaded under the same path, so each load opens its own
# copy).
SHIFT = SCALE.replace("arith.mulf %a, %s", "arith.addf %a, %s")
same = os.path.join(work, "same")
first = sinter.compile(SCALE, fusion=False, out_dir=same)
second = sinter.compile(SHIFT, fusion=False, out_dir=same)
refs.assert_close("first program", first.run("scale", x, 3.0),
                  refs.f64(x) * 3, atol=1e-5)
refs.assert_close("second program", second.run("scale", x, 3.0),
                  refs.f64(x) + 3, atol=1e-5)
# CHECK: first program: ok
# CHECK: second program: ok

# Where no private copy can be opened (a temporary directory mounted
# noexec), the artifact's own kernels.so is, and the loader hands back the
# library first loaded from that path: the manifest digest it records
# refuses it for the second program instead of running its kernels.
real_cdll = ctypes.CDLL


def no_private_copies(name, *args, **kwargs):
    if "sinter-load-" in str(name):
        raise OSError("a noexec temporary directory")
    return real_cdll(name, *args, **kwargs)


ctypes.CDLL = no_private_copies
try:
    same = os.path.join(work, "same-noexec")
    first = sinter.compile(SCALE, fusion=False, out_dir=same)
    refs.assert_close("first program, no private copy",
                      first.run("scale", x, 3.0), refs.f64(x) * 3, atol=1e-5)
    expect(sinter.LoadError, sinter.compile, SHIFT, fusion=False,
           out_dir=same)
finally:
    ctypes.CDLL = real_cdll
# CHECK: first program, no private copy: ok
# CHECK: LoadError: <work>/same-noexec: manifest.json is not the manifest kernels.so was compiled with

# Scalars that do not fit their integer type are refused, not wrapped.
prog = sinter.load(PRISTINE)
v = np.arange(4, dtype=np.int64)
print(prog.run("seeded", v, 2**63 - 1).tolist() == (v ^ (2**63 - 1)).tolist())
# CHECK: True
expect(sinter.ArgumentError, prog.run, "seeded", v, 2**64)
# CHECK: ArgumentError: seeded: argument 1 ('seed'): 18446744073709551616 does not fit int64 (-9223372036854775808 to 9223372036854775807)
expect(sinter.ArgumentError, prog.run, "seeded", v, -2**63 - 1)
# CHECK: ArgumentError: seeded: argument 1 ('seed'): -9223372036854775809 does not fit int64

print("ALL PASSED")
# CHECK: ALL PASSED
