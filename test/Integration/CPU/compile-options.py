# Compile options (issue #17): sinter.compile(**options), the C API's one
# entry that takes an option string (sinter_compile) and its deprecated
# predecessors all set the options one table declares
# (sinter/Target/CompileOptions.h); bad arguments are OptionErrors naming
# the option, never a bare AttributeError or a crash.
#
# REQUIRES: numpy
# RUN: %python %s %t | FileCheck %s

import ctypes
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402
import sinter  # noqa: E402
from sinter import _capi  # noqa: E402

work = sys.argv[1]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

SOFTMAX = """
func.func @softmax(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<4x32xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x32xf32>)
      outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
"""


def expect(exc_type, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        print("%s: %s" % (type(e).__name__, e))
        return
    raise AssertionError("expected %s" % exc_type.__name__)


# A fusion pipeline option (FusionOptions' "report") reaches the pipeline
# through **options, a value with a space included.
report = os.path.join(work, "fusion report.json")
prog = sinter.compile(SOFTMAX, report=report)
x = refs.random(refs.rng("compile-options"), (4, 32), np.float32)
e = np.exp(refs.f64(x) - refs.f64(x).max(axis=1, keepdims=True))
refs.assert_close("softmax", prog.run("softmax", x),
                  e / e.sum(axis=1, keepdims=True), atol=1e-6)
# CHECK: softmax: ok
with open(report) as f:
    print("report:", sorted(json.load(f))[:1])
# CHECK: report: [

# Arguments of the wrong type, unknown options and bad values.
expect(sinter.OptionError, sinter.compile, SOFTMAX, target=None)
# CHECK: OptionError: target must be a non-empty str such as 'cpu' or 'cuda:sm_90a', not None
expect(sinter.OptionError, sinter.compile, SOFTMAX, fusion="yes")
# CHECK: OptionError: fusion must be True or False, not 'yes'
expect(sinter.OptionError, sinter.compile, SOFTMAX, tpu_mode=True)
# CHECK: OptionError: sinter_compile: unknown option 'tpu-mode'
expect(sinter.OptionError, sinter.compile, SOFTMAX, cuda_row_vectors="four")
# CHECK: OptionError: sinter_compile: option 'cuda-row-vectors': invalid value 'four'
expect(sinter.OptionError, sinter.compile, SOFTMAX, attention_config=1.5)
# CHECK: OptionError: option attention_config: expected a bool, an int or a str, got float
expect(sinter.OptionError, sinter.compile, SOFTMAX, emit='a"b')
# CHECK: OptionError: option emit: 'a"b' cannot be passed
expect(TypeError, sinter.compile, None)
# CHECK: TypeError: ir_text must be str or bytes, not NoneType
# None leaves an option at its default.
sinter.compile(SOFTMAX, attention_config=None, cuda_matmul=None)
print("None is the default")
# CHECK: None is the default

# The C API: one entry that takes sinterc's options as a string.
lib = _capi.capi()
error = ctypes.c_void_p()
ir = SOFTMAX.encode()
for options, out in ((b'--target=cpu no-fusion=false report="%s"'
                      % os.path.join(work, "c api.json").encode(), "c1"),
                     (b"target=tpu", "c2"), (b"no-such-option", "c3"),
                     (None, "c4")):
    rc = lib.sinter_compile(ir, len(ir), b"softmax.mlir",
                            os.path.join(work, out).encode(), options,
                            ctypes.byref(error))
    text = ""
    if error.value:
        text = ctypes.string_at(error.value).decode().strip()
        lib.sinter_free_string(error)
        error = ctypes.c_void_p()
    print("sinter_compile(%r) -> %d %s" % (options, rc, text))
# CHECK: sinter_compile(b'--target=cpu no-fusion=false report="{{.*}}c api.json"') -> 0
# CHECK: sinter_compile(b'target=tpu') -> 1 softmax.mlir:0:0: error: unknown target 'tpu'
# CHECK: sinter_compile(b'no-such-option') -> 2 sinter_compile: unknown option 'no-such-option'
# CHECK: sinter_compile(None) -> 0
print(sorted(sinter.load(os.path.join(work, "c1")).functions),
      os.path.exists(os.path.join(work, "c api.json")))
# CHECK: ['softmax'] True

# The entries before it still work, as wrappers of it.
lib.sinter_compile_to_dir.argtypes = [
    ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p,
    ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
for target in (b"cpu", b"tpu", None):
    rc = lib.sinter_compile_to_dir(ir, len(ir), target,
                                   os.path.join(work, "old").encode(), 1,
                                   ctypes.byref(error))
    if error.value:
        lib.sinter_free_string(error)
        error = ctypes.c_void_p()
    print("sinter_compile_to_dir(%r) -> %d" % (target, rc))
# CHECK: sinter_compile_to_dir(b'cpu') -> 0
# CHECK: sinter_compile_to_dir(b'tpu') -> 1
# CHECK: sinter_compile_to_dir(None) -> 0

print("ALL PASSED")
# CHECK: ALL PASSED
