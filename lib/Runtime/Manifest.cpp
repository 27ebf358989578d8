//===- Manifest.cpp - Read an artifact's manifest.json --------------------===//
//
// Part of the Sinter project.
//
// Each object is first checked against the schema (Schema.h: keys, types,
// enum values), then for what it means: indices in range, sizes that fit
// their buffers, kernels among the artifact's entry points.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "Schema.h"

#include "sinter-c/Runtime.h"
#include "sinter/Artifact/Manifest.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

using namespace sinter::rt;
namespace key = sinter::manifest::key;
namespace value = sinter::manifest::value;
using sinter::manifest::ObjectId;

static int badManifest(const std::string &what) {
  return fail(SINTER_RT_ERROR_ARTIFACT, "malformed manifest: " + what);
}

/// Checks `v` at `path` against the schema of `id`, as an artifact error.
static int checkSchema(const JsonValue &v, ObjectId id,
                       const std::string &path) {
  std::string error;
  if (!conforms(v, id, path, error))
    return badManifest(error);
  return SINTER_RT_OK;
}

static std::string indexed(const std::string &path, const char *key, size_t i) {
  return path + "." + key + "[" + std::to_string(i) + "]";
}

/// The bytes of `count` elements of `dtype` times the dimensions of `shape`,
/// or false when that does not fit 2^62.
static bool denseBytes(const JsonValue &shape, uint64_t elementBytes,
                       uint64_t &bytes) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  bytes = elementBytes;
  for (const JsonValue &d : shape.array) {
    uint64_t n = static_cast<uint64_t>(d.integer);
    if (n && bytes > kLimit / n)
      return false;
    bytes *= n;
  }
  return true;
}

namespace {
/// What the launches of a manifest may refer to.
struct Context {
  std::set<std::string> entryPoints;
};
} // namespace

/// A buffer reference {"arg": i} or {"temp": i} of `f`; `what` names it in
/// errors.
static int parseBufferRef(const JsonValue *v, const Function &f,
                          const std::string &what, Param &out) {
  std::string error;
  if (!v || !v->isObject() || !conforms(*v, ObjectId::kBufferRef, what, error))
    return badManifest(error.empty() ? what + " is not a buffer ({\"arg\": i} "
                                              "or {\"temp\": i})"
                                     : error);
  const JsonValue *argRef = v->get(key::kArg);
  const JsonValue *tempRef = v->get(key::kTemp);
  if (!argRef == !tempRef)
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

/// A tensor map launch argument (docs/Manifest.md) at `path`: {"tensor_map":
/// buffer, "dtype", "shape", "box", "swizzle", "l2_promotion", "oob_fill",
/// "interleave"}, outermost dimension first. Everything
/// cuTensorMapEncodeTiled requires of it but the pointer is checked here.
static int parseTensorMap(const JsonValue &av, const Function &f,
                          const std::string &kernel, size_t position,
                          const std::string &path, TensorMap &t) {
  if (int rc = checkSchema(av, ObjectId::kTensorMapArg, path))
    return rc;
  std::string where = kernel + " arg " + std::to_string(position) + " in " +
                      f.name + " (tensor map)";
  auto bad = [&](const std::string &what) {
    return badManifest(where + ": " + what);
  };
  if (int rc = parseBufferRef(av.get(key::kTensorMap), f, where, t.buffer))
    return rc;
  t.position = position;
  // The dtypes a tensor map takes: their CUtensorMapDataType.
  static const std::pair<const char *, int> codes[] = {
      {value::kFloat16, 6}, {value::kBfloat16, 9}, {value::kFloat32, 7},
      {value::kFloat64, 8}, {value::kInt32, 3},    {value::kInt64, 5},
      {value::kUint8, 0},   {value::kBool, 0}};
  const std::string &dtypeName = av.get(key::kDtype)->string;
  const auto *code =
      std::find_if(std::begin(codes), std::end(codes),
                   [&](const auto &c) { return dtypeName == c.first; });
  if (code == std::end(codes))
    return bad("unsupported dtype '" + dtypeName + "'");
  t.dataType = code->second;
  const sinter::manifest::DType *dt = sinter::manifest::findDType(dtypeName);
  uint64_t eltBytes = dt->bytes;
  // The schema checked the names; these are the driver's values.
  enumField(av, key::kSwizzle,
            {{value::kNone, 0},
             {value::k32B, 1},
             {value::k64B, 2},
             {value::k128B, 3}},
            t.swizzle);
  enumField(av, key::kL2Promotion,
            {{value::kNone, 0},
             {value::k64B, 1},
             {value::k128B, 2},
             {value::k256B, 3}},
            t.l2Promotion);
  enumField(av, key::kOobFill, {{value::kZero, 0}, {value::kNan, 1}},
            t.oobFill);
  enumField(av, key::kInterleave,
            {{value::kNone, 0}, {value::k16B, 1}, {value::k32B, 2}},
            t.interleave);
  if (t.oobFill == 1 && dt->cls != sinter::manifest::DTypeClass::kFloat)
    return bad("oob_fill \"nan\" needs a floating-point dtype, not " +
               dtypeName);
  const JsonValue *shape = av.get(key::kShape);
  const JsonValue *box = av.get(key::kBox);
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
  // The whole tensor lies inside its buffer.
  size_t have = t.buffer.kind == Param::Argument
                    ? f.argumentBytes[t.buffer.index]
                    : f.tempBytes[t.buffer.index];
  if (bytes > static_cast<long double>(have))
    return bad("the shape needs " + text(bytes) + " bytes, its buffer has " +
               std::to_string(have));
  return SINTER_RT_OK;
}

/// A constant launch argument at `path`: {"type", "value"} or, for floats,
/// {"type", "bits"} (exact IEEE bits, also for inf and nan).
static int parseConstant(const JsonValue &av, const std::string &kernel,
                         const std::string &path, Param &c) {
  if (int rc = checkSchema(av, ObjectId::kConstantArg, path))
    return rc;
  const std::string &type = av.get(key::kType)->string;
  const JsonValue *value = av.get(key::kValue);
  const JsonValue *bits = av.get(key::kBits);
  bool isFloat = type == value::kF32 || type == value::kF64;
  c = Param{Param::Constant, 0, 0};
  if (isFloat && bits) {
    c.bits = type == value::kF32
                 ? static_cast<uint64_t>(static_cast<uint32_t>(bits->integer))
                 : static_cast<uint64_t>(bits->integer);
    return SINTER_RT_OK;
  }
  if (!value)
    return badManifest(path + ": a constant argument of " + kernel +
                       " has no value");
  if (type == value::kF32) {
    float v = static_cast<float>(value->number);
    std::memcpy(&c.bits, &v, sizeof(v));
  } else if (type == value::kF64) {
    double v = value->number;
    std::memcpy(&c.bits, &v, sizeof(v));
  } else if (!value->isInteger ||
             (type == value::kI32 &&
              (value->integer < std::numeric_limits<int32_t>::min() ||
               value->integer > std::numeric_limits<int32_t>::max()))) {
    return badManifest(path + ".value: expected an integer that fits " + type);
  } else if (type == value::kI32) {
    int32_t v = static_cast<int32_t>(value->integer);
    std::memcpy(&c.bits, &v, sizeof(v));
  } else {
    int64_t v = value->integer;
    std::memcpy(&c.bits, &v, sizeof(v));
  }
  return SINTER_RT_OK;
}

/// The arguments of a kernel launch at `path`: buffers ({"arg": i} or
/// {"temp": i}, a scalar argument passed by value), constants and tensor
/// maps, in the kernel's parameter order.
static int parseLaunchArgs(const JsonValue &args, const Function &f,
                           const std::string &path, Launch &l) {
  for (size_t position = 0; position < args.array.size(); ++position) {
    const JsonValue &av = args.array[position];
    std::string at = indexed(path, key::kArgs, position);
    if (av.get(key::kTensorMap)) {
      TensorMap t;
      if (int rc = parseTensorMap(av, f, l.kernel, position, at, t))
        return rc;
      l.params.push_back(Param{Param::TensorMap, l.tensorMaps.size(), 0});
      l.tensorMaps.push_back(t);
      continue;
    }
    if (av.get(key::kArg) || av.get(key::kTemp)) {
      if (int rc = checkSchema(av, ObjectId::kBufferRef, at))
        return rc;
      const JsonValue *argRef = av.get(key::kArg);
      const JsonValue *tempRef = av.get(key::kTemp);
      bool isArg = argRef != nullptr;
      int64_t index = (isArg ? argRef : tempRef)->integer;
      size_t count = isArg ? f.argumentNames.size() : f.tempBytes.size();
      if ((argRef && tempRef) || static_cast<size_t>(index) >= count)
        return badManifest("launch of " + l.kernel + " refers to " +
                           (isArg ? "argument " : "temp ") +
                           std::to_string(index) + " of " +
                           std::to_string(count));
      l.params.push_back(Param{isArg ? Param::Argument : Param::Temp,
                               static_cast<size_t>(index), 0});
      continue;
    }
    Param c;
    if (int rc = parseConstant(av, l.kernel, at, c))
      return rc;
    l.params.push_back(c);
  }
  return SINTER_RT_OK;
}

/// A kernel launch at `path`: {"kind": "kernel", "kernel", "grid",
/// "block", "shared_memory", ["persistent",] "args"}; the kernel is one of
/// the artifact's entry points.
static int parseKernelLaunch(const JsonValue &lv, const Function &f,
                             const Context &context, const std::string &path,
                             Launch &l) {
  if (int rc = checkSchema(lv, ObjectId::kKernelLaunch, path))
    return rc;
  if (lv.get(key::kKind)->string != value::kKernel)
    return badManifest(path + ".kind: expected \"kernel\"");
  l.kernel = lv.get(key::kKernel)->string;
  if (!context.entryPoints.count(l.kernel))
    return badManifest(path + ".kernel: " + l.kernel +
                       " is not among the artifact's entry_points");
  const JsonValue *grid = lv.get(key::kGrid);
  const JsonValue *block = lv.get(key::kBlock);
  constexpr int64_t kDimMax = std::numeric_limits<int32_t>::max();
  for (const JsonValue *sizes : {grid, block}) {
    bool ok = sizes->array.size() == 3;
    for (size_t d = 0; ok && d < 3; ++d)
      ok = sizes->array[d].integer >= 1 && sizes->array[d].integer <= kDimMax;
    if (!ok)
      return badManifest(path + "." +
                         (sizes == grid ? key::kGrid : key::kBlock) +
                         ": expected 3 sizes in [1, 2^31)");
  }
  for (int d = 0; d < 3; ++d) {
    l.grid[d] = static_cast<unsigned>(grid->array[d].integer);
    l.block[d] = static_cast<unsigned>(block->array[d].integer);
  }
  int64_t smem = lv.get(key::kSharedMemory)->integer;
  if (smem > kDimMax)
    return badManifest(path + ".shared_memory: " + std::to_string(smem) +
                       " bytes is more than 2^31");
  l.sharedMemory = static_cast<unsigned>(smem);
  if (const JsonValue *persistent = lv.get(key::kPersistent)) {
    const JsonValue *work = persistent->get(key::kWork);
    const JsonValue *ctas = persistent->get(key::kCtasPerSm);
    if (work->integer < 1 || ctas->integer < 1 || ctas->integer > 64)
      return badManifest("\"persistent\" of " + l.kernel +
                         " needs \"work\" >= 1 and \"ctas_per_sm\" in [1, "
                         "64]");
    l.persistentWork = static_cast<uint64_t>(work->integer);
    l.ctasPerSM = static_cast<unsigned>(ctas->integer);
  }
  return parseLaunchArgs(*lv.get(key::kArgs), f, path, l);
}

/// The activation of a library call and its aux buffer (docs/Manifest.md):
/// gelu_tanh (aux optional, written) or gelu_tanh_grad (aux read; no bias,
/// no c_init); batch 1.
static int parseActivation(const JsonValue &lv, const Function &f,
                           const std::string &where, Gemm &g) {
  const JsonValue *activation = lv.get(key::kActivation);
  const JsonValue *aux = lv.get(key::kAux);
  if (!activation)
    return aux ? badManifest(where + ": aux without an activation")
               : SINTER_RT_OK;
  g.activation = activation->string == value::kGeluTanh
                     ? Gemm::Activation::GeluTanh
                     : Gemm::Activation::GeluTanhGrad;
  bool grad = g.activation == Gemm::Activation::GeluTanhGrad;
  if (g.shape.batch != 1)
    return badManifest(where + ": an activation takes batch 1");
  if (grad && (!aux || g.bias.used || g.accumulate))
    return badManifest(where + ": gelu_tanh_grad reads aux and takes no "
                               "bias and no c_init");
  if (aux) {
    g.aux.used = true;
    if (int rc = parseBufferRef(aux, f, where + ": aux", g.aux.buffer))
      return rc;
  }
  return SINTER_RT_OK;
}

/// A "cublas_gemm" library call at `path` and its "fallback" kernel launch
/// (docs/Manifest.md). Everything cuBLASLt would be told is checked here,
/// so that a bad manifest is an artifact error and never a wild access.
static int parseGemm(const JsonValue &lv, const Function &f,
                     const Context &context, const std::string &path,
                     Launch &l) {
  namespace lt = sinter::rt::lt;
  if (int rc = checkSchema(lv, ObjectId::kCublasGemm, path))
    return rc;
  auto g = std::make_unique<Gemm>();
  g->name = lv.get(key::kName)->string;
  std::string where = "cublas_gemm " + g->name + " of " + f.name;
  auto integer = [&](const char *k, int64_t &out, int64_t lo,
                     int64_t hi) -> bool {
    out = lv.get(k)->integer;
    return out >= lo && out <= hi;
  };
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  lt::RowMajorGemm &s = g->shape;
  if (!integer(key::kM, s.m, 1, kInt32Max) ||
      !integer(key::kN, s.n, 1, kInt32Max) ||
      !integer(key::kK, s.k, 1, kInt32Max) ||
      !integer(key::kBatch, s.batch, 1, kInt32Max))
    return badManifest(where + ": m, n, k and batch must be in [1, 2^31)");
  // An operand stored transposed (trans_a: A^T, k x m; trans_b: B^T,
  // n x k) has rows of its stored shape.
  auto flag = [&](const char *k) {
    const JsonValue *v = lv.get(k);
    return v && v->boolean;
  };
  s.transA = flag(key::kTransA);
  s.transB = flag(key::kTransB);
  int64_t aCols = s.transA ? s.m : s.k, bCols = s.transB ? s.k : s.n;
  if (!integer(key::kLda, s.lda, aCols, kInt32Max) ||
      !integer(key::kLdb, s.ldb, bCols, kInt32Max) ||
      !integer(key::kLdc, s.ldc, s.n, kInt32Max))
    return badManifest(where + ": lda, ldb and ldc must be at least the "
                               "columns of a, b and c as stored (row-major: "
                               "k or m with trans_a, n or k with trans_b, n)");
  if (!integer(key::kStrideA, s.strideA, 0, kInt64Max) ||
      !integer(key::kStrideB, s.strideB, 0, kInt64Max) ||
      !integer(key::kStrideC, s.strideC, 0, kInt64Max))
    return badManifest(where + ": stride_a, stride_b and stride_c must be "
                               "non-negative");
  g->aType = lv.get(key::kADtype)->string;
  g->bType = lv.get(key::kBDtype)->string;
  g->cType = lv.get(key::kCDtype)->string;
  bool typesOk = g->aType == g->bType && lt::dataType(g->aType) >= 0 &&
                 (g->cType == g->aType || g->cType == value::kFloat32) &&
                 (g->aType != value::kFloat32 || g->cType == value::kFloat32);
  if (!typesOk)
    return badManifest(where + ": unsupported types a=" + g->aType +
                       " b=" + g->bType + " c=" + g->cType);
  if (int rc = parseBufferRef(lv.get(key::kA), f, where + ": a", g->a))
    return rc;
  if (int rc = parseBufferRef(lv.get(key::kB), f, where + ": b", g->b))
    return rc;
  if (int rc = parseBufferRef(lv.get(key::kC), f, where + ": c", g->c))
    return rc;
  g->accumulate = lv.get(key::kAccumulate)->boolean;
  const JsonValue *cInit = lv.get(key::kCInit);
  if (g->accumulate != (cInit != nullptr))
    return badManifest(where + ": c_init is given exactly when accumulate "
                               "is true");
  if (g->accumulate)
    if (int rc = parseBufferRef(cInit, f, where + ": c_init", g->cInit))
      return rc;
  const JsonValue *bias = lv.get(key::kBias);
  const JsonValue *biasDtype = lv.get(key::kBiasDtype);
  if ((bias != nullptr) != (biasDtype != nullptr))
    return badManifest(where + ": bias and bias_dtype are given together");
  if (bias) {
    g->bias.used = true;
    g->biasType = biasDtype->string;
    if (int rc = parseBufferRef(bias, f, where + ": bias", g->bias.buffer))
      return rc;
    // cuBLASLt's bias is of D's type (it adds it in the compute type).
    if (g->biasType != g->cType)
      return badManifest(where + ": bias_dtype " + g->biasType +
                         " is not c_dtype " + g->cType);
  }
  if (int rc = parseActivation(lv, f, where, *g))
    return rc;
  g->alpha = static_cast<float>(lv.get(key::kAlpha)->number);
  g->beta = static_cast<float>(lv.get(key::kBeta)->number);
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
    if (need > static_cast<long double>(have))
      return badManifest(where + ": " + what + " needs " +
                         std::to_string(static_cast<uint64_t>(need)) +
                         " bytes, its buffer has " + std::to_string(have));
    return SINTER_RT_OK;
  };
  if (int rc = fits(g->a, g->aType, s.transA ? s.k : s.m, aCols, s.lda,
                    s.strideA, "a"))
    return rc;
  if (int rc = fits(g->b, g->bType, s.transB ? s.n : s.k, bCols, s.ldb,
                    s.strideB, "b"))
    return rc;
  if (int rc = fits(g->c, g->cType, s.m, s.n, s.ldc, s.strideC, "c"))
    return rc;
  if (g->accumulate)
    if (int rc = fits(g->cInit, g->cType, s.m, s.n, s.ldc, s.strideC, "c_init"))
      return rc;
  // One bias of n elements for every row and every matrix of the batch.
  if (g->bias.used)
    if (int rc = fits(g->bias.buffer, g->biasType, 1, s.n, s.n, 0, "bias"))
      return rc;
  if (g->aux.used)
    if (int rc = fits(g->aux.buffer, g->cType, s.m, s.n, s.n, 0, "aux"))
      return rc;
  if (int rc = parseKernelLaunch(*lv.get(key::kFallback), f, context,
                                 path + "." + key::kFallback, l))
    return rc;
  l.gemm = std::move(g);
  return SINTER_RT_OK;
}

/// A buffer (an argument or a temp) at `path`: its bytes are those of its
/// dtype and shape (a scalar has shape []).
static int checkBuffer(const JsonValue &b, const std::string &path) {
  const sinter::manifest::DType *dt =
      sinter::manifest::findDType(b.get(key::kDtype)->string);
  const JsonValue *shape = b.get(key::kShape);
  bool scalar = b.get(key::kKind)->string == value::kScalar;
  if (scalar && !shape->array.empty())
    return badManifest(path + ".shape: a scalar has shape []");
  uint64_t bytes = 0;
  if (!denseBytes(*shape, dt->bytes, bytes))
    return badManifest(path + ".shape: more than 2^62 bytes");
  int64_t recorded = b.get(key::kBytes)->integer;
  if (static_cast<uint64_t>(recorded) != bytes)
    return badManifest(path + ".bytes: " + std::to_string(recorded) +
                       ", but its shape and dtype make " +
                       std::to_string(bytes));
  return SINTER_RT_OK;
}

/// The arguments of function `f` at `path`: in order (each "index" its
/// position), inputs then outputs; an output written in place names an
/// input of its dtype and shape in "alias_of".
static int parseArguments(const JsonValue &args, const std::string &path,
                          Function &f) {
  bool outputs = false;
  for (size_t i = 0; i < args.array.size(); ++i) {
    const JsonValue &a = args.array[i];
    std::string at = indexed(path, key::kArguments, i);
    if (int rc = checkBuffer(a, at))
      return rc;
    if (a.get(key::kIndex)->integer != static_cast<int64_t>(i))
      return badManifest(
          at + ".index: " + std::to_string(a.get(key::kIndex)->integer) +
          ", expected its position " + std::to_string(i));
    bool output = a.get(key::kRole)->string == value::kOutput;
    if (outputs && !output)
      return badManifest(at + ".role: an input after an output");
    outputs |= output;
    if (const JsonValue *alias = a.get(key::kAliasOf)) {
      auto input = std::find_if(
          args.array.begin(), args.array.begin() + i, [&](const JsonValue &b) {
            return b.get(key::kName)->string == alias->string &&
                   b.get(key::kRole)->string == value::kInput;
          });
      if (!output || input == args.array.begin() + i ||
          input->get(key::kKind)->string != value::kBuffer ||
          input->get(key::kDtype)->string != a.get(key::kDtype)->string ||
          input->get(key::kBytes)->integer != a.get(key::kBytes)->integer)
        return badManifest(at + ".alias_of: '" + alias->string +
                           "' is not an input buffer of the output's dtype "
                           "and size");
    }
    f.argumentNames.push_back(a.get(key::kName)->string);
    f.argumentIsScalar.push_back(a.get(key::kKind)->string == value::kScalar);
    f.argumentBytes.push_back(static_cast<size_t>(a.get(key::kBytes)->integer));
  }
  return SINTER_RT_OK;
}

/// A function at `path`: its arguments, temps and launches.
static int parseFunction(const JsonValue &fv, const Context &context,
                         const std::string &path, Function &f) {
  f.name = fv.get(key::kName)->string;
  if (int rc = parseArguments(*fv.get(key::kArguments), path, f))
    return rc;
  const JsonValue *temps = fv.get(key::kTemps);
  for (size_t i = 0; i < temps->array.size(); ++i) {
    const JsonValue &t = temps->array[i];
    std::string at = indexed(path, key::kTemps, i);
    if (int rc = checkBuffer(t, at))
      return rc;
    if (t.get(key::kKind)->string != value::kBuffer)
      return badManifest(at + ".kind: a temp is a buffer");
    f.tempBytes.push_back(static_cast<size_t>(t.get(key::kBytes)->integer));
  }
  const JsonValue *launches = fv.get(key::kLaunches);
  for (size_t i = 0; i < launches->array.size(); ++i) {
    const JsonValue &lv = launches->array[i];
    std::string at = indexed(path, key::kLaunches, i);
    Launch l;
    const JsonValue *kind = lv.isObject() ? lv.get(key::kKind) : nullptr;
    std::string k = kind && kind->isString() ? kind->string : "";
    int rc = SINTER_RT_OK;
    if (k == value::kKernel)
      rc = parseKernelLaunch(lv, f, context, at, l);
    else if (k == value::kCublasGemm)
      rc = parseGemm(lv, f, context, at, l);
    else
      rc = badManifest(at + ": a launch of " + f.name + " has kind '" + k +
                       "'; this runtime runs 'kernel' and 'cublas_gemm'");
    if (rc)
      return rc;
    f.launches.push_back(std::move(l));
  }
  return SINTER_RT_OK;
}

int sinter::rt::checkFormat(const JsonValue &root) {
  if (!root.isObject())
    return badManifest("the manifest is not a JSON object");
  const JsonValue *target = root.get(key::kTarget);
  if (target && target->isString() &&
      target->string.compare(0, 5, "cuda:") != 0)
    return badManifest("target: \"" + target->string +
                       "\" is not a cuda target (this runtime runs CUDA "
                       "artifacts; sinter.load runs CPU ones from Python)");
  const JsonValue *version = root.get(key::kFormatVersion);
  if (!version || !version->isInteger ||
      version->integer != sinter::manifest::kCUDAFormatVersion)
    return fail(SINTER_RT_ERROR_ARTIFACT,
                "manifest format " +
                    (version && version->isInteger
                         ? std::to_string(version->integer)
                         : std::string(version ? "?" : "(none)")) +
                    " is not supported (this runtime reads format " +
                    std::to_string(sinter::manifest::kCUDAFormatVersion) +
                    "; recompile the artifact with this version of sinterc)");
  return SINTER_RT_OK;
}

int sinter::rt::parseManifest(const JsonValue &root, sinter_rt_program &p) {
  if (int rc = checkFormat(root))
    return rc;
  if (int rc = checkSchema(root, ObjectId::kCudaManifest, ""))
    return rc;
  Context context;
  for (const JsonValue &e : root.get(key::kEntryPoints)->array)
    if (!context.entryPoints.insert(e.string).second)
      return badManifest("entry_points: " + e.string + " appears twice");
  const JsonValue *functions = root.get(key::kFunctions);
  for (size_t i = 0; i < functions->array.size(); ++i) {
    std::string at = indexed("", key::kFunctions, i).substr(1);
    Function f;
    if (int rc = parseFunction(functions->array[i], context, at, f))
      return rc;
    if (p.functions.count(f.name))
      return badManifest(at + ".name: a second function named " + f.name);
    std::string name = f.name;
    p.functions[name] = std::move(f);
  }
  return SINTER_RT_OK;
}
