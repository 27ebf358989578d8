# Runs the artifact of Inputs/mlp.mlir (argv[1]) against numpy: only numpy
# and ctypes are needed, not the compiler.
import sys

import numpy as np

import sinter

prog = sinter.load(sys.argv[1])
rng = np.random.default_rng()
x = rng.uniform(-1, 1, (8, 32)).astype(np.float32)
w1 = rng.uniform(-1, 1, (32, 64)).astype(np.float32)
b1 = rng.uniform(-1, 1, (64,)).astype(np.float32)
w2 = rng.uniform(-1, 1, (64, 16)).astype(np.float32)
y, a = prog.run("mlp", x, w1, b1, w2)
a_ref = np.tanh(x.astype(np.float64) @ w1 + b1)
y_ref = a_ref @ w2
assert np.abs(a - a_ref).max() < 1e-5, np.abs(a - a_ref).max()
assert np.abs(y - y_ref).max() < 1e-4, np.abs(y - y_ref).max()
assert "helper" not in prog.functions
print("mlp artifact: ok")
