//===- FakeCuda.cpp - A stand-in CUDA driver for runtime tests ------------===//
//
// Part of the Sinter project.
//
// Built as libcuda.so.1 in its own directory, so that a test run with that
// directory on LD_LIBRARY_PATH loads it instead of the driver: "device"
// memory is host memory, modules and kernels are names, and launches are
// recorded instead of run. With FakeCublasLt.cpp it lets the runtime's
// library calls run end to end on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {
std::mutex mutex;
std::string launches;              // kernel names, comma-separated
std::map<size_t, int> allocations; // live allocations by size
int freed = 0;
int context, module;
} // namespace

extern "C" {
int cuInit(unsigned) { return 0; }
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **ctx, int) {
  *ctx = &context;
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int) { return 0; }
int cuCtxSetCurrent(void *) { return 0; }
int cuModuleLoadData(void **m, const void *) {
  *m = &module;
  return 0;
}
int cuModuleUnload(void *) { return 0; }
int cuModuleGetFunction(void **f, void *, const char *name) {
  *f = strdup(name); // a kernel is its name (leaked, as tests are short)
  return 0;
}
int cuFuncSetAttribute(void *, int, int) { return 0; }
int cuLaunchKernel(void *f, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void *, void **, void **) {
  std::lock_guard<std::mutex> lock(mutex);
  launches +=
      std::string(launches.empty() ? "" : ",") + static_cast<const char *>(f);
  return 0;
}
int cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  *ptr = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex);
  ++allocations[bytes];
  return p ? 0 : 2; // CUDA_ERROR_OUT_OF_MEMORY
}
int cuMemFree_v2(unsigned long long ptr) {
  std::free(reinterpret_cast<void *>(ptr));
  std::lock_guard<std::mutex> lock(mutex);
  ++freed;
  return 0;
}
int cuStreamSynchronize(void *) { return 0; }
int cuGetErrorName(int, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return 0;
}
int cuGetErrorString(int, const char **text) {
  *text = "the fake driver failed";
  return 0;
}

// --- Control, for the tests (dlsym on this library). ---
const char *fake_cuda_launches() { return launches.c_str(); }
int fake_cuda_allocations(size_t bytes) { return allocations[bytes]; }
int fake_cuda_frees() { return freed; }
void fake_cuda_reset() {
  launches.clear();
  allocations.clear();
  freed = 0;
}
}
