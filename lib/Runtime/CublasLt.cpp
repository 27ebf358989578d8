//===- CublasLt.cpp - cuBLASLt through dlopen, for library calls ----------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <sstream>

namespace sinter::rt::lt {

std::string Api::describe(Status s) const {
  const char *name = getStatusName ? getStatusName(s) : nullptr;
  const char *text = getStatusString ? getStatusString(s) : nullptr;
  std::ostringstream os;
  os << (name ? name : "CUBLAS_STATUS") << " (" << s << ")";
  if (text && *text)
    os << ": " << text;
  return os.str();
}

bool disabledBy(const char *env) {
  if (!env)
    return false;
  for (const char *off : {"0", "off", "OFF", "none", "false"})
    if (std::strcmp(env, off) == 0)
      return true;
  return false;
}

std::vector<std::string> candidates(const char *env) {
  std::vector<std::string> paths;
  if (env && *env && !disabledBy(env))
    paths.push_back(env);
  for (const char *soname :
       {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
    paths.push_back(soname);
  return paths;
}

namespace {
template <typename F>
bool resolve(void *library, F &fn, const char *name, std::string &missing) {
  fn = reinterpret_cast<F>(dlsym(library, name));
  if (!fn)
    missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}
} // namespace

bool open(Api &api, const std::vector<std::string> &paths) {
  std::string tried;
  for (const std::string &path : paths) {
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *e = dlerror(); // names the library
      tried += "; " + (e ? std::string(e) : path + ": cannot be opened");
      continue;
    }
    Api a;
    a.library = library;
    a.path = path;
    std::string missing;
    bool ok = true;
    ok &= resolve(library, a.create, "cublasLtCreate", missing);
    ok &= resolve(library, a.destroy, "cublasLtDestroy", missing);
    ok &= resolve(library, a.getVersion, "cublasLtGetVersion", missing);
    ok &= resolve(library, a.matmulDescCreate, "cublasLtMatmulDescCreate",
                  missing);
    ok &= resolve(library, a.matmulDescDestroy, "cublasLtMatmulDescDestroy",
                  missing);
    ok &= resolve(library, a.matmulDescSetAttribute,
                  "cublasLtMatmulDescSetAttribute", missing);
    ok &= resolve(library, a.matrixLayoutCreate, "cublasLtMatrixLayoutCreate",
                  missing);
    ok &= resolve(library, a.matrixLayoutDestroy, "cublasLtMatrixLayoutDestroy",
                  missing);
    ok &= resolve(library, a.matrixLayoutSetAttribute,
                  "cublasLtMatrixLayoutSetAttribute", missing);
    ok &= resolve(library, a.preferenceCreate, "cublasLtMatmulPreferenceCreate",
                  missing);
    ok &= resolve(library, a.preferenceDestroy,
                  "cublasLtMatmulPreferenceDestroy", missing);
    ok &= resolve(library, a.preferenceSetAttribute,
                  "cublasLtMatmulPreferenceSetAttribute", missing);
    ok &= resolve(library, a.algoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic",
                  missing);
    ok &= resolve(library, a.matmul, "cublasLtMatmul", missing);
    if (!ok) {
      tried += "; " + path + ": lacks " + missing;
      dlclose(library);
      continue;
    }
    // Status names are a convenience (cuBLASLt 11.4 and later).
    std::string optional;
    resolve(library, a.getStatusName, "cublasLtGetStatusName", optional);
    resolve(library, a.getStatusString, "cublasLtGetStatusString", optional);
    a.version = a.getVersion();
    // Candidates that failed before (a $SINTER_CUBLASLT typo) stay visible.
    a.status = "opened " + path + " (cuBLASLt " + std::to_string(a.version) +
               ")" + (tried.empty() ? "" : "; passed over" + tried.substr(1));
    api = a;
    return true;
  }
  api.status = "cannot open cuBLASLt" +
               (tried.empty() ? std::string(": nothing to try") : tried);
  return false;
}

namespace {
struct Loaded {
  Api api;
  bool ok = false;
};

Loaded &loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *env = std::getenv("SINTER_CUBLASLT");
    if (disabledBy(env)) {
      l.api.status = std::string("disabled by SINTER_CUBLASLT=") + env;
      return;
    }
    l.ok = open(l.api, candidates(env));
  });
  return l;
}
} // namespace

const Api *api() {
  Loaded &l = loaded();
  return l.ok ? &l.api : nullptr;
}

const std::string &status() { return loaded().api.status; }

int dataType(const std::string &dtype) {
  if (dtype == "float32")
    return kDataF32;
  if (dtype == "float16")
    return kDataF16;
  if (dtype == "bfloat16")
    return kDataBF16;
  return -1;
}

size_t elementBytes(const std::string &dtype) {
  if (dtype == "float32")
    return 4;
  if (dtype == "float16" || dtype == "bfloat16")
    return 2;
  return 0;
}

ColumnMajorGemm toColumnMajor(const RowMajorGemm &g) {
  ColumnMajorGemm c;
  c.swapped = true;
  // Row-major B (k x n, rows ldb apart) is column-major B^T: n x k; a
  // stored row-major B^T (n x k) is column-major B (k x n), read as its
  // transpose.
  uint64_t m = static_cast<uint64_t>(g.m), n = static_cast<uint64_t>(g.n),
           k = static_cast<uint64_t>(g.k);
  c.first = g.transB ? ColumnMajorOperand{k, n, g.ldb, g.strideB, true}
                     : ColumnMajorOperand{n, k, g.ldb, g.strideB, false};
  // Row-major A (m x k) is column-major A^T: k x m; a stored A^T likewise.
  c.second = g.transA ? ColumnMajorOperand{m, k, g.lda, g.strideA, true}
                      : ColumnMajorOperand{k, m, g.lda, g.strideA, false};
  // Row-major C (m x n) is column-major C^T: n x m = B^T x A^T.
  c.c = {static_cast<uint64_t>(g.n), static_cast<uint64_t>(g.m), g.ldc,
         g.strideC};
  c.batch = static_cast<int32_t>(g.batch);
  return c;
}

uint32_t epilogueOf(bool bias, bool gelu, bool aux, bool geluGrad) {
  if (geluGrad)
    return kEpilogueDGelu;
  uint32_t e = (bias ? kEpilogueBias : 0) | (gelu ? kEpilogueGelu : 0) |
               (gelu && aux ? kEpilogueAux : 0);
  return e ? e : kEpilogueDefault;
}

uint32_t alignment(uint64_t address, uint64_t strideBytes, int64_t batch) {
  uint64_t bits = address | (batch > 1 ? strideBytes : 0);
  uint32_t a = 256;
  while (a > 1 && bits % a != 0)
    a /= 2;
  return a;
}

} // namespace sinter::rt::lt
