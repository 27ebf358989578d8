# -*- Python -*-
# Lit configuration for the Sinter regression suite.

import ctypes
import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SINTER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sinter_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%sinter_src_root", config.sinter_src_root))
config.substitutions.append(("%sinter_obj_root", config.sinter_obj_root))
# Longer names first: lit substitutes in order.
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
# A sanitizer build (SINTER_SANITIZE, `make test-sanitize`): a report fails
# the test; Python runs with the ASan runtime preloaded (it loads the
# instrumented C API) and without leak checking (the interpreter's own
# allocations live to the end); external projects link the runtimes too.
# SINTER_TEST_PYTHON runs the Python tests with another interpreter (a
# virtual environment with torch and transformers: the `torch` feature).
python = (os.environ.get("SINTER_TEST_PYTHON") or config.python_executable
          or "python3")
config.python_executable = python
sanitizer_link_flags = ""
if config.sinter_sanitize:
    config.available_features.add("sanitize")
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    python = config.sinter_python_wrapper
    config.environment["PYTHON"] = python
    sanitizer_link_flags = "-fsanitize=address,undefined"
config.substitutions.append(("%sanitizer_link_flags", sanitizer_link_flags))
config.substitutions.append(("%python", python))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "CCACHE_DIR", "SINTER_TEST_SEED"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.sinter_tools_dir, append_path=True)
llvm_config.with_environment("PYTHONPATH",
                             os.path.join(config.sinter_src_root, "python"),
                             append_path=True)
llvm_config.with_environment("SINTER_LIB_DIR", config.sinter_libs_dir)

tool_dirs = [config.sinter_tools_dir, config.llvm_tools_dir]
tools = ["sinter-opt", "sinter-lsp-server", "mlir-opt", "mlir-runner",
         ToolSubst("sinterc", unresolved="ignore"),
         ToolSubst("SinterUnitTests", unresolved="ignore"),
         ToolSubst("SinterRuntimeTests", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)


def _cuda_device_visible():
    """True when the CUDA driver loads and reports at least one device."""
    if os.environ.get("SINTER_DISABLE_CUDA_TESTS"):
        return False
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if cuda.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


# GPU integration tests say `REQUIRES: cuda`; they run only where a GPU is
# visible and are reported UNSUPPORTED elsewhere.
if _cuda_device_visible():
    config.available_features.add("cuda")

for module in ("torch", "torch_mlir", "transformers"):
    try:
        if subprocess.call([config.python_executable or "python3", "-c",
                            "import " + module], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) == 0:
            config.available_features.add(module)
    except OSError:
        pass

# Tests that run Python say `REQUIRES: numpy`; they run under %python (the
# interpreter CMake found), which need not be the one running lit, so ask it.
try:
    if subprocess.call([config.python_executable or "python3", "-c",
                        "import numpy"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("numpy")
except OSError:
    pass

# The wheel test needs the wheel's compiler library (lib/Wheel.cmake: not in
# sanitizer builds) and an interpreter that makes virtual environments and
# has pip.
try:
    if os.path.exists(os.path.join(config.sinter_libs_dir, "wheel",
                                   "libSinterCAPI.so")) and \
            subprocess.call([python, "-c", "import venv, pip"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("wheel")
except OSError:
    pass
