//===- Driver.h - The CUDA driver, opened with dlopen -----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// No CUDA header: the few driver entry points the runtime uses are declared
// here with their documented C ABI and resolved from libcuda.so.1 with
// dlopen on first use, so that the runtime builds, links and loads on
// machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_DRIVER_H
#define SINTER_LIB_RUNTIME_DRIVER_H

#include "Error.h"

#include "sinter-c/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <dlfcn.h>
#include <string>

namespace sinter::rt {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUgraph = void *;
using CUgraphExec = void *;
/// CU_STREAM_CAPTURE_MODE_RELAXED: other threads' calls are not checked.
constexpr int kCaptureModeRelaxed = 2;
constexpr unsigned kStreamNonBlocking = 1;  // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDisableTiming = 2; // CU_EVENT_DISABLE_TIMING
constexpr unsigned kEventDefault = 0;       // CU_EVENT_DEFAULT (timed)
constexpr int kCaptureStatusNone = 0;       // CU_STREAM_CAPTURE_STATUS_NONE
constexpr int kMaxDynamicSharedSizeAttr =
    8; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kMultiprocessorCountAttr =
    16; // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int kPreferredCarveoutAttr =
    9; // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent)

/// The CUDA driver entry points, resolved once.
struct Driver {
  void *handle = nullptr;
  std::string loadError;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  /// Optional: CUDA-graph replay (SINTER_CUDA_GRAPH=1, Graph.cpp) needs
  /// them all.
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream, int) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *) = nullptr;
  CUresult (*cuGraphInstantiate)(CUgraphExec *, CUgraph,
                                 unsigned long long) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*cuThreadExchangeStreamCaptureMode)(int *) = nullptr;
  /// cuMemAlloc that a stream capture on this or another thread tolerates
  /// (a graph being captured, as torch.cuda.graph does, forbids it in its
  /// global mode): this thread's capture mode is relaxed around the call,
  /// as torch's caching allocator does. The memory is an ordinary
  /// allocation, not part of any graph.
  CUresult memAllocOutsideCapture(CUdeviceptr *ptr, size_t bytes) const;
  bool hasGraphs() const {
    return cuStreamCreate && cuStreamDestroy && cuEventCreate &&
           cuEventDestroy && cuEventRecord && cuStreamWaitEvent &&
           cuStreamBeginCapture && cuStreamEndCapture && cuGraphInstantiate &&
           cuGraphLaunch && cuGraphDestroy && cuGraphExecDestroy;
  }
  /// Optional: timing library calls' algorithms (GemmTuning.h) needs them
  /// all.
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuStreamIsCapturing)(CUstream, int *) = nullptr;
  bool canTime() const {
    return cuEventCreate && cuEventDestroy && cuEventRecord &&
           cuEventSynchronize && cuEventElapsedTime && cuStreamIsCapturing;
  }
  /// Optional (CUDA 12+): only manifests with tensor maps need it.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int) = nullptr;

  template <typename F> bool resolve(F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(handle, name));
    if (!fn)
      loadError = std::string("libcuda.so.1 has no symbol ") + name;
    return fn != nullptr;
  }

  /// Opens libcuda.so.1 and resolves every entry point; false with
  /// `loadError` set when it cannot.
  bool load();

  /// "CUDA_ERROR_X (n): text" for a driver status.
  std::string describe(CUresult r) const;
};

/// Relaxes this thread's stream-capture mode while it lives, as torch's
/// caching allocator does: a graph being captured in global mode (on this
/// or another thread; torch.cuda.graph's default) would otherwise forbid,
/// or be invalidated by, this thread's allocations and synchronizations.
class RelaxedCaptureMode {
public:
  explicit RelaxedCaptureMode(const Driver &d) : d(d) {
    exchanged = d.cuThreadExchangeStreamCaptureMode &&
                d.cuThreadExchangeStreamCaptureMode(&mode) == 0;
  }
  ~RelaxedCaptureMode() {
    if (exchanged)
      d.cuThreadExchangeStreamCaptureMode(&mode);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  const Driver &d;
  int mode = kCaptureModeRelaxed;
  bool exchanged = false;
};

/// The process's driver, opened and initialized (cuInit) on the first call;
/// null with `error` set when it cannot be.
Driver *driver(std::string &error);

} // namespace sinter::rt

/// Returns SINTER_RT_ERROR_DRIVER from the calling function, naming `what`
/// and the status, when the driver call `call` of `drv` fails.
#define SINTER_CU(drv, call, what)                                             \
  do {                                                                         \
    ::sinter::rt::CUresult status_ = (drv)->call;                              \
    if (status_ != 0)                                                          \
      return ::sinter::rt::fail(SINTER_RT_ERROR_DRIVER,                        \
                                std::string(what) + ": " +                     \
                                    (drv)->describe(status_));                 \
  } while (0)

#endif // SINTER_LIB_RUNTIME_DRIVER_H
