# Part of the Sinter project.
"""Makes a CUDA toolkit directory whose ptxas predates --split-compile:

  old_ptxas_toolkit.py <dir>

<dir>/bin/ptxas runs the real toolkit's ptxas (the one sinterc would find:
$SINTER_CUDA_PATH, $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, else /usr/local/cuda)
but leaves the option out of its --help and refuses it, as an older release
would; <dir>/nvvm is the real toolkit's (libdevice).
"""
import os
import stat
import sys


def real_toolkit():
    for var in ("SINTER_CUDA_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        d = os.environ.get(var)
        if d and os.path.isdir(d):
            return d
    return "/usr/local/cuda"


def main(out):
    real = real_toolkit()
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    nvvm = os.path.join(out, "nvvm")
    if not os.path.exists(nvvm):
        os.symlink(os.path.join(real, "nvvm"), nvvm)
    script = os.path.join(out, "bin", "ptxas")
    with open(script, "w") as f:
        f.write("""#!/bin/sh
for a in "$@"; do
  case "$a" in
    --help) "%(ptxas)s" --help | grep -v split-compile; exit 0 ;;
    --split-compile|-split-compile) echo "ptxas fatal: Unknown option '$a'" >&2; exit 1 ;;
  esac
done
exec "%(ptxas)s" "$@"
""" % {"ptxas": os.path.join(real, "bin", "ptxas")})
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR | stat.S_IXGRP
             | stat.S_IXOTH)


if __name__ == "__main__":
    main(sys.argv[1])
