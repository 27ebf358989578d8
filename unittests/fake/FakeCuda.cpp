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
// A test may give a kernel the sizes of its parameters
// (fake_cuda_set_param_sizes); its launches then copy the parameters' bytes,
// as the driver does, so that the test can read what the kernel got.
// cuTensorMapEncodeTiled records its arguments and writes a recognizable map
// (FakeCuda.h); built with SINTER_FAKE_CUDA_NO_TENSOR_MAP, the driver lacks
// it, as drivers before CUDA 12 do.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {
std::mutex mutex;
std::string launches;              // kernel names, comma-separated
std::map<size_t, int> allocations; // live allocations by size
int freed = 0;
int context, module;
/// Parameter sizes of the kernels a test described, and the parameters of
/// the last launch of one of them: where each was and its bytes.
std::map<std::string, std::vector<unsigned>> paramSizes;
std::vector<const void *> paramAddresses;
std::vector<std::vector<unsigned char>> paramBytes;
std::vector<FakeTensorMapEncode> encodes;
int encodeStatus = 0;  // what cuTensorMapEncodeTiled returns
int smCount = 132;     // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
unsigned lastGrid = 0; // gridDimX of the last launch
int moduleLoads = 0;   // cuModuleLoadData calls
/// Stream capture (CUDA graphs): launches on a capturing stream are
/// recorded into the graph, and a graph launch replays them by name.
void *capturing = nullptr;
std::vector<std::string> captured;
int graphLaunches = 0;
int handle;
/// The "GPU clock" (microseconds): the fake cuBLASLt advances it by each
/// matmul's cost (fake_cuda_advance); an event records it.
double clockUs = 0;
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
int cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 16 ? smCount : 0;
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
  ++moduleLoads;
  return 0;
}
int cuModuleUnload(void *) { return 0; }
int cuModuleGetFunction(void **f, void *, const char *name) {
  *f = strdup(name); // a kernel is its name (leaked, as tests are short)
  return 0;
}
int cuFuncSetAttribute(void *, int, int) { return 0; }
int cuLaunchKernel(void *f, unsigned gridX, unsigned, unsigned, unsigned,
                   unsigned, unsigned, unsigned, void *, void **kernelParams,
                   void **) {
  std::lock_guard<std::mutex> lock(mutex);
  lastGrid = gridX;
  const char *name = static_cast<const char *>(f);
  if (capturing) {
    captured.push_back(name);
    return 0;
  }
  launches += std::string(launches.empty() ? "" : ",") + name;
  auto sizes = paramSizes.find(name);
  if (sizes != paramSizes.end()) {
    paramAddresses.clear();
    paramBytes.clear();
    for (size_t i = 0; i < sizes->second.size(); ++i) {
      auto *p = static_cast<const unsigned char *>(kernelParams[i]);
      paramAddresses.push_back(p);
      paramBytes.emplace_back(p, p + sizes->second[i]);
    }
  }
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
int cuStreamCreate(void **stream, unsigned) {
  *stream = &handle;
  return 0;
}
int cuStreamDestroy_v2(void *) { return 0; }
int cuEventCreate(void **event, unsigned) {
  *event = new double(0);
  return 0;
}
int cuEventDestroy_v2(void *event) {
  delete static_cast<double *>(event);
  return 0;
}
int cuEventRecord(void *event, void *) {
  std::lock_guard<std::mutex> lock(mutex);
  *static_cast<double *>(event) = clockUs;
  return 0;
}
int cuEventSynchronize(void *) { return 0; }
int cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = static_cast<float>(
      (*static_cast<double *>(end) - *static_cast<double *>(start)) / 1000);
  return 0;
}
int cuStreamIsCapturing(void *stream, int *status) {
  std::lock_guard<std::mutex> lock(mutex);
  *status = capturing && capturing == stream ? 1 : 0; // ..._ACTIVE : _NONE
  return 0;
}
int cuStreamWaitEvent(void *, void *, unsigned) { return 0; }
int cuStreamBeginCapture_v2(void *stream, int) {
  std::lock_guard<std::mutex> lock(mutex);
  capturing = stream;
  captured.clear();
  return 0;
}
int cuStreamEndCapture(void *, void **graph) {
  std::lock_guard<std::mutex> lock(mutex);
  capturing = nullptr;
  *graph = new std::vector<std::string>(captured);
  return 0;
}
int cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long) {
  *exec = new std::vector<std::string>(
      *static_cast<std::vector<std::string> *>(graph));
  return 0;
}
int cuGraphLaunch(void *exec, void *) {
  std::lock_guard<std::mutex> lock(mutex);
  ++graphLaunches;
  for (const std::string &name : *static_cast<std::vector<std::string> *>(exec))
    launches += (launches.empty() ? "" : ",") + name;
  return 0;
}
int cuGraphDestroy(void *graph) {
  delete static_cast<std::vector<std::string> *>(graph);
  return 0;
}
int cuGraphExecDestroy(void *exec) {
  delete static_cast<std::vector<std::string> *>(exec);
  return 0;
}
int cuGetErrorName(int, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return 0;
}
int cuGetErrorString(int, const char **text) {
  *text = "the fake driver failed";
  return 0;
}
#ifndef SINTER_FAKE_CUDA_NO_TENSOR_MAP
int cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank,
                           void *globalAddress, const uint64_t *globalDim,
                           const uint64_t *globalStrides,
                           const uint32_t *boxDim,
                           const uint32_t *elementStrides, int interleave,
                           int swizzle, int l2Promotion, int oobFill) {
  std::lock_guard<std::mutex> lock(mutex);
  FakeTensorMapEncode e{};
  e.tensorMap = tensorMap;
  e.dataType = dataType;
  e.rank = rank;
  e.globalAddress = globalAddress;
  e.interleave = interleave;
  e.swizzle = swizzle;
  e.l2Promotion = l2Promotion;
  e.oobFill = oobFill;
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    e.globalDim[i] = globalDim[i];
    e.boxDim[i] = boxDim[i];
    e.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      e.globalStrides[i] = globalStrides[i];
  }
  encodes.push_back(e);
  // CUDA_ERROR_INVALID_VALUE, as the driver, for a misaligned map or
  // tensor.
  if (encodeStatus || reinterpret_cast<uintptr_t>(tensorMap) % 64 ||
      reinterpret_cast<uintptr_t>(globalAddress) % 16)
    return encodeStatus ? encodeStatus : 1;
  auto *bytes = static_cast<unsigned char *>(tensorMap);
  for (int b = 0; b < 128; ++b)
    bytes[b] = static_cast<unsigned char>(b ^ 0x5a);
  uint64_t head[3] = {kFakeTensorMapMagic,
                      reinterpret_cast<uintptr_t>(globalAddress),
                      static_cast<uint64_t>(encodes.size())};
  std::memcpy(bytes, head, sizeof(head));
  return 0;
}
#endif

// --- Control, for the tests (dlsym on this library). ---
const char *fake_cuda_launches() { return launches.c_str(); }
void fake_cuda_advance(double us) {
  std::lock_guard<std::mutex> lock(mutex);
  clockUs += us;
}
void fake_cuda_set_sm_count(int count) { smCount = count; }
unsigned fake_cuda_last_grid() { return lastGrid; }
int fake_cuda_module_loads() { return moduleLoads; }
int fake_cuda_allocations(size_t bytes) { return allocations[bytes]; }
int fake_cuda_frees() { return freed; }
void fake_cuda_set_param_sizes(const char *kernel, const unsigned *sizes,
                               int count) {
  paramSizes[kernel].assign(sizes, sizes + count);
}
int fake_cuda_param_count() { return static_cast<int>(paramBytes.size()); }
const void *fake_cuda_param_address(int i) { return paramAddresses.at(i); }
const unsigned char *fake_cuda_param_bytes(int i) {
  return paramBytes.at(i).data();
}
int fake_cuda_graph_launches() { return graphLaunches; }
int fake_cuda_encodes() { return static_cast<int>(encodes.size()); }
const FakeTensorMapEncode *fake_cuda_encode(int i) { return &encodes.at(i); }
void fake_cuda_set_encode_status(int status) { encodeStatus = status; }
void fake_cuda_reset() {
  launches.clear();
  allocations.clear();
  freed = 0;
  paramSizes.clear();
  paramAddresses.clear();
  paramBytes.clear();
  encodes.clear();
  encodeStatus = 0;
  smCount = 132;
  lastGrid = 0;
  moduleLoads = 0;
  capturing = nullptr;
  captured.clear();
  graphLaunches = 0;
  clockUs = 0;
}
}
