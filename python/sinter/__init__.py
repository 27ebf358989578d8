# Part of the Sinter project.
"""Sinter: compile MLIR tensor programs and run them on numpy arrays.

    import numpy as np, sinter
    prog = sinter.compile(open("model.mlir").read())   # needs libSinterCAPI
    y = prog.run("main", x, w)                         # numpy in, numpy out

    prog = sinter.load("out/")     # an artifact made by `sinterc -o out/`

Compiling goes through the C API (libSinterCAPI.so, found in
$SINTER_LIB_DIR or <repo>/build/lib); loading and running an artifact needs
only numpy and ctypes.
"""

import shutil
import tempfile
import weakref

from . import _capi
from .errors import (ArgumentError, CompileError, FunctionNotFoundError,
                     LoadError, SinterError)
from .runtime import Function, Program, load

__all__ = [
    "ArgumentError", "CompileError", "Function", "FunctionNotFoundError",
    "LoadError", "Program", "SinterError", "compile", "library_path", "load",
    "version",
]

library_path = _capi.library_path
version = _capi.version


def compile(ir_text, target="cpu", fusion=True, out_dir=None,
            source_name="<input>", allow_rng_change=False,
            attention_config=None):
    """Compiles MLIR text (str or bytes) and loads the result.

    The artifact is written to `out_dir` when given (and kept), else to a
    temporary directory removed when the Program is garbage collected.
    `source_name` names the source in diagnostics. `allow_rng_change` lets
    fusion replace a frontend's dropout generator by Sinter's Philox
    dropout (same distribution, other random bits); `attention_config`
    forces the CUDA attention tiles ("wgmma,warps=4,mtiles=1,bn=64",
    "cuda-cores", ...; default: the table shipped with the compiler).
    Raises CompileError carrying the compiler's located diagnostics.
    """
    temporary = out_dir is None
    directory = tempfile.mkdtemp(prefix="sinter-") if temporary else out_dir
    try:
        _capi.compile_to_dir(ir_text, target, directory, fusion, source_name,
                             allow_rng_change, attention_config)
        program = load(directory)
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    if temporary:
        weakref.finalize(program, shutil.rmtree, directory, True)
    return program
