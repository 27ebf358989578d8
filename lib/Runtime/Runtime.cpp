//===- Runtime.cpp - Load CUDA artifacts through the driver API -----------===//
//
// Part of the Sinter project.
//
// The C API of include/sinter-c/Runtime.h but sinter_rt_run (Launch.cpp)
// and the library-call queries (LibraryCalls.cpp): loading an artifact's
// manifest (Manifest.cpp) and kernels into a device context (the driver is
// opened with dlopen, Driver.cpp), and unloading it. No MLIR, no LLVM, no
// CUDA headers.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"

#include "Artifact.h"
#include "Graph.h"
#include "LibraryCalls.h"
#include "Manifest.h"
#include "Program.h"

#include <algorithm>
#include <memory>
#include <string>

using namespace sinter::rt;

extern "C" const char *sinter_rt_last_error(void) {
  return lastError().c_str();
}

extern "C" int sinter_rt_cuda_available(void) {
  std::string error;
  Driver *d = driver(error);
  if (!d)
    return 0;
  int count = 0;
  return d->cuDeviceGetCount(&count) == 0 && count > 0;
}

extern "C" int sinter_rt_load(const char *dir, int device,
                              sinter_rt_program **out) {
  if (!out)
    return fail(SINTER_RT_ERROR_ARGUMENT, "sinter_rt_load: `out` is NULL");
  *out = nullptr;
  std::string base = dir ? dir : ".";
  ArtifactFiles files;
  if (int rc = readArtifact(base, files))
    return rc;
  auto program = std::make_unique<sinter_rt_program>();
  if (int rc = parseManifest(files.manifest, *program))
    return rc;
  std::string error;
  Driver *d = driver(error);
  if (!d)
    return fail(SINTER_RT_ERROR_DRIVER, error);
  if (!d->cuTensorMapEncodeTiled)
    for (auto &[name, f] : program->functions)
      for (Launch &l : f.launches)
        if (!l.tensorMaps.empty())
          return fail(SINTER_RT_ERROR_DRIVER,
                      "the CUDA driver has no cuTensorMapEncodeTiled (CUDA "
                      "12 or newer), which the tensor map arguments of " +
                          l.kernel + " in " + name + " need");
  program->drv = d;
  SINTER_CU(d, cuDeviceGet(&program->device, device),
            "cuDeviceGet(" + std::to_string(device) + ")");
  // Persistent kernels: as many blocks as the device's SMs hold, each
  // taking the same number of work items (ceil(work / slots); the rule of
  // the compiler's grid, which assumed a chip's usual SM count).
  int sms = 0;
  for (auto &[name, f] : program->functions)
    for (Launch &l : f.launches) {
      if (!l.persistentWork)
        continue;
      if (!sms)
        SINTER_CU(d,
                  cuDeviceGetAttribute(&sms, kMultiprocessorCountAttr,
                                       program->device),
                  "cuDeviceGetAttribute(multiprocessor count)");
      uint64_t slots = static_cast<uint64_t>(std::max(sms, 1)) * l.ctasPerSM;
      uint64_t perBlock = (l.persistentWork + slots - 1) / slots;
      l.grid[0] =
          static_cast<unsigned>((l.persistentWork + perBlock - 1) / perBlock);
    }
  SINTER_CU(d, cuDevicePrimaryCtxRetain(&program->context, program->device),
            "cuDevicePrimaryCtxRetain");
  SINTER_CU(d, cuCtxSetCurrent(program->context), "cuCtxSetCurrent");
  SINTER_CU(d, cuModuleLoadData(&program->module, files.cubin.data()),
            "cuModuleLoadData(" + files.cubinPath + ")");
  for (auto &[name, f] : program->functions) {
    for (Launch &l : f.launches) {
      SINTER_CU(
          d,
          cuModuleGetFunction(&l.function, program->module, l.kernel.c_str()),
          "cuModuleGetFunction(" + l.kernel + ")");
      // The default cap on dynamic shared memory is 48 KiB minus the
      // kernel's static shared memory (e.g. the alignment slot of
      // gpu.dynamic_shared_memory): raise it for every kernel that asks
      // for dynamic shared memory, not only those above 48 KiB.
      // Kernels that stage tiles in shared memory also prefer the largest
      // shared-memory carveout, so that as many blocks fit per SM as their
      // registers allow (the driver's default split can leave room for one).
      if (l.sharedMemory > 0) {
        SINTER_CU(d,
                  cuFuncSetAttribute(l.function, kMaxDynamicSharedSizeAttr,
                                     static_cast<int>(l.sharedMemory)),
                  "cuFuncSetAttribute(" + l.kernel + ")");
        SINTER_CU(d,
                  cuFuncSetAttribute(l.function, kPreferredCarveoutAttr, 100),
                  "cuFuncSetAttribute(" + l.kernel + ", carveout)");
      }
    }
  }
  *out = program.release();
  return SINTER_RT_OK;
}

extern "C" void sinter_rt_unload(sinter_rt_program *program) {
  if (!program)
    return;
  if (Driver *d = program->drv) {
    d->cuCtxSetCurrent(program->context);
    releaseGraphs(*program);
    releaseLibraryCalls(*program);
    for (auto &[name, f] : program->functions)
      for (CUdeviceptr t : f.temps)
        d->cuMemFree(t);
    if (program->module)
      d->cuModuleUnload(program->module);
    d->cuDevicePrimaryCtxRelease(program->device);
  }
  delete program;
}

extern "C" int sinter_rt_synchronize(void *stream) {
  std::string error;
  Driver *d = driver(error);
  if (!d)
    return fail(SINTER_RT_ERROR_DRIVER, error);
  SINTER_CU(d, cuStreamSynchronize(stream), "cuStreamSynchronize");
  return SINTER_RT_OK;
}
