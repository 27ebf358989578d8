# The wheel (`make wheel`, docs/Wheel.md), installed into a fresh virtual
# environment and used from there with no Sinter build on any path: the
# package and both native libraries come from the venv, the compiler library
# needs nothing but libc and libm (MLIR and LLVM are inside it), it compiles
# and runs a program on the CPU, compiles for the H200 with the ptxas it
# carries, and torch finds backend="sinter" through the entry point.
#
# REQUIRES: numpy, wheel
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %sinter_src_root/tools/wheel/make_wheel.py --build-dir %sinter_obj_root --out-dir %t/dist | FileCheck %s --check-prefix=BUILD
# RUN: %python -m venv --without-pip --system-site-packages %t/venv
# RUN: %python -m pip --python %t/venv/bin/python install --quiet --no-deps --no-index --disable-pip-version-check %t/dist/sinter-*.whl
# RUN: cd %t && env -u PYTHONPATH -u SINTER_LIB_DIR -u SINTER_CUDA_PATH -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT %t/venv/bin/python %s %sinter_src_root/tools/wheel | FileCheck %s

# BUILD: make_wheel: {{.*}}/sinter-0.1.0-py3-none-manylinux_2_{{[0-9]+}}_x86_64.whl

import importlib.metadata as metadata
import os
import subprocess
import sys
import tempfile

import numpy as np

import sinter
from sinter import _capi

venv = os.path.realpath(sys.prefix)


def inside(path):
    return os.path.realpath(path).startswith(venv + os.sep)


# CHECK: package from the venv: True
print("package from the venv:", inside(sinter.__file__))
lib = sinter.library_path()
# CHECK: compiler from the venv: True
print("compiler from the venv:", inside(lib))
needed = subprocess.run(["readelf", "-d", lib], check=True,
                        capture_output=True, text=True).stdout
needed = sorted(line.split("[")[1].rstrip("]") for line in needed.splitlines()
                if "(NEEDED)" in line)
# CHECK: compiler needs: ['ld-linux-x86-64.so.2', 'libc.so.6', 'libm.so.6']
print("compiler needs:", needed)
# CHECK: version: 0.1.0
print("version:", sinter.version())

# CPU: a LayerNorm and a residual add, fused, against numpy (the program
# and reference of tools/wheel/smoke.py).
sys.path.insert(0, sys.argv[1])
import smoke  # noqa: E402

IR = smoke.IR % dict(n=4, d=256, t="f32")
rng = np.random.default_rng(0)
x = rng.standard_normal((4, 256), dtype=np.float32)
w = rng.standard_normal(256, dtype=np.float32)
b = rng.standard_normal(256, dtype=np.float32)
got = sinter.compile(IR).run("main", x, w, b)
want = smoke.reference(x, w, b)
# CHECK: cpu max error below 1e-5: True
print("cpu max error below 1e-5:", float(np.abs(got - want).max()) < 1e-5)

# CUDA: compiled here (no GPU needed) with the wheel's ptxas and libdevice.
out = tempfile.mkdtemp()
_capi.compile_to_dir(IR, out, "wheel.mlir",
                     _capi.option_string(dict(target="cuda:sm_90a")))
# CHECK: toolkit from the venv: True
print("toolkit from the venv:", inside(os.environ["SINTER_CUDA_PATH"]))
# CHECK: cuda artifact: ['SHA256SUMS', 'kernels.cubin', 'kernels.ptx', 'manifest.json']
print("cuda artifact:", sorted(os.listdir(out)))

# torch's registry reads this group (torch/_dynamo/backends/registry.py).
eps = metadata.entry_points(group="torch_dynamo_backends")
# CHECK: entry point: sinter = sinter.torch.backend:sinter_backend
print("entry point:", *["%s = %s" % (e.name, e.value) for e in eps
                        if e.name == "sinter"])
