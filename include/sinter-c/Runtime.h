/*===- sinter-c/Runtime.h - Run CUDA artifacts (driver API only) -*- C -*-===*\
|*                                                                            *|
|* Part of the Sinter project.                                                *|
|*                                                                            *|
|* Loads an artifact written by `sinterc --target=cuda:<chip>` (manifest.json *|
|* + kernels.cubin) and runs its functions on device pointers and a stream.   *|
|* Needs only the CUDA driver, opened with dlopen("libcuda.so.1") on first    *|
|* use: the library builds, links and loads on machines without a GPU and     *|
|* without MLIR. Library calls (cuBLASLt GEMMs) open cuBLASLt the same way    *|
|* and fall back to a recorded kernel without it. Every CUDA call is          *|
|* checked; a failure names the call and the kernel. The last error of the    *|
|* calling thread is sinter_rt_last_error().                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SINTER_C_RUNTIME_H
#define SINTER_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SINTER_RT_EXPORT __attribute__((visibility("default")))
#else
#define SINTER_RT_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinter_rt_program sinter_rt_program;

/// Status codes: 0 is success.
enum {
  SINTER_RT_OK = 0,
  SINTER_RT_ERROR_ARTIFACT = 1, /* missing or malformed artifact */
  SINTER_RT_ERROR_DRIVER = 2,   /* libcuda missing or a CUDA call failed */
  SINTER_RT_ERROR_ARGUMENT = 3, /* wrong function name or arguments */
};

/// Message of the calling thread's last failure ("" when none).
SINTER_RT_EXPORT const char *sinter_rt_last_error(void);

/// Whether the CUDA driver can be loaded and reports at least one device.
SINTER_RT_EXPORT int sinter_rt_cuda_available(void);

/// Reads `<dir>/manifest.json` and `<dir>/kernels.cubin`, verifies both
/// against the SHA-256 digests of `<dir>/SHA256SUMS` and every field of the
/// manifest (docs/Manifest.md), and only then loads the verified cubin into
/// the current context of `device` (the device's primary context is
/// retained and made current). A missing, corrupt, truncated or edited
/// artifact, or one of another format, is SINTER_RT_ERROR_ARTIFACT with a
/// message naming the file or the field; nothing of it reaches the driver.
SINTER_RT_EXPORT int sinter_rt_load(const char *dir, int device,
                                    sinter_rt_program **out);

SINTER_RT_EXPORT void sinter_rt_unload(sinter_rt_program *program);

/// Runs `function`. `args[i]` is the i-th argument of the manifest's
/// argument list (inputs, then outputs): a device pointer for a buffer, or a
/// pointer to the value for a scalar. `stream` is a CUstream (NULL: the
/// default stream). Launches are asynchronous unless SINTER_CUDA_SYNC=1 is
/// set in the environment, which synchronizes after each launch so that a
/// fault is reported with the kernel that caused it. A buffer a kernel takes
/// as a tensor map (docs/Manifest.md) must be 16-byte aligned (else
/// SINTER_RT_ERROR_ARGUMENT); its map is encoded again only when its pointer
/// differs from the previous run's.
SINTER_RT_EXPORT int sinter_rt_run(sinter_rt_program *program,
                                   const char *function, void *const *args,
                                   size_t num_args, void *stream);

/// Synchronizes `stream`, reporting asynchronous kernel errors.
SINTER_RT_EXPORT int sinter_rt_synchronize(void *stream);

/* Library calls. A launch entry of kind "cublas_gemm" (docs/Manifest.md)
 * runs through cuBLASLt, which is opened with dlopen on the first call that
 * needs it: $SINTER_CUBLASLT when it names a library, then
 * libcublasLt.so.13, libcublasLt.so.12 and libcublasLt.so (a copy that the
 * process already loaded, e.g. torch's, is found by its soname);
 * SINTER_CUBLASLT=off (or 0, none, false) never opens it. The GEMM runs on
 * the stream of sinter_rt_run with a 32 MiB workspace per context and
 * stream. When cuBLASLt cannot be opened, or its heuristic finds no
 * algorithm, the entry's fallback kernel runs instead; a failing
 * cublasLtMatmul is an error (SINTER_RT_ERROR_DRIVER, naming the call, the
 * status and the entry). SINTER_LOG=1 prints one line on stderr whenever an
 * entry picks its path (cuBLASLt or the fallback kernel, and why). */

/// Whether cuBLASLt can be opened (tries on the first call; needs no GPU).
SINTER_RT_EXPORT int sinter_rt_cublaslt_available(void);

/// Which cuBLASLt was opened and its version ("opened libcublasLt.so.13
/// (cuBLASLt 130100)"), or why none was (tries on the first call).
SINTER_RT_EXPORT const char *sinter_rt_cublaslt_status(void);

/// How the library calls of `program` have run since it was loaded:
/// `library_calls` through the library, `fallback_launches` through their
/// fallback kernels; `last_fallback` (valid until the next run or unload)
/// says why the last fallback happened ("" if none). Any pointer may be
/// NULL.
SINTER_RT_EXPORT int sinter_rt_library_counts(sinter_rt_program *program,
                                              uint64_t *library_calls,
                                              uint64_t *fallback_launches,
                                              const char **last_fallback);

#ifdef __cplusplus
}
#endif

#endif /* SINTER_C_RUNTIME_H */
