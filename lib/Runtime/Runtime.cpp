//===- Runtime.cpp - Run CUDA artifacts through the driver API ------------===//
//
// Part of the Sinter project.
//
// No MLIR, no LLVM, no CUDA headers: the driver is opened with dlopen and
// the few entry points used are declared here with their documented C ABI.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"

#include "Json.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

using sinter::rt::JsonValue;

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
constexpr int kMaxDynamicSharedSizeAttr =
    8; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kPreferredCarveoutAttr =
    9; // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent)

thread_local std::string lastError;

int fail(int code, std::string message) {
  lastError = std::move(message);
  return code;
}

/// The CUDA driver entry points, resolved once.
struct Driver {
  void *handle = nullptr;
  std::string loadError;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
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

  template <typename F> bool resolve(F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(handle, name));
    if (!fn)
      loadError = std::string("libcuda.so.1 has no symbol ") + name;
    return fn != nullptr;
  }

  bool load() {
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *e = dlerror();
      loadError = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                  (e ? e : "unknown error");
      return false;
    }
    return resolve(cuInit, "cuInit") &&
           resolve(cuDeviceGetCount, "cuDeviceGetCount") &&
           resolve(cuDeviceGet, "cuDeviceGet") &&
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

  std::string describe(CUresult r) const {
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
};

Driver *driver(std::string &error) {
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

#define SINTER_CU(drv, call, what)                                             \
  do {                                                                         \
    CUresult status_ = (drv)->call;                                            \
    if (status_ != 0)                                                          \
      return fail(SINTER_RT_ERROR_DRIVER,                                      \
                  std::string(what) + ": " + (drv)->describe(status_));        \
  } while (0)

struct Param {
  enum Kind { Argument, Temp, Constant } kind;
  size_t index = 0;  // argument or temp index
  uint64_t bits = 0; // constant payload (little-endian)
};

struct Launch {
  std::string kernel;
  CUfunction function = nullptr;
  unsigned grid[3], block[3];
  unsigned sharedMemory = 0;
  std::vector<Param> params;
};

struct Function {
  std::string name;
  std::vector<std::string> argumentNames;
  std::vector<bool> argumentIsScalar;
  std::vector<size_t> tempBytes;
  std::vector<CUdeviceptr> temps; // allocated on first run
  std::vector<Launch> launches;
};

} // namespace

struct sinter_rt_program {
  Driver *drv = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::map<std::string, Function> functions;
  std::mutex mutex;
};

static bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream os;
  os << in.rdbuf();
  out = os.str();
  return true;
}

/// Converts the manifest into functions; kernels are resolved later.
static int parseManifest(const JsonValue &root, sinter_rt_program &p) {
  auto bad = [](const std::string &what) {
    return fail(SINTER_RT_ERROR_ARTIFACT, "malformed manifest: " + what);
  };
  const JsonValue *target = root.get("target");
  if (!target || !target->isString() ||
      target->string.compare(0, 5, "cuda:") != 0)
    return bad("\"target\" is not a cuda target");
  const JsonValue *functions = root.get("functions");
  if (!functions || !functions->isArray())
    return bad("no \"functions\" array");
  for (const JsonValue &fv : functions->array) {
    Function f;
    const JsonValue *name = fv.get("name");
    const JsonValue *args = fv.get("arguments");
    const JsonValue *temps = fv.get("temps");
    const JsonValue *launches = fv.get("launches");
    if (!name || !name->isString() || !args || !args->isArray() || !temps ||
        !temps->isArray() || !launches || !launches->isArray())
      return bad("a function lacks name/arguments/temps/launches");
    f.name = name->string;
    for (size_t i = 0; i < args->array.size(); ++i) {
      const JsonValue *n = args->array[i].get("name");
      if (!n || !n->isString())
        return bad("an argument of " + f.name + " has no name");
      f.argumentNames.push_back(n->string);
      const JsonValue *kind = args->array[i].get("kind");
      f.argumentIsScalar.push_back(kind && kind->string == "scalar");
    }
    for (size_t i = 0; i < temps->array.size(); ++i) {
      const JsonValue *n = temps->array[i].get("name");
      const JsonValue *bytes = temps->array[i].get("bytes");
      if (!n || !n->isString() || !bytes || !bytes->isNumber())
        return bad("a temp of " + f.name + " lacks name/bytes");
      f.tempBytes.push_back(static_cast<size_t>(bytes->integer));
    }
    for (const JsonValue &lv : launches->array) {
      Launch l;
      const JsonValue *kernel = lv.get("kernel");
      const JsonValue *grid = lv.get("grid");
      const JsonValue *block = lv.get("block");
      const JsonValue *smem = lv.get("shared_memory");
      const JsonValue *largs = lv.get("args");
      if (!kernel || !kernel->isString() || !grid || grid->array.size() != 3 ||
          !block || block->array.size() != 3 || !largs || !largs->isArray())
        return bad("a launch of " + f.name + " is incomplete");
      l.kernel = kernel->string;
      for (int d = 0; d < 3; ++d) {
        l.grid[d] = static_cast<unsigned>(grid->array[d].integer);
        l.block[d] = static_cast<unsigned>(block->array[d].integer);
      }
      l.sharedMemory = smem ? static_cast<unsigned>(smem->integer) : 0;
      for (const JsonValue &av : largs->array) {
        const JsonValue *argRef = av.get("arg");
        const JsonValue *tempRef = av.get("temp");
        if (argRef || tempRef) {
          bool isArg = argRef != nullptr;
          int64_t index = (isArg ? argRef : tempRef)->integer;
          size_t count = isArg ? f.argumentNames.size() : f.tempBytes.size();
          if (index < 0 || static_cast<size_t>(index) >= count)
            return bad("launch of " + l.kernel + " refers to " +
                       (isArg ? "argument " : "temp ") + std::to_string(index) +
                       " of " + std::to_string(count));
          l.params.push_back(Param{isArg ? Param::Argument : Param::Temp,
                                   static_cast<size_t>(index), 0});
          continue;
        }
        const JsonValue *type = av.get("type");
        const JsonValue *value = av.get("value");
        const JsonValue *bits = av.get("bits");
        if (!type || (!value && !bits))
          return bad("a launch argument of " + l.kernel + " is incomplete");
        Param c{Param::Constant, 0, 0};
        if (bits && (type->string == "f32" || type->string == "f64")) {
          // Exact IEEE bits (also for inf and nan).
          c.bits =
              type->string == "f32"
                  ? static_cast<uint64_t>(static_cast<uint32_t>(bits->integer))
                  : static_cast<uint64_t>(bits->integer);
        } else if (!value) {
          return bad("a launch argument of " + l.kernel + " has no value");
        } else if (type->string == "f32") {
          float v = static_cast<float>(value->number);
          std::memcpy(&c.bits, &v, sizeof(v));
        } else if (type->string == "f64") {
          double v = value->number;
          std::memcpy(&c.bits, &v, sizeof(v));
        } else if (type->string == "i32") {
          int32_t v = static_cast<int32_t>(value->integer);
          std::memcpy(&c.bits, &v, sizeof(v));
        } else if (type->string == "i64") {
          int64_t v = value->integer;
          std::memcpy(&c.bits, &v, sizeof(v));
        } else {
          return bad("unknown constant type " + type->string);
        }
        l.params.push_back(c);
      }
      f.launches.push_back(std::move(l));
    }
    p.functions[f.name] = std::move(f);
  }
  return SINTER_RT_OK;
}

extern "C" const char *sinter_rt_last_error(void) { return lastError.c_str(); }

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
  *out = nullptr;
  std::string base = dir ? dir : ".";
  std::string manifestText, cubin;
  if (!readFile(base + "/manifest.json", manifestText))
    return fail(SINTER_RT_ERROR_ARTIFACT,
                "cannot read " + base + "/manifest.json");
  JsonValue root;
  std::string error;
  if (!sinter::rt::parseJson(manifestText, root, error))
    return fail(SINTER_RT_ERROR_ARTIFACT, base + "/manifest.json: " + error);
  const JsonValue *cubinName = root.get("cubin");
  std::string cubinPath =
      base + "/" + (cubinName ? cubinName->string : "kernels.cubin");
  if (!readFile(cubinPath, cubin))
    return fail(SINTER_RT_ERROR_ARTIFACT, "cannot read " + cubinPath);

  auto program = std::make_unique<sinter_rt_program>();
  if (int rc = parseManifest(root, *program))
    return rc;
  Driver *d = driver(error);
  if (!d)
    return fail(SINTER_RT_ERROR_DRIVER, error);
  program->drv = d;
  SINTER_CU(d, cuDeviceGet(&program->device, device),
            "cuDeviceGet(" + std::to_string(device) + ")");
  SINTER_CU(d, cuDevicePrimaryCtxRetain(&program->context, program->device),
            "cuDevicePrimaryCtxRetain");
  SINTER_CU(d, cuCtxSetCurrent(program->context), "cuCtxSetCurrent");
  SINTER_CU(d, cuModuleLoadData(&program->module, cubin.data()),
            "cuModuleLoadData(" + cubinPath + ")");
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
    for (auto &[name, f] : program->functions)
      for (CUdeviceptr t : f.temps)
        d->cuMemFree(t);
    if (program->module)
      d->cuModuleUnload(program->module);
    d->cuDevicePrimaryCtxRelease(program->device);
  }
  delete program;
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
      SINTER_CU(d, cuMemAlloc(&ptr, bytes ? bytes : 1),
                "cuMemAlloc(" + std::to_string(bytes) + " bytes) for " +
                    f.name);
      f.temps.push_back(ptr);
    }
  }
  static const bool syncEach = [] {
    const char *v = std::getenv("SINTER_CUDA_SYNC");
    return v && std::strcmp(v, "0") != 0;
  }();
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  for (Launch &l : f.launches) {
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

extern "C" int sinter_rt_synchronize(void *stream) {
  std::string error;
  Driver *d = driver(error);
  if (!d)
    return fail(SINTER_RT_ERROR_DRIVER, error);
  SINTER_CU(d, cuStreamSynchronize(stream), "cuStreamSynchronize");
  return SINTER_RT_OK;
}
