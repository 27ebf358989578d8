/*===- sinter-c/Sinter.h - C API of the Sinter compiler -----------*- C -*-===*\
|*                                                                            *|
|* Part of the Sinter project.                                                *|
|*                                                                            *|
|* A small, stable C interface for embedding the compiler (the Python package *|
|* uses it through ctypes). Compiling writes an artifact directory; running   *|
|* one needs only its kernels.so and manifest.json, not this library.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SINTER_C_SINTER_H
#define SINTER_C_SINTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SINTER_CAPI_EXPORTED __declspec(dllexport)
#else
#define SINTER_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

/// Compiles the MLIR text `ir` (`len` bytes, need not be NUL-terminated)
/// for `target` ("cpu" or "cuda:sm_<arch>") into the directory `out_dir`
/// (created when missing): for the CPU, kernels.so and manifest.json; for
/// CUDA, manifest.json, kernels.cubin and kernels.ptx. `fusion` nonzero
/// runs the fusion pipeline first.
///
/// Returns 0 on success. On failure returns nonzero and, when `error_out` is
/// not NULL, stores in it a NUL-terminated message holding every MLIR
/// diagnostic with its `<input>:line:col` location; free it with
/// sinter_free_string. Thread-safe: every call has its own MLIR context.
SINTER_CAPI_EXPORTED int sinter_compile_to_dir(const char *ir, size_t len,
                                               const char *target,
                                               const char *out_dir, int fusion,
                                               char **error_out);

/// As sinter_compile_to_dir, naming the source `source_name` in the
/// diagnostics' locations (for example the file the IR was read from).
SINTER_CAPI_EXPORTED int
sinter_compile_to_dir_named(const char *ir, size_t len, const char *source_name,
                            const char *target, const char *out_dir, int fusion,
                            char **error_out);

/// As sinter_compile_to_dir_named, with the compiler's options:
/// `allow_rng_change` nonzero lets fusion raise a frontend's dropout
/// generator to Sinter's Philox dropout (same distribution, other random
/// bits); `attention_config` (NULL or "" for the shipped table) forces the
/// CUDA attention tile configuration, as sinterc --attention-config.
SINTER_CAPI_EXPORTED int sinter_compile_to_dir_with_options(
    const char *ir, size_t len, const char *source_name, const char *target,
    const char *out_dir, int fusion, int allow_rng_change,
    const char *attention_config, char **error_out);

/// Frees a string returned by this library. NULL is allowed.
SINTER_CAPI_EXPORTED void sinter_free_string(char *str);

/// The version of the library, e.g. "0.1.0" (static storage).
SINTER_CAPI_EXPORTED const char *sinter_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SINTER_C_SINTER_H */
