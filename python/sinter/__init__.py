# Part of the Sinter project.
"""Sinter: compile MLIR tensor programs and run them on numpy arrays.

    import numpy as np, sinter
    prog = sinter.compile(open("model.mlir").read())   # needs libSinterCAPI
    y = prog.run("main", x, w)                         # numpy in, numpy out

    prog = sinter.load("out/")     # an artifact made by `sinterc -o out/`

Compiling goes through the C API (libSinterCAPI.so, found in
$SINTER_LIB_DIR, an installed wheel's sinter/_lib or <repo>/build/lib); loading and running an artifact needs
only numpy and ctypes.
"""

import shutil
import tempfile
import weakref

from . import _capi
from .errors import (ArgumentError, CompileError, FunctionNotFoundError,
                     LoadError, OptionError, SinterError)
from .runtime import Function, Program, load

__all__ = [
    "ArgumentError", "CompileError", "Function", "FunctionNotFoundError",
    "LoadError", "OptionError", "Program", "SinterError", "compile",
    "library_path", "load", "version",
]

library_path = _capi.library_path
version = _capi.version


def compile(ir_text, target="cpu", fusion=True, out_dir=None,
            source_name="<input>", **options):
    """Compiles MLIR text (str or bytes) and loads the result.

    The artifact is written to `out_dir` when given (and kept), else to a
    temporary directory removed when the Program is garbage collected.
    `source_name` names the source in diagnostics. `options` are sinterc's
    options with '_' for '-' (`sinterc --help` lists them): for example
    allow_rng_change=True lets fusion replace a frontend's dropout
    generator by Sinter's Philox dropout (same distribution, other random
    bits); attention_config="cuda-cores" forces the CUDA attention tiles;
    cuda_row_vectors=4, cuda_matmul="kernel", ... A value is a bool, an int
    or a str; None leaves the default.
    Raises CompileError carrying the compiler's located diagnostics, and
    OptionError for an unknown option or a bad value.
    """
    if not isinstance(target, str) or not target:
        raise OptionError("target must be a non-empty str such as 'cpu' or "
                          "'cuda:sm_90a', not %r" % (target,))
    if not isinstance(fusion, (bool, int)):
        raise OptionError("fusion must be True or False, not %r" % (fusion,))
    if not isinstance(source_name, str):
        raise OptionError("source_name must be a str, not %r"
                          % (source_name,))
    text = _capi.option_string(dict(target=target, no_fusion=not fusion,
                                    **options))
    temporary = out_dir is None
    directory = tempfile.mkdtemp(prefix="sinter-") if temporary else out_dir
    try:
        _capi.compile_to_dir(ir_text, directory, source_name, text)
        program = load(directory)
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    if temporary:
        weakref.finalize(program, shutil.rmtree, directory, True)
    return program
