# Part of the Sinter project.
"""Builds Sinter's wheel (`make wheel`; docs/Wheel.md):

    python3 tools/wheel/make_wheel.py --build-dir build --out-dir dist

dist/sinter-<version>-py3-none-manylinux_2_<N>_x86_64.whl holds
  sinter/                       the Python package (sinter.torch included)
  sinter/_lib/libSinterCAPI.so  the compiler, MLIR and LLVM linked in
                                (lib/Wheel.cmake: libc and libm only)
  sinter/_lib/libSinterRuntime.so  the CUDA runtime (driver API, dlopen)
  sinter/_cuda/bin/ptxas, sinter/_cuda/nvvm/libdevice/libdevice.10.bc
                                from the CUDA toolkit it was built with, so
                                that CUDA targets compile without a toolkit
and registers backend="sinter" through torch's `torch_dynamo_backends`
entry point. N is the newest glibc symbol version the libraries need.
The wheel is written with the standard library only (no `wheel` or
`build` package): a zip with dist-info, WHEEL, METADATA and RECORD.
"""

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import time
import zipfile

NAME = "sinter"
# torch.compile finds backend="sinter" through this entry point without an
# `import sinter.torch` (torch/_dynamo/backends/registry.py).
ENTRY_POINTS = """[torch_dynamo_backends]
sinter = sinter.torch.backend:sinter_backend
"""
# The native libraries: (file in the build's lib/ tree, name in the wheel).
LIBRARIES = [("wheel/libSinterCAPI.so", "libSinterCAPI.so"),
             ("libSinterRuntime.so", "libSinterRuntime.so")]
# The CUDA toolkit files the compiler reads (lib/GPU/NVVMPipeline.cpp).
TOOLKIT_FILES = ["bin/ptxas", "nvvm/libdevice/libdevice.10.bc"]


def project_version(source_dir):
    text = open(os.path.join(source_dir, "CMakeLists.txt")).read()
    m = re.search(r"project\(sinter VERSION ([0-9.]+)", text)
    if not m:
        sys.exit("make_wheel: no `project(sinter VERSION ...)` in "
                 "CMakeLists.txt")
    return m.group(1)


def glibc_floor(paths):
    """The newest GLIBC_x.y symbol version any of `paths` needs."""
    newest = (2, 17)
    for path in paths:
        out = subprocess.run(["objdump", "-T", path], check=True,
                             capture_output=True, text=True).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            newest = max(newest, (int(major), int(minor)))
    return newest


def metadata(version):
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + version,
        "Summary: An MLIR operator-fusion compiler for transformer training "
        "and inference (attention, norms, AdamW, elementwise chains) for "
        "CUDA and the CPU",
        "Requires-Python: >=3.9",
        "Requires-Dist: numpy",
        "Provides-Extra: torch",
        'Requires-Dist: torch>=2.5; extra == "torch"',
        'Requires-Dist: torch-mlir; extra == "torch"',
        "", ""])


def wheel_file(tag):
    return ("Wheel-Version: 1.0\nGenerator: sinter make_wheel.py\n"
            "Root-Is-Purelib: false\nTag: %s\n" % tag)


def package_files(source_dir):
    """(path in the wheel, path on disk) of the Python package."""
    root = os.path.join(source_dir, "python")
    for directory, dirs, files in os.walk(os.path.join(root, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".json")):
                path = os.path.join(directory, f)
                yield os.path.relpath(path, root), path


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return "%s,sha256=%s,%d" % (name, digest.rstrip(b"=").decode(), len(data))


def write_wheel(path, entries, dist_info, compression):
    """entries: (name in the wheel, bytes, executable)."""
    records = []
    with zipfile.ZipFile(path, "w", compression, compresslevel=6) as z:
        for name, data, executable in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = compression
            info.external_attr = (0o755 if executable else 0o644) << 16
            z.writestr(info, data)
            records.append(record_line(name, data))
        record = dist_info + "/RECORD"
        records.append(record + ",,")
        z.writestr(zipfile.ZipInfo(record, date_time=(2026, 1, 1, 0, 0, 0)),
                   "\n".join(records) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(
        here)))
    p.add_argument("--build-dir", default="build")
    p.add_argument("--out-dir", default="dist")
    p.add_argument("--cuda", default=None,
                   help="the CUDA toolkit whose ptxas and libdevice the "
                   "wheel carries (default: $CUDA_HOME or /usr/local/cuda "
                   "when it has ptxas; '' leaves them out: CUDA targets "
                   "then need a toolkit where the wheel is installed)")
    p.add_argument("--stored", action="store_true",
                   help="store the files uncompressed (for a transport that "
                   "compresses better itself, such as xz: ~half the size)")
    a = p.parse_args()
    t0 = time.time()
    version = project_version(a.source_dir)
    libs = []
    for built, name in LIBRARIES:
        path = os.path.join(a.build_dir, "lib", built)
        if not os.path.exists(path):
            sys.exit("make_wheel: %s is missing (cmake --build %s --target "
                     "sinter-wheel-lib SinterRuntime)" % (path, a.build_dir))
        libs.append((name, path))
    major, minor = glibc_floor([path for _, path in libs])
    tag = "py3-none-manylinux_%d_%d_x86_64" % (major, minor)
    dist_info = "%s-%s.dist-info" % (NAME, version)
    entries = [(name, open(path, "rb").read(), False)
               for name, path in package_files(a.source_dir)]
    entries += [("%s/_lib/%s" % (NAME, name), open(path, "rb").read(), True)
                for name, path in libs]
    if a.cuda is None:
        a.cuda = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
        if not os.path.exists(os.path.join(a.cuda, TOOLKIT_FILES[0])):
            print("make_wheel: no CUDA toolkit at %s: the wheel carries no "
                  "ptxas (CUDA targets will need a toolkit)" % a.cuda)
            a.cuda = ""
    if a.cuda:
        for rel in TOOLKIT_FILES:
            path = os.path.join(a.cuda, rel)
            if not os.path.exists(path):
                sys.exit("make_wheel: %s is missing (--cuda names the CUDA "
                         "toolkit; --cuda '' leaves it out)" % path)
            entries.append(("%s/_cuda/%s" % (NAME, rel),
                            open(path, "rb").read(), rel.startswith("bin/")))
    entries += [(dist_info + "/METADATA", metadata(version).encode(), False),
                (dist_info + "/WHEEL", wheel_file(tag).encode(), False),
                (dist_info + "/entry_points.txt", ENTRY_POINTS.encode(),
                 False),
                (dist_info + "/top_level.txt", (NAME + "\n").encode(), False)]
    os.makedirs(a.out_dir, exist_ok=True)
    out = os.path.join(a.out_dir, "%s-%s-%s.whl" % (NAME, version, tag))
    write_wheel(out, entries, dist_info,
                zipfile.ZIP_STORED if a.stored else zipfile.ZIP_DEFLATED)
    print("make_wheel: %s (%.1f MB, %d files, %.1f s)" % (
        out, os.path.getsize(out) / 1e6, len(entries) + 1, time.time() - t0))


if __name__ == "__main__":
    main()
