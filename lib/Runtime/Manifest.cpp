//===- Manifest.cpp - Read an artifact's manifest.json --------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "sinter-c/Runtime.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>

using namespace sinter::rt;

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
int sinter::rt::parseManifest(const JsonValue &root, sinter_rt_program &p) {
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
