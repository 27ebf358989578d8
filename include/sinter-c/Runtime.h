/*===- sinter-c/Runtime.h - Run CUDA artifacts (driver API only) -*- C -*-===*\
|*                                                                            *|
|* Part of the Sinter project.                                                *|
|*                                                                            *|
|* Loads an artifact written by `sinterc --target=cuda:<chip>` (manifest.json *|
|* + kernels.cubin) and runs its functions on device pointers and a stream.   *|
|* Needs only the CUDA driver, opened with dlopen("libcuda.so.1") on first    *|
|* use: the library builds, links and loads on machines without a GPU and    *|
|* without MLIR. Every CUDA call is checked; a failure names the call and the *|
|* kernel. The last error of the calling thread is sinter_rt_last_error().    *|
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

/// Parses `<dir>/manifest.json` and loads `<dir>/kernels.cubin` into the
/// current context of `device` (the device's primary context is retained
/// and made current).
SINTER_RT_EXPORT int sinter_rt_load(const char *dir, int device,
                                    sinter_rt_program **out);

SINTER_RT_EXPORT void sinter_rt_unload(sinter_rt_program *program);

/// Runs `function`. `args[i]` is the i-th argument of the manifest's
/// argument list (inputs, then outputs): a device pointer for a buffer, or a
/// pointer to the value for a scalar. `stream` is a CUstream (NULL: the
/// default stream). Launches are asynchronous unless SINTER_CUDA_SYNC=1 is
/// set in the environment, which synchronizes after each launch so that a
/// fault is reported with the kernel that caused it.
SINTER_RT_EXPORT int sinter_rt_run(sinter_rt_program *program,
                                   const char *function, void *const *args,
                                   size_t num_args, void *stream);

/// Synchronizes `stream`, reporting asynchronous kernel errors.
SINTER_RT_EXPORT int sinter_rt_synchronize(void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SINTER_C_RUNTIME_H */
