//===- FakeCublasLt.cpp - A stand-in cuBLASLt for runtime tests -----------===//
//
// Part of the Sinter project.
//
// The entry points the runtime resolves, with the documented column-major
// semantics of cublasLtMatmul -- D[b] = alpha * op(A[b]) x op(B[b]) +
// beta * C[b], op the transpose where TRANSA/TRANSB say CUBLAS_OP_T, each
// matrix (as stored) at `ld` elements per column and
// the batch `stride` elements apart -- computed on the host (the fake
// driver's "device" memory is host memory), in f32 from f32, f16 or bf16
// elements. Argument checks follow the API (attribute sizes, matching
// shapes); a control function makes the heuristic or the matmul fail.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>

namespace {
struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0;
};
struct Desc {
  int compute, scale;
  int32_t transA = 0, transB = 0; // 1: CUBLAS_OP_T
  uint32_t epilogue = 0;          // 4: BIAS, 32: GELU, 128: AUX, 192: DGELU
  const void *bias = nullptr;
  int biasType = -1;
  void *aux = nullptr;
  int64_t auxLd = 0;
};
struct Pref {
  uint64_t workspace = 0;
  uint32_t alignment[4] = {256, 256, 256, 256};
};

int mode = 0; // 1: the heuristic finds nothing, 2: cublasLtMatmul fails
int matmuls = 0, heuristics = 0;
/// The heuristic's algorithms, best first by its model: algorithm i has id
/// kFirstAlgo + i and costs[i] microseconds of the fake driver's clock per
/// matmul (a negative cost: cublasLtMatmul refuses it).
constexpr uint64_t kFirstAlgo = 42;
constexpr int kMaxAlgos = 8;
int algorithms = 1;
float costs[kMaxAlgos] = {1};
uint64_t lastAlgo = 0;

/// Advances the fake driver's clock (FakeCuda.cpp), when it is loaded.
void advanceClock(double us) {
  static auto advance = [] {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return cuda ? reinterpret_cast<void (*)(double)>(
                      dlsym(cuda, "fake_cuda_advance"))
                : nullptr;
  }();
  if (advance)
    advance(us);
}
uint32_t lastAlignment[4];
uint64_t lastWorkspace = 0;

constexpr int kSuccess = 0, kInvalid = 7, kExecutionFailed = 13;

float load(int type, const void *base, int64_t i) {
  if (type == 0) // CUDA_R_32F
    return static_cast<const float *>(base)[i];
  uint16_t h = static_cast<const uint16_t *>(base)[i];
  if (type == 14) { // CUDA_R_16BF
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  // CUDA_R_16F
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(static_cast<float>(man), -24)
                     : std::ldexp(static_cast<float>(man | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

void store(int type, void *base, int64_t i, float v) {
  if (type == 0) {
    static_cast<float *>(base)[i] = v;
    return;
  }
  // bf16 (truncating: the tests use exactly representable values); f16 is
  // not written by the tests.
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  static_cast<uint16_t *>(base)[i] = static_cast<uint16_t>(bits >> 16);
}
} // namespace

extern "C" {
int cublasLtCreate(void **handle) {
  static int h;
  *handle = &h;
  return kSuccess;
}
int cublasLtDestroy(void *) { return kSuccess; }
size_t cublasLtGetVersion() { return 1; }
const char *cublasLtGetStatusName(int status) {
  return status == kExecutionFailed ? "CUBLAS_STATUS_EXECUTION_FAILED"
         : status == 15             ? "CUBLAS_STATUS_NOT_SUPPORTED"
                                    : "CUBLAS_STATUS_OTHER";
}
const char *cublasLtGetStatusString(int) { return "the fake cuBLASLt failed"; }
int cublasLtMatmulDescCreate(Desc **desc, int compute, int scale) {
  if (compute != 68 || scale != 0) // CUBLAS_COMPUTE_32F, CUDA_R_32F
    return kInvalid;
  *desc = new Desc{compute, scale};
  return kSuccess;
}
int cublasLtMatmulDescSetAttribute(Desc *desc, int attr, const void *buf,
                                   size_t size) {
  if (attr == 3 && size == 4) // TRANSA, int32_t (cublasOperation_t)
    std::memcpy(&desc->transA, buf, 4);
  else if (attr == 4 && size == 4) // TRANSB
    std::memcpy(&desc->transB, buf, 4);
  else if (attr == 7 && size == 4) // EPILOGUE, uint32_t
    std::memcpy(&desc->epilogue, buf, 4);
  else if (attr == 8 && size == 8) // BIAS_POINTER
    std::memcpy(&desc->bias, buf, 8);
  else if (attr == 26 && size == 4) // BIAS_DATA_TYPE, int32_t
    std::memcpy(&desc->biasType, buf, 4);
  else if (attr == 11 && size == 8) // EPILOGUE_AUX_POINTER
    std::memcpy(&desc->aux, buf, 8);
  else if (attr == 12 && size == 8) // EPILOGUE_AUX_LD, int64_t
    std::memcpy(&desc->auxLd, buf, 8);
  else
    return kInvalid;
  return kSuccess;
}
int cublasLtMatmulDescDestroy(Desc *desc) {
  delete desc;
  return kSuccess;
}
int cublasLtMatrixLayoutCreate(Layout **layout, int type, uint64_t rows,
                               uint64_t cols, int64_t ld) {
  if ((type != 0 && type != 2 && type != 14) || ld < static_cast<int64_t>(rows))
    return kInvalid;
  *layout = new Layout{type, rows, cols, ld};
  return kSuccess;
}
int cublasLtMatrixLayoutDestroy(Layout *layout) {
  delete layout;
  return kSuccess;
}
int cublasLtMatrixLayoutSetAttribute(Layout *layout, int attr, const void *buf,
                                     size_t size) {
  if (attr == 5 && size == 4) // BATCH_COUNT, int32_t
    std::memcpy(&layout->batch, buf, 4);
  else if (attr == 6 && size == 8) // STRIDED_BATCH_OFFSET, int64_t
    std::memcpy(&layout->stride, buf, 8);
  else
    return kInvalid;
  return kSuccess;
}
int cublasLtMatmulPreferenceCreate(Pref **pref) {
  *pref = new Pref;
  return kSuccess;
}
int cublasLtMatmulPreferenceDestroy(Pref *pref) {
  delete pref;
  return kSuccess;
}
int cublasLtMatmulPreferenceSetAttribute(Pref *pref, int attr, const void *buf,
                                         size_t size) {
  if (attr == 1 && size == 8) // MAX_WORKSPACE_BYTES, uint64_t
    std::memcpy(&pref->workspace, buf, 8);
  else if (attr >= 5 && attr <= 8 && size == 4) // MIN_ALIGNMENT_{A,B,C,D}
    std::memcpy(&pref->alignment[attr - 5], buf, 4);
  else
    return kInvalid;
  return kSuccess;
}
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};
/// Rows and columns of op(X) for a stored X (`t`: read transposed).
uint64_t opRows(const Layout *x, int32_t t) { return t ? x->cols : x->rows; }
uint64_t opCols(const Layout *x, int32_t t) { return t ? x->rows : x->cols; }

int cublasLtMatmulAlgoGetHeuristic(void *, Desc *desc, Layout *a, Layout *b,
                                   Layout *c, Layout *d, Pref *pref,
                                   int requested, HeuristicResult *results,
                                   int *returned) {
  ++heuristics;
  std::memcpy(lastAlignment, pref->alignment, sizeof(lastAlignment));
  lastWorkspace = pref->workspace;
  *returned = 0;
  if (requested < 1)
    return kInvalid;
  if (opRows(a, desc->transA) != c->rows ||
      opCols(b, desc->transB) != c->cols ||
      opCols(a, desc->transA) != opRows(b, desc->transB) ||
      c->rows != d->rows || c->cols != d->cols || c->type != d->type ||
      a->batch != b->batch || a->batch != c->batch)
    return kInvalid;
  if (mode == 1)
    return kSuccess; // no algorithm
  for (int i = 0; i < algorithms && i < requested; ++i) {
    std::memset(&results[i], 0, sizeof(HeuristicResult));
    results[i].algo[0] = kFirstAlgo + i;
    results[i].workspaceSize = 1024;
    *returned = i + 1;
  }
  return kSuccess;
}
/// GELU's tanh form and its derivative.
float gelu(float x) {
  return 0.5f * x *
         (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}
float geluGrad(float x) {
  float t = std::tanh(0.7978845608f * (x + 0.044715f * x * x * x));
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * 0.7978845608f *
                                 (1.0f + 3.0f * 0.044715f * x * x);
}

/// The epilogue on element (i, j) of the column-major D: the bias over its
/// rows, GELU (storing its input in aux, of D's type, with AUX), or GELU's
/// gradient at aux (DGELU).
float epilogue(const Desc &desc, int type, uint64_t i, uint64_t j, float v) {
  int64_t at = static_cast<int64_t>(i + j * desc.auxLd);
  if (desc.epilogue == 192)
    return v * geluGrad(load(type, desc.aux, at));
  if (desc.epilogue & 4)
    v += load(desc.biasType, desc.bias, i);
  if (desc.epilogue & 128)
    store(type, desc.aux, at, v);
  return desc.epilogue & 32 ? gelu(v) : v;
}

int cublasLtMatmul(void *, Desc *desc, const void *alpha, const void *A,
                   Layout *a, const void *B, Layout *b, const void *beta,
                   const void *C, Layout *c, void *D, Layout *d,
                   const uint64_t *algo, void *workspace, size_t workspaceSize,
                   void *) {
  if (mode == 2)
    return kExecutionFailed;
  if (!algo || algo[0] < kFirstAlgo || algo[0] >= kFirstAlgo + algorithms ||
      !workspace || workspaceSize < 1024)
    return kInvalid;
  float cost = costs[algo[0] - kFirstAlgo];
  if (cost < 0)
    return 15; // CUBLAS_STATUS_NOT_SUPPORTED
  ++matmuls;
  lastAlgo = algo[0];
  advanceClock(cost);
  float al = *static_cast<const float *>(alpha);
  float be = *static_cast<const float *>(beta);
  for (int32_t n = 0; n < c->batch; ++n)
    for (uint64_t i = 0; i < c->rows; ++i)
      for (uint64_t j = 0; j < c->cols; ++j) {
        float sum = 0;
        for (uint64_t p = 0; p < opCols(a, desc->transA); ++p) {
          // op(A)(i, p) and op(B)(p, j) in column-major storage.
          int64_t ai = desc->transA ? p + i * a->ld : i + p * a->ld;
          int64_t bi = desc->transB ? j + p * b->ld : p + j * b->ld;
          sum += load(a->type, A, n * a->stride + ai) *
                 load(b->type, B, n * b->stride + bi);
        }
        float v = al * sum;
        if (be != 0)
          v += be * load(c->type, C, n * c->stride + i + j * c->ld);
        v = epilogue(*desc, d->type, i, j, v);
        store(d->type, D, n * d->stride + i + j * d->ld, v);
      }
  return kSuccess;
}

// --- Control, for the tests (dlsym on this library). ---
void fake_lt_reset() {
  mode = 0;
  matmuls = heuristics = 0;
  algorithms = 1;
  costs[0] = 1;
  lastAlgo = 0;
}
/// The heuristic offers `n` algorithms (at most kMaxAlgos) with these costs.
void fake_lt_set_algorithms(int n, const float *perCall) {
  algorithms = n < kMaxAlgos ? n : kMaxAlgos;
  std::memcpy(costs, perCall, sizeof(float) * algorithms);
}
uint64_t fake_lt_last_algo() { return lastAlgo; }
void fake_lt_set_mode(int m) { mode = m; }
int fake_lt_matmuls() { return matmuls; }
int fake_lt_heuristics() { return heuristics; }
uint32_t fake_lt_alignment(int i) { return lastAlignment[i]; }
uint64_t fake_lt_workspace() { return lastWorkspace; }
}
