# The torch integration's on-disk cache: a program compiles once and a
# second process loads it; an artifact stamped by another build of the
# compiler (its version and library digest, `compiled_by`) compiles again;
# an entry is compiled under a lock file beside it.
#
# REQUIRES: torch
# RUN: rm -rf %t.cache
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s 2>&1 | FileCheck %s --check-prefix=FIRST
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s 2>&1 | FileCheck %s --check-prefix=SECOND
# RUN: env SINTER_CACHE_DIR=%t.cache %python %s stale 2>&1 | FileCheck %s --check-prefix=STALE

# FIRST: compiled for cpu
# FIRST: stamp is this build: True
# FIRST: lock file beside the entry: True
# SECOND-NOT: compiled for cpu
# SECOND: from the cache
# STALE: compiled for cpu
# STALE: stamp is this build: True

import logging
import os
import sys

import numpy as np

from sinter import _capi
from sinter.torch import _cache

logging.basicConfig(level=logging.INFO, format="%(message)s")
IR = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>)
      outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
"""
entry = os.path.join(_cache.cache_dir(), _cache.key_of(IR, "cpu"))
if sys.argv[1:] == ["stale"]:
    with open(os.path.join(entry, "compiled_by"), "w") as f:
        f.write("0.1.0+another-build")
prog = _cache.program(IR, "cpu")
assert np.array_equal(prog["main"](np.arange(4, dtype=np.float32)),
                      2 * np.arange(4, dtype=np.float32))
with open(os.path.join(entry, "compiled_by")) as f:
    print("stamp is this build:", f.read() == _capi.build_id())
print("lock file beside the entry:", os.path.exists(entry + ".lock"))
