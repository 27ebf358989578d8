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

/// Status codes of sinter_compile: 0 is success.
enum {
  SINTER_OK = 0,
  SINTER_ERROR_COMPILE = 1, /* the compiler rejected the program */
  SINTER_ERROR_OPTIONS = 2, /* an unknown option, a bad value, NULL input */
};

/// Compiles the MLIR text `ir` (`len` bytes, need not be NUL-terminated)
/// into the directory `out_dir` (created when missing): for the CPU,
/// kernels.so, manifest.json and SHA256SUMS; for CUDA, manifest.json,
/// kernels.cubin, kernels.ptx and SHA256SUMS. `source_name` (NULL:
/// "<input>") names the source in diagnostics' locations.
///
/// `options` (NULL or "" for the defaults) takes sinterc's options as
/// "name[=value] ..." separated by spaces, "--" before a name allowed and a
/// value with spaces in double quotes: "target=cuda:sm_90a no-fusion
/// attention-config=cuda-cores cuda-row-vectors=4". The names are those of
/// `sinterc --help`: target, no-fusion, emit, the fusion pipeline's
/// (allow-rng-change, report, ...) and the CUDA pipeline's (cuda-*,
/// attention-config); one table declares them (sinter/Target/
/// CompileOptions.h).
///
/// Returns SINTER_OK on success. On failure returns SINTER_ERROR_OPTIONS
/// (the message names the option) or SINTER_ERROR_COMPILE and, when
/// `error_out` is not NULL, stores in it a NUL-terminated message holding
/// every MLIR diagnostic with its `<source>:line:col` location; free it
/// with sinter_free_string. Thread-safe: every call has its own MLIR
/// context.
SINTER_CAPI_EXPORTED int sinter_compile(const char *ir, size_t len,
                                        const char *source_name,
                                        const char *out_dir,
                                        const char *options, char **error_out);

/* Deprecated: the entries before sinter_compile, kept (as thin wrappers of
 * it) for callers built against them. */

/// sinter_compile with "target=<target>" and, when `fusion` is 0,
/// "no-fusion". Returns 1 on any failure.
SINTER_CAPI_EXPORTED int sinter_compile_to_dir(const char *ir, size_t len,
                                               const char *target,
                                               const char *out_dir, int fusion,
                                               char **error_out);

/// As sinter_compile_to_dir, naming the source `source_name`.
SINTER_CAPI_EXPORTED int
sinter_compile_to_dir_named(const char *ir, size_t len, const char *source_name,
                            const char *target, const char *out_dir, int fusion,
                            char **error_out);

/// As sinter_compile_to_dir_named, with allow-rng-change when
/// `allow_rng_change` is nonzero and attention-config=`attention_config`
/// when it is not NULL or "".
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
