//===- Launch.cpp - Run a function of a loaded artifact -------------------===//
//
// Part of the Sinter project.
//
// sinter_rt_run: a function's launches in order on the caller's stream,
// kernels through cuLaunchKernel (tensor map parameters encoded for the
// run's pointers) and library calls through LibraryCalls.cpp.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"

#include "Graph.h"
#include "LibraryCalls.h"
#include "Program.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace sinter::rt;

/// Encodes `t` for its base pointer in this run, unless it already is (the
/// encode runs on the host, but costs a driver call per launch otherwise).
static int encodeTensorMap(Driver &d, const Function &f, const Launch &l,
                           TensorMap &t, void *const *args) {
  bool isArg = t.buffer.kind == Param::Argument;
  uint64_t base = isArg ? reinterpret_cast<uint64_t>(args[t.buffer.index])
                        : static_cast<uint64_t>(f.temps[t.buffer.index]);
  if (t.encoded && t.encodedFor == base)
    return SINTER_RT_OK;
  uint64_t align = t.interleave == 2 ? 32 : 16;
  if (base % align != 0) {
    std::ostringstream os;
    os << f.name << ": "
       << (isArg ? "argument " + f.argumentNames[t.buffer.index]
                 : "temp " + std::to_string(t.buffer.index))
       << " (0x" << std::hex << base << std::dec << "), the tensor map of "
       << l.kernel << " arg " << t.position << ", is not " << align
       << "-byte aligned: the TMA needs " << align << "-byte aligned tensors";
    return fail(SINTER_RT_ERROR_ARGUMENT, os.str());
  }
  t.encoded = false;
  SINTER_CU(&d,
            cuTensorMapEncodeTiled(
                t.map, t.dataType, t.rank, reinterpret_cast<void *>(base),
                t.globalDim, t.globalStrides, t.boxDim, t.elementStrides,
                t.interleave, t.swizzle, t.l2Promotion, t.oobFill),
            "cuTensorMapEncodeTiled(" + l.kernel + " arg " +
                std::to_string(t.position) + ") in " + f.name);
  t.encoded = true;
  t.encodedFor = base;
  return SINTER_RT_OK;
}

extern "C" int sinter_rt_run(sinter_rt_program *program, const char *function,
                             void *const *args, size_t num_args, void *stream) {
  if (!program)
    return fail(SINTER_RT_ERROR_ARGUMENT, "no program");
  auto it = program->functions.find(function ? function : "");
  if (it == program->functions.end()) {
    std::string known;
    for (auto &[name, f] : program->functions)
      known += (known.empty() ? "" : ", ") + name;
    return fail(SINTER_RT_ERROR_ARGUMENT,
                std::string("unknown function '") + (function ? function : "") +
                    "' (the artifact has: " + known + ")");
  }
  Function &f = it->second;
  if (num_args && !args)
    return fail(SINTER_RT_ERROR_ARGUMENT, f.name + ": `args` is NULL");
  if (num_args != f.argumentNames.size())
    return fail(SINTER_RT_ERROR_ARGUMENT,
                f.name + " takes " + std::to_string(f.argumentNames.size()) +
                    " arguments (inputs then outputs), got " +
                    std::to_string(num_args));
  Driver *d = program->drv;
  std::lock_guard<std::mutex> lock(program->mutex);
  SINTER_CU(d, cuCtxSetCurrent(program->context), "cuCtxSetCurrent");
  if (f.temps.size() != f.tempBytes.size()) {
    for (size_t bytes : f.tempBytes) {
      CUdeviceptr ptr = 0;
      SINTER_CU(d, memAllocOutsideCapture(&ptr, bytes ? bytes : 1),
                "cuMemAlloc(" + std::to_string(bytes) + " bytes) for " +
                    f.name);
      f.temps.push_back(ptr);
    }
  }
  bool ran = false;
  if (int rc = runAsGraph(*program, f, args, stream, ran))
    return rc;
  if (ran)
    return SINTER_RT_OK;
  return runLaunches(*program, f, args, stream);
}

int sinter::rt::runLaunches(sinter_rt_program &p, Function &f,
                            void *const *args, CUstream stream) {
  sinter_rt_program *program = &p;
  Driver *d = program->drv;
  static const bool syncEach = [] {
    const char *v = std::getenv("SINTER_CUDA_SYNC");
    return v && std::strcmp(v, "0") != 0;
  }();
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  for (Launch &l : f.launches) {
    if (l.gemm) {
      bool ran = false;
      if (int rc = runGemm(*program, f, l, args, stream, ran))
        return rc;
      if (ran) {
        if (syncEach)
          SINTER_CU(d, cuStreamSynchronize(stream),
                    "cublasLtMatmul(" + l.gemm->name + ") in " + f.name);
        continue;
      }
    }
    storage.assign(l.params.size(), 0);
    params.assign(l.params.size(), nullptr);
    for (size_t i = 0; i < l.params.size(); ++i) {
      const Param &p = l.params[i];
      switch (p.kind) {
      case Param::Argument:
        // Buffers: args[i] is the device pointer itself; scalars: args[i]
        // points to the value, which is what cuLaunchKernel wants.
        if (f.argumentIsScalar[p.index]) {
          params[i] = args[p.index];
        } else {
          storage[i] = reinterpret_cast<uint64_t>(args[p.index]);
          params[i] = &storage[i];
        }
        break;
      case Param::Temp:
        storage[i] = f.temps[p.index];
        params[i] = &storage[i];
        break;
      case Param::Constant:
        storage[i] = p.bits;
        params[i] = &storage[i];
        break;
      case Param::TensorMap:
        if (int rc = encodeTensorMap(*d, f, l, l.tensorMaps[p.index], args))
          return rc;
        // Passed by value: kernelParams[i] points to the 128 bytes.
        params[i] = l.tensorMaps[p.index].map;
        break;
      }
    }
    SINTER_CU(d,
              cuLaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2],
                             l.block[0], l.block[1], l.block[2], l.sharedMemory,
                             stream, params.data(), nullptr),
              "cuLaunchKernel(" + l.kernel + ") in " + f.name);
    if (syncEach)
      SINTER_CU(d, cuStreamSynchronize(stream),
                "kernel " + l.kernel + " in " + f.name);
  }
  return SINTER_RT_OK;
}
