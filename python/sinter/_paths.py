# Part of the Sinter project.
"""Where Sinter's native pieces are: the directories searched for
libSinterCAPI.so and libSinterRuntime.so, and the CUDA toolkit files (ptxas,
libdevice) an installed wheel carries. One definition, used by _capi (the
compiler) and cuda (the runtime)."""

import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# The wheel's layout (tools/wheel/make_wheel.py writes it).
WHEEL_LIB_DIR = os.path.join(_PACKAGE, "_lib")
WHEEL_CUDA_DIR = os.path.join(_PACKAGE, "_cuda")
# The environment variables through which the compiler finds a CUDA toolkit
# (lib/GPU/NVVMPipeline.cpp's findCUDAToolkit reads them in this order).
CUDA_TOOLKIT_VARS = ("SINTER_CUDA_PATH", "CUDA_HOME", "CUDA_PATH",
                     "CUDA_ROOT")


def library_dirs():
    """Where the native libraries are looked for, first match wins:
    $SINTER_LIB_DIR, the installed wheel's sinter/_lib, then the build tree
    of a source checkout (<repo>/build/lib)."""
    env = os.environ.get("SINTER_LIB_DIR")
    if env:
        yield env
    yield WHEEL_LIB_DIR
    yield os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "build",
                       "lib")


def find_library(name):
    """(path, tried): the first library_dirs() entry holding `name`."""
    tried = []
    for directory in library_dirs():
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return path, tried
        tried.append(path)
    return None, tried


def use_bundled_cuda_toolkit():
    """An installed wheel carries ptxas and libdevice (as Triton's does), so
    that it compiles for CUDA on machines without a toolkit: point the
    compiler at them unless the user named a toolkit. Returns the toolkit
    directory the compiler will use from the environment, or None."""
    for var in CUDA_TOOLKIT_VARS:
        if os.environ.get(var):
            return os.environ[var]
    if os.path.exists(os.path.join(WHEEL_CUDA_DIR, "bin", "ptxas")):
        os.environ["SINTER_CUDA_PATH"] = WHEEL_CUDA_DIR
        return WHEEL_CUDA_DIR
    return None
