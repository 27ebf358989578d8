//===- Driver.cpp - The CUDA driver, opened with dlopen ------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <type_traits>

#include <mutex>
#include <sstream>

using namespace sinter::rt;

bool Driver::load() {
  handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = dlerror();
    loadError = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                (e ? e : "unknown error");
    return false;
  }
  cuTensorMapEncodeTiled = reinterpret_cast<decltype(cuTensorMapEncodeTiled)>(
      dlsym(handle, "cuTensorMapEncodeTiled"));
  auto optional = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, name));
  };
  optional(cuStreamCreate, "cuStreamCreate");
  optional(cuStreamDestroy, "cuStreamDestroy_v2");
  optional(cuEventCreate, "cuEventCreate");
  optional(cuEventDestroy, "cuEventDestroy_v2");
  optional(cuEventRecord, "cuEventRecord");
  optional(cuStreamWaitEvent, "cuStreamWaitEvent");
  optional(cuStreamBeginCapture, "cuStreamBeginCapture_v2");
  optional(cuStreamEndCapture, "cuStreamEndCapture");
  optional(cuGraphInstantiate, "cuGraphInstantiateWithFlags");
  optional(cuGraphLaunch, "cuGraphLaunch");
  optional(cuGraphDestroy, "cuGraphDestroy");
  optional(cuGraphExecDestroy, "cuGraphExecDestroy");
  optional(cuThreadExchangeStreamCaptureMode,
           "cuThreadExchangeStreamCaptureMode");
  optional(cuEventSynchronize, "cuEventSynchronize");
  // CUDA 12.8 renamed it (cuda.h's cuEventElapsedTime is the _v2); older
  // drivers have only the first.
  optional(cuEventElapsedTime, "cuEventElapsedTime_v2");
  if (!cuEventElapsedTime)
    optional(cuEventElapsedTime, "cuEventElapsedTime");
  optional(cuStreamIsCapturing, "cuStreamIsCapturing");
  return resolve(cuInit, "cuInit") &&
         resolve(cuDeviceGetCount, "cuDeviceGetCount") &&
         resolve(cuDeviceGet, "cuDeviceGet") &&
         resolve(cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
         resolve(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         resolve(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
         resolve(cuCtxSetCurrent, "cuCtxSetCurrent") &&
         resolve(cuModuleLoadData, "cuModuleLoadData") &&
         resolve(cuModuleUnload, "cuModuleUnload") &&
         resolve(cuModuleGetFunction, "cuModuleGetFunction") &&
         resolve(cuFuncSetAttribute, "cuFuncSetAttribute") &&
         resolve(cuLaunchKernel, "cuLaunchKernel") &&
         resolve(cuMemAlloc, "cuMemAlloc_v2") &&
         resolve(cuMemFree, "cuMemFree_v2") &&
         resolve(cuStreamSynchronize, "cuStreamSynchronize") &&
         resolve(cuGetErrorName, "cuGetErrorName") &&
         resolve(cuGetErrorString, "cuGetErrorString");
}

CUresult Driver::memAllocOutsideCapture(CUdeviceptr *ptr, size_t bytes) const {
  RelaxedCaptureMode relaxed(*this);
  return cuMemAlloc(ptr, bytes);
}

std::string Driver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(r, &name);
  if (cuGetErrorString)
    cuGetErrorString(r, &text);
  std::ostringstream os;
  os << (name ? name : "CUDA_ERROR") << " (" << r << ")";
  if (text)
    os << ": " << text;
  return os.str();
}

Driver *sinter::rt::driver(std::string &error) {
  static Driver d;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    ok = d.load();
    if (ok) {
      CUresult r = d.cuInit(0);
      if (r != 0) {
        d.loadError = "cuInit failed: " + d.describe(r);
        ok = false;
      }
    }
  });
  if (!ok) {
    error = d.loadError;
    return nullptr;
  }
  return &d;
}
