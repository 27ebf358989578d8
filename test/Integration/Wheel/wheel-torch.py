# The wheel with torch: a fresh virtual environment holding the installed
# wheel and seeing torch and torch-mlir (a .pth file points at the
# interpreter's own site-packages, so the test does not reinstall torch)
# trains bench/train_gpt2.py's model (one layer, short sequence) on the CPU
# with torch.compile(backend="sinter") -- found through the wheel's
# torch_dynamo_backends entry point, with no `import sinter` -- and
# sinter.torch.AdamW, matching eager torch step by step.
#
# REQUIRES: numpy, wheel, torch, torch_mlir
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %sinter_src_root/tools/wheel/make_wheel.py --build-dir %sinter_obj_root --out-dir %t/dist --cuda ''
# RUN: %python -m venv --without-pip %t/venv
# RUN: %python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > %t/parent.pth
# RUN: %t/venv/bin/python -c "import shutil, sysconfig; shutil.copy('%t/parent.pth', sysconfig.get_paths()['purelib'])"
# RUN: %python -m pip --python %t/venv/bin/python install --quiet --no-deps --no-index --disable-pip-version-check %t/dist/sinter-*.whl
# RUN: cd %t && env -u PYTHONPATH -u SINTER_LIB_DIR SINTER_CACHE_DIR=%t/cache %t/venv/bin/python %s %sinter_src_root/bench 2>&1 | FileCheck %s

import os
import sys

import torch

sys.path.insert(0, sys.argv[1])
from train_gpt2 import GPT  # noqa: E402

venv = os.path.realpath(sys.prefix)


def train(backend):
    torch.manual_seed(0)
    model = GPT(seq=64, layers=1)
    if backend is None:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        step = model
    else:
        # The backend's name resolves (and imports sinter) here.
        step = torch.compile(model, backend=backend, dynamic=False)
        print("torch.compile imported sinter:", "sinter" in sys.modules)
        import sinter.torch
        opt = sinter.torch.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(3):
        x = torch.randint(0, 50257, (2, 65), generator=gen)
        opt.zero_grad()
        loss = step(x[:, :-1], x[:, 1:])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


eager = train(None)
# CHECK: torch.compile imported sinter: True
compiled = train("sinter")
import sinter  # noqa: E402

# CHECK: sinter from the venv: True
print("sinter from the venv:",
      os.path.realpath(sinter.library_path()).startswith(venv + os.sep))
diff = max(abs(a - b) for a, b in zip(eager, compiled))
# CHECK: 3 steps, losses match eager: True
print("%d steps, losses match eager: %s" % (len(compiled), diff < 1e-4),
      eager, compiled)
