//===- Runtime.cpp - Run CUDA artifacts through the driver API ------------===//
//
// Part of the Sinter project.
//
// No MLIR, no LLVM, no CUDA headers: the driver is opened with dlopen and
// the few entry points used are declared here with their documented C ABI.
// Library calls (cuBLASLt GEMMs) open cuBLASLt the same way on first use
// (CublasLt.h) and run their recorded fallback kernel when it is missing.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"

#include "CublasLt.h"
#include "Json.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
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
constexpr int kMultiprocessorCountAttr =
    16; // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int kPreferredCarveoutAttr =
    9; // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent)
/// CUtensorMap: 128 opaque bytes, 64-byte aligned (CU_TENSOR_MAP_NUM_QWORDS).
constexpr size_t kTensorMapBytes = 128;
constexpr size_t kTensorMapAlign = 64;
/// cuTensorMapEncodeTiled's limits (rank, box dims, strides).
constexpr unsigned kTensorMapMaxRank = 5;

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

  bool load() {
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *e = dlerror();
      loadError = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                  (e ? e : "unknown error");
      return false;
    }
    cuTensorMapEncodeTiled = reinterpret_cast<decltype(cuTensorMapEncodeTiled)>(
        dlsym(handle, "cuTensorMapEncodeTiled"));
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
  enum Kind { Argument, Temp, Constant, TensorMap } kind;
  size_t index = 0;  // argument, temp or (TensorMap) Launch::tensorMaps index
  uint64_t bits = 0; // constant payload (little-endian)
};

/// A kernel parameter that is a CUtensorMap (docs/Manifest.md), passed by
/// value: what cuTensorMapEncodeTiled is told (innermost dimension first),
/// and the map last encoded, for the base pointer it was encoded for.
struct TensorMap {
  Param buffer;        // Argument or Temp: the tensor's base
  size_t position = 0; // the launch argument's position, for messages
  int dataType = 0, interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
  uint32_t rank = 0;
  uint64_t globalDim[kTensorMapMaxRank] = {};
  uint64_t globalStrides[kTensorMapMaxRank - 1] = {};
  uint32_t boxDim[kTensorMapMaxRank] = {};
  uint32_t elementStrides[kTensorMapMaxRank] = {};
  bool encoded = false;
  uint64_t encodedFor = 0;
  alignas(kTensorMapAlign) unsigned char map[kTensorMapBytes] = {};
};

/// A "cublas_gemm" entry (docs/Manifest.md) and its cuBLASLt state.
struct Gemm {
  std::string name; // the entry's name (its fallback kernel's)
  sinter::rt::lt::RowMajorGemm shape{};
  std::string aType, bType, cType;
  Param a, b, c, cInit; // buffers (Argument or Temp)
  bool accumulate = false;
  float alpha = 1.0f, beta = 0.0f;
  // Descriptors, made on first use, destroyed at unload.
  bool described = false;
  sinter::rt::lt::MatmulDesc op = nullptr;
  sinter::rt::lt::MatrixLayout first = nullptr, second = nullptr,
                               cLayout = nullptr;
  // The algorithm for the pointer alignments in `aligned` (first operand,
  // second, C, D), or why there is none.
  enum class Path { Undecided, Library, Fallback };
  Path path = Path::Undecided, logged = Path::Undecided;
  uint32_t aligned[4] = {0, 0, 0, 0};
  sinter::rt::lt::MatmulAlgo algo{};
  std::string fallbackReason;
};

struct Launch {
  std::string kernel;
  CUfunction function = nullptr;
  unsigned grid[3], block[3];
  unsigned sharedMemory = 0;
  std::vector<Param> params;
  std::vector<TensorMap> tensorMaps; // of the TensorMap params
  /// A persistent kernel (docs/Manifest.md): its blocks loop over
  /// `persistentWork` items, so the grid is sized at load for the device's
  /// SMs, `ctasPerSM` resident blocks each.
  uint64_t persistentWork = 0;
  unsigned ctasPerSM = 0;
  /// Set for a library call: the kernel above is its fallback.
  std::unique_ptr<Gemm> gemm;
};

struct Function {
  std::string name;
  std::vector<std::string> argumentNames;
  std::vector<bool> argumentIsScalar;
  std::vector<size_t> argumentBytes; // 0 when the manifest does not say
  std::vector<size_t> tempBytes;
  std::vector<CUdeviceptr> temps; // allocated on first run
  std::vector<Launch> launches;
};

/// The cuBLASLt handle of a context and one workspace per stream (two
/// streams must not share one), shared by every program using the context.
struct LtContext {
  sinter::rt::lt::Handle handle = nullptr;
  std::map<CUstream, CUdeviceptr> workspaces;
  int users = 0;
};

/// Workspace of each library call: what cuBLAS recommends for Hopper.
constexpr size_t kWorkspaceBytes = 32u << 20;

std::mutex ltMutex;
std::map<CUcontext, LtContext> ltContexts;

} // namespace

struct sinter_rt_program {
  Driver *drv = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::map<std::string, Function> functions;
  std::mutex mutex;
  // Library calls: the context's cuBLASLt state (acquired on first use),
  // how the entries ran, and why the last fallback happened.
  LtContext *lt = nullptr;
  std::string ltFailure; // cublasLtCreate failed: never retried
  uint64_t libraryCalls = 0, fallbackLaunches = 0;
  std::string lastFallback;
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

static int badManifest(const std::string &what) {
  return fail(SINTER_RT_ERROR_ARTIFACT, "malformed manifest: " + what);
}

/// A buffer reference {"arg": i} or {"temp": i} of `f`; `what` names it in
/// errors.
static int parseBufferRef(const JsonValue *v, const Function &f,
                          const std::string &what, Param &out) {
  const JsonValue *argRef = v ? v->get("arg") : nullptr;
  const JsonValue *tempRef = v ? v->get("temp") : nullptr;
  if (!argRef && !tempRef)
    return badManifest(what + " is not a buffer ({\"arg\": i} or "
                              "{\"temp\": i})");
  bool isArg = argRef != nullptr;
  int64_t index = (isArg ? argRef : tempRef)->integer;
  size_t count = isArg ? f.argumentNames.size() : f.tempBytes.size();
  if (index < 0 || static_cast<size_t>(index) >= count)
    return badManifest(what + " refers to " + (isArg ? "argument " : "temp ") +
                       std::to_string(index) + " of " + std::to_string(count));
  if (isArg && f.argumentIsScalar[index])
    return badManifest(what + " refers to the scalar argument " +
                       f.argumentNames[index]);
  out = Param{isArg ? Param::Argument : Param::Temp, static_cast<size_t>(index),
              0};
  return SINTER_RT_OK;
}

/// The string `key` of `v` as one of `names`' values (the driver's enum).
static bool enumField(const JsonValue &v, const char *key,
                      std::initializer_list<std::pair<const char *, int>> names,
                      int &out) {
  const JsonValue *field = v.get(key);
  if (!field || !field->isString())
    return false;
  for (const auto &[name, value] : names)
    if (field->string == name) {
      out = value;
      return true;
    }
  return false;
}

/// A tensor map launch argument (docs/Manifest.md): {"tensor_map": buffer,
/// "dtype", "shape", "box", "swizzle", "l2_promotion", "oob_fill",
/// "interleave"}, outermost dimension first. Everything
/// cuTensorMapEncodeTiled requires of it but the pointer is checked here.
static int parseTensorMap(const JsonValue &av, const Function &f,
                          const std::string &kernel, size_t position,
                          TensorMap &t) {
  std::string where = kernel + " arg " + std::to_string(position) + " in " +
                      f.name + " (tensor map)";
  auto bad = [&](const std::string &what) {
    return badManifest(where + ": " + what);
  };
  if (int rc = parseBufferRef(av.get("tensor_map"), f, where, t.buffer))
    return rc;
  t.position = position;
  // Element types of manifest buffers: their CUtensorMapDataType and size.
  struct DataType {
    const char *name;
    int code;
    uint64_t bytes;
    bool isFloat;
  };
  static const DataType dtypes[] = {
      {"float16", 6, 2, true}, {"bfloat16", 9, 2, true},
      {"float32", 7, 4, true}, {"float64", 8, 8, true},
      {"int32", 3, 4, false},  {"int64", 5, 8, false},
      {"uint8", 0, 1, false},  {"bool", 0, 1, false}};
  const JsonValue *dtype = av.get("dtype");
  std::string dtypeName = dtype && dtype->isString() ? dtype->string : "";
  const DataType *dt =
      std::find_if(std::begin(dtypes), std::end(dtypes),
                   [&](const DataType &d) { return dtypeName == d.name; });
  if (dt == std::end(dtypes))
    return bad("unsupported dtype '" + dtypeName + "'");
  t.dataType = dt->code;
  uint64_t eltBytes = dt->bytes;
  if (!enumField(av, "swizzle",
                 {{"none", 0}, {"32B", 1}, {"64B", 2}, {"128B", 3}}, t.swizzle))
    return bad("swizzle must be \"none\", \"32B\", \"64B\" or \"128B\"");
  if (!enumField(av, "l2_promotion",
                 {{"none", 0}, {"64B", 1}, {"128B", 2}, {"256B", 3}},
                 t.l2Promotion))
    return bad("l2_promotion must be \"none\", \"64B\", \"128B\" or "
               "\"256B\"");
  if (!enumField(av, "oob_fill", {{"zero", 0}, {"nan", 1}}, t.oobFill))
    return bad("oob_fill must be \"zero\" or \"nan\"");
  if (t.oobFill == 1 && !dt->isFloat)
    return bad("oob_fill \"nan\" needs a floating-point dtype, not " +
               dtypeName);
  if (!enumField(av, "interleave", {{"none", 0}, {"16B", 1}, {"32B", 2}},
                 t.interleave))
    return bad("interleave must be \"none\", \"16B\" or \"32B\"");
  const JsonValue *shape = av.get("shape");
  const JsonValue *box = av.get("box");
  if (!shape || !shape->isArray() || !box || !box->isArray())
    return bad("shape and box must be arrays");
  size_t rank = shape->array.size();
  if (rank < 1 || rank > kTensorMapMaxRank)
    return bad("rank " + std::to_string(rank) + " is not in [1, " +
               std::to_string(kTensorMapMaxRank) + "]");
  if (box->array.size() != rank)
    return bad("box has " + std::to_string(box->array.size()) +
               " dimensions, shape " + std::to_string(rank));
  if (t.interleave != 0 && rank < 3)
    return bad("an interleaved tensor map needs rank 3 or more");
  if (t.interleave == 2 && t.swizzle != 1)
    return bad("interleave \"32B\" needs swizzle \"32B\"");
  t.rank = static_cast<uint32_t>(rank);
  // The driver's order is the reverse: dimension 0 is the innermost.
  for (size_t i = 0; i < rank; ++i) {
    const JsonValue &s = shape->array[rank - 1 - i];
    const JsonValue &b = box->array[rank - 1 - i];
    std::string dim = " dimension " + std::to_string(rank - 1 - i);
    if (!s.isNumber() || s.integer < 1 || s.integer > (int64_t(1) << 32))
      return bad("shape" + dim + " is not in [1, 2^32]");
    // A box may reach past the tensor (a tile of a short sequence): the
    // copy fills what lies outside with `oob_fill`.
    if (!b.isNumber() || b.integer < 1 || b.integer > 256)
      return bad("box" + dim + " is " + std::to_string(b.integer) +
                 ", not in [1, 256]");
    t.globalDim[i] = static_cast<uint64_t>(s.integer);
    t.boxDim[i] = static_cast<uint32_t>(b.integer);
    t.elementStrides[i] = 1;
  }
  uint64_t innerBytes = t.boxDim[0] * eltBytes;
  if (t.interleave == 0 && innerBytes % 16 != 0)
    return bad("the box's innermost dimension is " +
               std::to_string(innerBytes) + " bytes, not a multiple of 16");
  uint64_t span = t.swizzle == 0 ? 0 : uint64_t(16) << t.swizzle;
  if (t.interleave == 0 && span && innerBytes > span)
    return bad("the box's innermost dimension is " +
               std::to_string(innerBytes) + " bytes, more than the " +
               std::to_string(span) + "-byte swizzle span");
  // Dense row-major strides in bytes, each below 2^40.
  uint64_t multiple = t.interleave == 2 ? 32 : 16;
  long double bytes = static_cast<long double>(t.globalDim[0]) * eltBytes;
  auto text = [](long double n) {
    return n < 0x1p64L ? std::to_string(static_cast<uint64_t>(n))
                       : std::string("2^64 or more");
  };
  for (size_t i = 1; i < rank; ++i) {
    if (bytes >= static_cast<long double>(uint64_t(1) << 40) ||
        static_cast<uint64_t>(bytes) % multiple != 0)
      return bad("the stride of shape dimension " +
                 std::to_string(rank - 1 - i) + " is " + text(bytes) +
                 " bytes, not a multiple of " + std::to_string(multiple) +
                 " below 2^40");
    t.globalStrides[i - 1] = static_cast<uint64_t>(bytes);
    bytes *= t.globalDim[i];
  }
  // The whole tensor lies inside its buffer, when the manifest says how big
  // that is.
  size_t have = t.buffer.kind == Param::Argument
                    ? f.argumentBytes[t.buffer.index]
                    : f.tempBytes[t.buffer.index];
  if (have && bytes > static_cast<long double>(have))
    return bad("the shape needs " + text(bytes) + " bytes, its buffer has " +
               std::to_string(have));
  return SINTER_RT_OK;
}

/// A kernel launch: {"kernel", "grid", "block", "shared_memory", "args"}.
static int parseKernelLaunch(const JsonValue &lv, const Function &f,
                             Launch &l) {
  auto bad = badManifest;
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
  if (const JsonValue *persistent = lv.get("persistent")) {
    const JsonValue *work = persistent->get("work");
    const JsonValue *ctas = persistent->get("ctas_per_sm");
    if (!work || !work->isNumber() || work->integer < 1 || !ctas ||
        !ctas->isNumber() || ctas->integer < 1 || ctas->integer > 64)
      return bad("\"persistent\" of " + l.kernel +
                 " needs \"work\" >= 1 and \"ctas_per_sm\" in [1, 64]");
    l.persistentWork = static_cast<uint64_t>(work->integer);
    l.ctasPerSM = static_cast<unsigned>(ctas->integer);
  }
  for (size_t position = 0; position < largs->array.size(); ++position) {
    const JsonValue &av = largs->array[position];
    if (av.get("tensor_map")) {
      TensorMap t;
      if (int rc = parseTensorMap(av, f, l.kernel, position, t))
        return rc;
      l.params.push_back(Param{Param::TensorMap, l.tensorMaps.size(), 0});
      l.tensorMaps.push_back(t);
      continue;
    }
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
      c.bits = type->string == "f32"
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
  return SINTER_RT_OK;
}

/// A "cublas_gemm" library call and its "fallback" kernel launch
/// (docs/Manifest.md). Everything cuBLASLt would be told is checked here,
/// so that a bad manifest is an artifact error and never a wild access.
static int parseGemm(const JsonValue &lv, const Function &f, Launch &l) {
  namespace lt = sinter::rt::lt;
  auto g = std::make_unique<Gemm>();
  const JsonValue *name = lv.get("name");
  g->name = name && name->isString() ? name->string : "cublas_gemm";
  std::string where = "cublas_gemm " + g->name + " of " + f.name;
  auto integer = [&](const char *key, int64_t &out, int64_t lo,
                     int64_t hi) -> bool {
    const JsonValue *v = lv.get(key);
    if (!v || !v->isNumber() || v->integer < lo || v->integer > hi)
      return false;
    out = v->integer;
    return true;
  };
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  lt::RowMajorGemm &s = g->shape;
  if (!integer("m", s.m, 1, kInt32Max) || !integer("n", s.n, 1, kInt32Max) ||
      !integer("k", s.k, 1, kInt32Max) ||
      !integer("batch", s.batch, 1, kInt32Max))
    return badManifest(where + ": m, n, k and batch must be in [1, 2^31)");
  if (!integer("lda", s.lda, s.k, kInt32Max) ||
      !integer("ldb", s.ldb, s.n, kInt32Max) ||
      !integer("ldc", s.ldc, s.n, kInt32Max))
    return badManifest(where + ": lda, ldb and ldc must be at least k, n "
                               "and n (row-major)");
  if (!integer("stride_a", s.strideA, 0, kInt64Max) ||
      !integer("stride_b", s.strideB, 0, kInt64Max) ||
      !integer("stride_c", s.strideC, 0, kInt64Max))
    return badManifest(where + ": stride_a, stride_b and stride_c must be "
                               "non-negative");
  const JsonValue *layout = lv.get("layout");
  if (layout && layout->string != "row-major")
    return badManifest(where + ": layout '" + layout->string +
                       "' is not row-major");
  auto str = [&](const char *key) {
    const JsonValue *v = lv.get(key);
    return v && v->isString() ? v->string : std::string();
  };
  g->aType = str("a_dtype");
  g->bType = str("b_dtype");
  g->cType = str("c_dtype");
  std::string compute = str("compute_dtype");
  bool typesOk = g->aType == g->bType && lt::dataType(g->aType) >= 0 &&
                 (g->cType == g->aType || g->cType == "float32") &&
                 (g->aType != "float32" || g->cType == "float32") &&
                 (compute.empty() || compute == "float32");
  if (!typesOk)
    return badManifest(where + ": unsupported types a=" + g->aType + " b=" +
                       g->bType + " c=" + g->cType + " compute=" + compute);
  if (int rc = parseBufferRef(lv.get("a"), f, where + ": a", g->a))
    return rc;
  if (int rc = parseBufferRef(lv.get("b"), f, where + ": b", g->b))
    return rc;
  if (int rc = parseBufferRef(lv.get("c"), f, where + ": c", g->c))
    return rc;
  const JsonValue *accumulate = lv.get("accumulate");
  g->accumulate = accumulate && accumulate->boolean;
  if (g->accumulate) {
    if (int rc =
            parseBufferRef(lv.get("c_init"), f, where + ": c_init", g->cInit))
      return rc;
  }
  const JsonValue *alpha = lv.get("alpha");
  const JsonValue *beta = lv.get("beta");
  g->alpha =
      alpha && alpha->isNumber() ? static_cast<float>(alpha->number) : 1.0f;
  g->beta = beta && beta->isNumber() ? static_cast<float>(beta->number)
                                     : (g->accumulate ? 1.0f : 0.0f);
  if (g->beta != 0.0f && !g->accumulate)
    return badManifest(where + ": beta is not 0 but there is no c_init");
  // Every matrix of the batch lies inside its buffer.
  auto fits = [&](const Param &buf, const std::string &dtype, int64_t rows,
                  int64_t cols, int64_t ld, int64_t stride,
                  const char *what) -> int {
    size_t have = buf.kind == Param::Argument ? f.argumentBytes[buf.index]
                                              : f.tempBytes[buf.index];
    long double need = ((static_cast<long double>(s.batch) - 1) * stride +
                        (static_cast<long double>(rows) - 1) * ld + cols) *
                       lt::elementBytes(dtype);
    if (have && need > static_cast<long double>(have))
      return badManifest(where + ": " + what + " needs " +
                         std::to_string(static_cast<uint64_t>(need)) +
                         " bytes, its buffer has " + std::to_string(have));
    return SINTER_RT_OK;
  };
  if (int rc = fits(g->a, g->aType, s.m, s.k, s.lda, s.strideA, "a"))
    return rc;
  if (int rc = fits(g->b, g->bType, s.k, s.n, s.ldb, s.strideB, "b"))
    return rc;
  if (int rc = fits(g->c, g->cType, s.m, s.n, s.ldc, s.strideC, "c"))
    return rc;
  if (g->accumulate)
    if (int rc = fits(g->cInit, g->cType, s.m, s.n, s.ldc, s.strideC, "c_init"))
      return rc;
  const JsonValue *fallback = lv.get("fallback");
  if (!fallback || !fallback->isObject())
    return badManifest(where + " has no fallback kernel launch");
  const JsonValue *fk = fallback->get("kind");
  if (fk && fk->string != "kernel")
    return badManifest(where + ": its fallback is not a kernel launch");
  if (int rc = parseKernelLaunch(*fallback, f, l))
    return rc;
  l.gemm = std::move(g);
  return SINTER_RT_OK;
}

/// Manifest formats this runtime reads: 1 (kernel launches), 2 (launch
/// kinds: kernels and cublas_gemm library calls) and 3 (kernel args may be
/// tensor maps).
constexpr int64_t kNewestManifestFormat = 3;

/// Converts the manifest into functions; kernels are resolved later.
static int parseManifest(const JsonValue &root, sinter_rt_program &p) {
  auto bad = badManifest;
  if (const JsonValue *version = root.get("format_version")) {
    if (!version->isNumber() || version->integer < 1 ||
        version->integer > kNewestManifestFormat)
      return fail(SINTER_RT_ERROR_ARTIFACT,
                  "manifest format " +
                      (version->isNumber() ? std::to_string(version->integer)
                                           : std::string("?")) +
                      " is not supported (this runtime reads formats 1 to " +
                      std::to_string(kNewestManifestFormat) + ")");
  }
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
      const JsonValue *bytes = args->array[i].get("bytes");
      f.argumentBytes.push_back(bytes && bytes->isNumber() && bytes->integer > 0
                                    ? static_cast<size_t>(bytes->integer)
                                    : 0);
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
      const JsonValue *kind = lv.get("kind");
      std::string k = kind && kind->isString() ? kind->string : "kernel";
      if (k == "kernel") {
        if (int rc = parseKernelLaunch(lv, f, l))
          return rc;
      } else if (k == "cublas_gemm") {
        if (int rc = parseGemm(lv, f, l))
          return rc;
      } else {
        return bad("a launch of " + f.name + " has kind '" + k +
                   "'; this runtime runs 'kernel' and 'cublas_gemm'");
      }
      f.launches.push_back(std::move(l));
    }
    p.functions[f.name] = std::move(f);
  }
  return SINTER_RT_OK;
}

// --- Library calls ----------------------------------------------------------

namespace lt = sinter::rt::lt;

/// SINTER_LOG=1: one line on stderr whenever a library call picks its path.
static bool logPaths() {
  static const bool enabled = [] {
    const char *v = std::getenv("SINTER_LOG");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

/// The context's cuBLASLt handle, created on first use (the program's
/// context is current).
static LtContext *acquireLt(sinter_rt_program &p, const lt::Api &api,
                            std::string &why) {
  std::lock_guard<std::mutex> lock(ltMutex);
  LtContext &c = ltContexts[p.context];
  if (!c.handle) {
    lt::Status st = api.create(&c.handle);
    if (st != lt::kStatusSuccess) {
      ltContexts.erase(p.context);
      why = "cublasLtCreate: " + api.describe(st);
      return nullptr;
    }
  }
  ++c.users;
  return &c;
}

/// Frees the context's cuBLASLt state when its last program goes (the
/// context is current).
static void releaseLt(sinter_rt_program &p) {
  if (!p.lt)
    return;
  std::lock_guard<std::mutex> lock(ltMutex);
  if (--p.lt->users == 0) {
    for (auto &[stream, ptr] : p.lt->workspaces)
      p.drv->cuMemFree(ptr);
    if (const lt::Api *api = lt::api())
      api->destroy(p.lt->handle);
    ltContexts.erase(p.context);
  }
  p.lt = nullptr;
}

/// The workspace of `stream` in the program's context; 0 with `why` set
/// when it cannot be allocated.
static CUdeviceptr workspaceFor(sinter_rt_program &p, CUstream stream,
                                std::string &why) {
  std::lock_guard<std::mutex> lock(ltMutex);
  auto it = p.lt->workspaces.find(stream);
  if (it != p.lt->workspaces.end())
    return it->second;
  CUdeviceptr ptr = 0;
  CUresult r = p.drv->cuMemAlloc(&ptr, kWorkspaceBytes);
  if (r != 0) {
    why = "cuMemAlloc(" + std::to_string(kWorkspaceBytes) +
          " bytes) for the cuBLASLt workspace: " + p.drv->describe(r);
    return 0;
  }
  p.lt->workspaces[stream] = ptr;
  return ptr;
}

static void destroyDescriptors(const lt::Api &api, Gemm &g) {
  if (g.op)
    api.matmulDescDestroy(g.op);
  for (lt::MatrixLayout layout : {g.first, g.second, g.cLayout})
    if (layout)
      api.matrixLayoutDestroy(layout);
  g.op = g.first = g.second = g.cLayout = nullptr;
  g.described = false;
}

/// The cuBLASLt descriptors of `g`: f32 compute and scaling, the row-major
/// GEMM as the column-major C^T = B^T x A^T (lt::toColumnMajor).
/// Whether a cuBLASLt call succeeded; when it did not, `why` (if still
/// empty) names the call and its status.
static bool ltOk(const lt::Api &api, lt::Status st, const char *call,
                 std::string &why) {
  if (st != lt::kStatusSuccess && why.empty())
    why = std::string(call) + ": " + api.describe(st);
  return st == lt::kStatusSuccess;
}

static bool describeGemm(const lt::Api &api, Gemm &g, std::string &why) {
  if (g.described)
    return true;
  lt::ColumnMajorGemm cm = lt::toColumnMajor(g.shape);
  auto check = [&](lt::Status st, const char *call) {
    return ltOk(api, st, call, why);
  };
  auto layout = [&](lt::MatrixLayout &out, const std::string &dtype,
                    const lt::ColumnMajorOperand &o) {
    if (!check(api.matrixLayoutCreate(&out, lt::dataType(dtype), o.rows, o.cols,
                                      o.ld),
               "cublasLtMatrixLayoutCreate"))
      return false;
    if (cm.batch <= 1)
      return true;
    return check(api.matrixLayoutSetAttribute(out, lt::kLayoutBatchCount,
                                              &cm.batch, sizeof(cm.batch)),
                 "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)") &&
           check(api.matrixLayoutSetAttribute(out, lt::kLayoutBatchStride,
                                              &o.batchStride,
                                              sizeof(o.batchStride)),
                 "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  };
  bool ok = check(api.matmulDescCreate(&g.op, lt::kComputeF32, lt::kDataF32),
                  "cublasLtMatmulDescCreate") &&
            layout(g.first, g.bType, cm.first) &&
            layout(g.second, g.aType, cm.second) &&
            layout(g.cLayout, g.cType, cm.c);
  if (!ok) {
    destroyDescriptors(api, g);
    return false;
  }
  g.described = true;
  return true;
}

/// Asks the heuristic for the best algorithm under the pointer alignments
/// of this call; false with `why` when it has none.
static bool chooseAlgorithm(const lt::Api &api, LtContext &c, Gemm &g,
                            const uint32_t aligned[4], std::string &why) {
  lt::MatmulPreference pref = nullptr;
  if (!ltOk(api, api.preferenceCreate(&pref), "cublasLtMatmulPreferenceCreate",
            why))
    return false;
  uint64_t workspace = kWorkspaceBytes;
  lt::Status st = api.preferenceSetAttribute(pref, lt::kPrefMaxWorkspace,
                                             &workspace, sizeof(workspace));
  for (int i = 0; i < 4 && st == lt::kStatusSuccess; ++i)
    st = api.preferenceSetAttribute(pref, lt::kPrefMinAlignmentA + i,
                                    &aligned[i], sizeof(aligned[i]));
  if (!ltOk(api, st, "cublasLtMatmulPreferenceSetAttribute", why)) {
    api.preferenceDestroy(pref);
    return false;
  }
  lt::HeuristicResult result{};
  int returned = 0;
  st = api.algoGetHeuristic(c.handle, g.op, g.first, g.second, g.cLayout,
                            g.cLayout, pref, 1, &result, &returned);
  api.preferenceDestroy(pref);
  if (!ltOk(api, st, "cublasLtMatmulAlgoGetHeuristic", why))
    return false;
  if (returned < 1 || result.state != lt::kStatusSuccess) {
    why = "cublasLtMatmulAlgoGetHeuristic found no algorithm";
    return false;
  }
  g.algo = result.algo;
  return true;
}

/// Runs the library call of `l` through cuBLASLt when it can: `ran` says
/// whether it did; when it did not, the caller launches the fallback kernel.
/// A failing cublasLtMatmul is an error, as a failing kernel launch is.
static int runGemm(sinter_rt_program &p, const Function &f, Launch &l,
                   void *const *args, CUstream stream, bool &ran) {
  Gemm &g = *l.gemm;
  ran = false;
  auto pointer = [&](const Param &b) -> uint64_t {
    return b.kind == Param::Argument ? reinterpret_cast<uint64_t>(args[b.index])
                                     : static_cast<uint64_t>(f.temps[b.index]);
  };
  std::string why;
  const lt::Api *api = lt::api();
  CUdeviceptr workspace = 0;
  if (!api) {
    why = lt::status();
  } else if (!p.lt && !p.ltFailure.empty()) {
    why = p.ltFailure;
  } else if (!p.lt && !(p.lt = acquireLt(p, *api, p.ltFailure))) {
    why = p.ltFailure;
  } else {
    workspace = workspaceFor(p, stream, why);
  }
  uint64_t a = pointer(g.a), b = pointer(g.b), d = pointer(g.c);
  uint64_t c = g.accumulate ? pointer(g.cInit) : d;
  if (workspace) {
    // What the heuristic may assume: cuBLASLt's first operand is B, its
    // second A (C^T = B^T x A^T).
    const lt::RowMajorGemm &s = g.shape;
    size_t cBytes = lt::elementBytes(g.cType);
    uint32_t aligned[4] = {
        lt::alignment(b, s.strideB * lt::elementBytes(g.bType), s.batch),
        lt::alignment(a, s.strideA * lt::elementBytes(g.aType), s.batch),
        lt::alignment(c, s.strideC * cBytes, s.batch),
        lt::alignment(d, s.strideC * cBytes, s.batch)};
    if (g.path == Gemm::Path::Undecided ||
        !std::equal(aligned, aligned + 4, g.aligned)) {
      std::copy(aligned, aligned + 4, g.aligned);
      std::string reason;
      bool ok = describeGemm(*api, g, reason) &&
                chooseAlgorithm(*api, *p.lt, g, aligned, reason);
      g.path = ok ? Gemm::Path::Library : Gemm::Path::Fallback;
      g.fallbackReason = reason;
    }
    if (g.path == Gemm::Path::Library) {
      lt::Status st = api->matmul(
          p.lt->handle, g.op, &g.alpha, reinterpret_cast<void *>(b), g.first,
          reinterpret_cast<void *>(a), g.second, &g.beta,
          reinterpret_cast<void *>(c), g.cLayout, reinterpret_cast<void *>(d),
          g.cLayout, &g.algo, reinterpret_cast<void *>(workspace),
          kWorkspaceBytes, stream);
      if (st != lt::kStatusSuccess)
        return fail(SINTER_RT_ERROR_DRIVER, "cublasLtMatmul(" + g.name +
                                                ") in " + f.name + ": " +
                                                api->describe(st));
      ran = true;
    } else {
      why = g.fallbackReason;
    }
  }
  Gemm::Path now = ran ? Gemm::Path::Library : Gemm::Path::Fallback;
  if (ran) {
    ++p.libraryCalls;
  } else {
    ++p.fallbackLaunches;
    p.lastFallback = g.name + " in " + f.name + ": " + why;
  }
  if (logPaths() && now != g.logged) {
    g.logged = now;
    const lt::RowMajorGemm &s = g.shape;
    std::fprintf(stderr,
                 "sinter: %s in %s: %s (m=%lld n=%lld k=%lld batch=%lld "
                 "%s x %s -> %s)%s%s\n",
                 g.name.c_str(), f.name.c_str(),
                 ran ? "cuBLASLt GEMM" : "fallback kernel",
                 static_cast<long long>(s.m), static_cast<long long>(s.n),
                 static_cast<long long>(s.k), static_cast<long long>(s.batch),
                 g.aType.c_str(), g.bType.c_str(), g.cType.c_str(),
                 ran ? ", " : ": ", ran ? lt::status().c_str() : why.c_str());
  }
  return SINTER_RT_OK;
}

extern "C" int sinter_rt_cublaslt_available(void) {
  return lt::api() != nullptr;
}

extern "C" const char *sinter_rt_cublaslt_status(void) {
  return lt::status().c_str();
}

extern "C" int sinter_rt_library_counts(sinter_rt_program *program,
                                        uint64_t *library_calls,
                                        uint64_t *fallback_launches,
                                        const char **last_fallback) {
  if (!program)
    return fail(SINTER_RT_ERROR_ARGUMENT, "no program");
  std::lock_guard<std::mutex> lock(program->mutex);
  if (library_calls)
    *library_calls = program->libraryCalls;
  if (fallback_launches)
    *fallback_launches = program->fallbackLaunches;
  if (last_fallback)
    *last_fallback = program->lastFallback.c_str();
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
    if (const lt::Api *api = lt::api())
      for (auto &[name, f] : program->functions)
        for (Launch &l : f.launches)
          if (l.gemm)
            destroyDescriptors(*api, *l.gemm);
    releaseLt(*program);
    for (auto &[name, f] : program->functions)
      for (CUdeviceptr t : f.temps)
        d->cuMemFree(t);
    if (program->module)
      d->cuModuleUnload(program->module);
    d->cuDevicePrimaryCtxRelease(program->device);
  }
  delete program;
}

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

extern "C" int sinter_rt_synchronize(void *stream) {
  std::string error;
  Driver *d = driver(error);
  if (!d)
    return fail(SINTER_RT_ERROR_DRIVER, error);
  SINTER_CU(d, cuStreamSynchronize(stream), "cuStreamSynchronize");
  return SINTER_RT_OK;
}
