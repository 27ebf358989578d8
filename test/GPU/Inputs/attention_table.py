# Part of the Sinter project.
"""Compiles one attention op per entry of the shipped table with the
entry's configuration forced, for the entry's chip; prints REJECTED for an
entry sinterc refuses."""
import os
import re
import subprocess
import sys

table, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
entries = re.findall(r'^SINTER_ATTENTION_CONFIG\((\d+), "([^"]+)", (\d+), '
                     r'(true|false), (\d+), "([^"]+)"\)', open(table).read(),
                     re.M)
for i, (sm, dtypes, d, causal, max_seq, cfg) in enumerate(entries):
    for dtype in dtypes.split("/"):
        ty = "tensor<1x2x96x%sx%s>" % (d, dtype)
        src = os.path.join(work, "e%d_%s.mlir" % (i, dtype))
        with open(src, "w") as f:
            f.write("func.func @main(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
                    "  %%o = sinter.attention %%q, %%k, %%v%s : %s, %s, %s -> "
                    "%s\n  return %%o : %s\n}\n" % (
                        ty, ty, ty, ty, " {causal}" if causal == "true" else "",
                        ty, ty, ty, ty, ty))
        chip = "sm_90a" if int(sm) >= 90 else "sm_%s" % sm
        r = subprocess.run(["sinterc", src, "--quiet", "--emit=ptx",
                            "--target=cuda:" + chip,
                            "--attention-config=" + cfg, "-o",
                            os.path.join(work, "e%d_%s" % (i, dtype))],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("REJECTED %s %s d%s: %s" % (cfg, dtype, d, r.stderr))
print("checked %d entries" % len(entries))
